// The op-level view of a replayed (or directly run) NPU program that the
// Chakra export is made of: per chip the op instances in program order,
// each a slice of the chip's issue timeline, with what it computed, what it
// moved through HBM and how its remote DMAs group into collectives or
// point-to-point transfers. Built from run data (formats/rundb/run_data.h);
// the mapping is documented in docs/formats/chakra-from-npu.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/rundb/run_data.h"

namespace snr::exporter {

enum class CollectiveType { kAllGather, kReduceScatter, kAllToAll };
std::string_view collective_type_name(CollectiveType type);

// One run of consecutive instructions of one op on one chip. Time is the
// issue timeline partition of run.db's op_summary: an instance owns
// (begin_cycle, end_cycle], from the last issue of the previous instance to
// its own last issue (its instructions' stalls included).
struct OpInstance {
  std::string name;
  uint32_t chip = 0;
  uint32_t occurrence = 0;  // how many earlier instances of `name` the chip ran
  uint64_t first_step = 0;
  uint64_t begin_cycle = 0;
  uint64_t end_cycle = 0;
  uint64_t instructions = 0;
  uint64_t matrix_ops = 0;   // 2 x 8 x 128 x 128 per matrix-unit push
  uint64_t vector_ops = 0;   // 8 x 128 lanes per vector arithmetic instruction
  uint64_t hbm_bytes = 0;    // bytes of the instance's DMAs that read or wrote HBM
  std::vector<size_t> remote_dmas;  // indices into RunData::dmas issued here to / from another chip

  // Set when the remote DMAs form a collective (see build_op_timeline).
  bool collective = false;
  CollectiveType collective_type = CollectiveType::kAllGather;
  uint64_t comm_bytes = 0;          // Chakra comm_size of the collective
  uint64_t chunk_bytes = 0;         // bytes this chip sends each peer
  std::vector<uint32_t> group;      // member chips, ascending
  uint64_t comm_begin_cycle = 0;    // issue of the first remote DMA
  uint64_t comm_end_cycle = 0;      // the WAIT that ends the collective on this chip
  bool reduces_after_wait = false;  // vector arithmetic after comm_end_cycle
  uint64_t after_wait_ops = 0;      // vector_ops issued after comm_end_cycle
  uint64_t before_comm_hbm_bytes = 0;  // hbm_bytes of DMAs issued before comm_begin_cycle

  [[nodiscard]] uint64_t cycles() const { return end_cycle - begin_cycle; }
};

struct OpTimeline {
  double clock_hz = 0;
  uint64_t total_cycles = 0;
  std::vector<std::vector<OpInstance>> chips;  // [chip] in program order
  std::vector<rundb::DmaRecord> dmas;          // the run's DMAs (remote_dmas index them)
};

// Splits each chip's instructions into op instances (instructions without
// an op symbol belong to the instance they follow), attributes DMAs to the
// instance of their issuing step and classifies remote traffic: an
// instance's remote DMAs form a collective when each member of the group
// (the chip and its peers) runs the same instance (name and occurrence),
// sends each other member exactly one DMA of one size and the group is the
// same seen from every member. Its type follows from the data movement:
// every peer gets the same source bytes → all-gather; distinct sources with
// vector arithmetic after the WAIT → reduce-scatter; distinct sources
// otherwise → all-to-all. Anything else is point-to-point.
// Throws snr::Error when the run data is inconsistent (a DMA whose issuing
// step is not an instruction of its chip).
OpTimeline build_op_timeline(rundb::RunData data);

}  // namespace snr::exporter
