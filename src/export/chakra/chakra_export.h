// Op timeline → Chakra execution traces, one `.et` rank per chip
// (`<prefix>.<chip>.et`). Mapping (docs/formats/chakra-from-npu.md):
//   plain op instance          → COMP_NODE, measured duration, num_ops, tensor_size
//   collective op instance     → [COMP "<op>.setup"] COMM_COLL "<op>" [COMP "<op>.reduce"/"<op>.finish"]
//   point-to-point remote DMA  → COMM_SEND on the sending chip, COMM_RECV on the receiving one
// Every node depends (data_deps) on the node before it on its rank: the
// NPU's core issues in order, so program order is the op graph it ran.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "export/chakra/op_timeline.h"
#include "formats/chakra/et_def.pb.h"

namespace snr::exporter {

struct ChakraTrace {
  ChakraProtoMsg::GlobalMetadata metadata;  // shared by every rank (plus its `rank` attribute)
  std::vector<std::vector<ChakraProtoMsg::Node>> ranks;
  // Communicator groups other than all chips: id → members (pg_name = id).
  std::vector<std::pair<std::string, std::vector<uint32_t>>> groups;
  uint64_t collectives = 0;  // COMM_COLL nodes over all ranks
  uint64_t point_to_point = 0;  // SEND + RECV nodes over all ranks
};

// `provenance` becomes GlobalMetadata string attributes, in order (where
// the data came from: source, model spec hash, hardware preset, window).
ChakraTrace build_chakra_trace(const OpTimeline& timeline,
                               const std::vector<std::pair<std::string, std::string>>& provenance);

struct ChakraFiles {
  std::vector<std::filesystem::path> ranks;
  std::filesystem::path comm_groups;  // empty when every collective spans all chips
  uint64_t nodes = 0;
  uint64_t bytes = 0;
};

// Writes every rank (and `<prefix>.comm_groups.json` when needed) into a
// staging directory beside the prefix and renames them into place only
// when all are written: an error leaves no partial trace.
ChakraFiles write_chakra_trace(const ChakraTrace& trace, const std::filesystem::path& prefix);

// One line per output for the CLI: ranks, nodes, collectives, bytes.
std::string describe_export(const ChakraTrace& trace, const ChakraFiles& files, const std::string& prefix);

}  // namespace snr::exporter
