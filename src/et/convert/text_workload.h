// ASTRA-sim's text workload format -> per-rank Chakra graphs, following
// Chakra's text2chakra converter (differences in docs/formats/pytorch.md,
// "ASTRA-sim text workloads"). The file:
//   line 1: parallelism (MICRO, DATA, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA,
//           HYBRID_DLRM or HYBRID_DLRM_ENHANCED followed by the last bottom-MLP layer)
//   line 2: number of layers
//   then one line per layer, 12 whitespace-separated columns:
//     name reserved fwd_compute fwd_comm_type fwd_comm_bytes
//     ig_compute ig_comm_type ig_comm_bytes wg_compute wg_comm_type
//     wg_comm_bytes update_time
// Compute times are in the unit ASTRA-sim reads them (written to
// duration_micros unchanged, as Chakra does); comm types are NONE,
// ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "et/convert/converted_graph.h"

namespace snr::et_convert {

enum class TextParallelism { kMicro, kData, kModel, kHybridDataModel, kHybridModelData, kDlrm };

struct TextComm {
  std::optional<CollectiveType> type;  // nullopt for NONE
  std::string type_name;               // as written
  uint64_t size_bytes = 0;
};

struct TextLayer {
  std::string name;
  uint64_t fwd_compute = 0;
  TextComm fwd_comm;
  uint64_t ig_compute = 0;
  TextComm ig_comm;
  uint64_t wg_compute = 0;
  TextComm wg_comm;
  uint64_t update_time = 0;
  size_t line = 0;  // 1-based line in the source
};

struct TextWorkload {
  TextParallelism parallelism = TextParallelism::kData;
  // DLRM: index of the last bottom-MLP layer; the top MLP starts after it and
  // its first layer waits for the embeddings' all-to-all (layer 0).
  size_t dlrm_last_bottom_layer = 0;
  std::vector<TextLayer> layers;
};

// Throws snr::Error "<source>:<line>: ..." for malformed input.
TextWorkload parse_text_workload(std::string_view text, const std::string& source_name);

// One rank's graph; every rank gets the same nodes (ids from 0).
ConvertedGraph convert_text_workload(const TextWorkload& workload, int64_t rank, uint32_t passes);

}  // namespace snr::et_convert
