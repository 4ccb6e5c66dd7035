// The converters' output before it becomes protobuf: Chakra nodes as plain
// structs, so conversion rules are testable without the wire format, and the
// one place that knows the .et encoding is chakra_output.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/pytorch/text_pool.h"

namespace snr::et_convert {

enum class ConvertedNodeType { kComp, kCommColl, kCommSend, kCommRecv, kMetadata };

// Values of ChakraProtoMsg::CollectiveCommType (et_def.proto).
enum class CollectiveType : int {
  kAllReduce = 0,
  kReduce = 1,
  kAllGather = 2,
  kGather = 3,
  kScatter = 4,
  kBroadcast = 5,
  kAllToAll = 6,
  kReduceScatter = 7,
  kReduceScatterBlock = 8,
  kBarrier = 9,
};

// Collectives with a root rank (the source of a broadcast or scatter, the
// destination of a reduce or gather).
constexpr bool is_rooted(CollectiveType type) {
  return type == CollectiveType::kBroadcast || type == CollectiveType::kReduce || type == CollectiveType::kGather ||
         type == CollectiveType::kScatter;
}

struct ConvertedNode {
  uint64_t id = 0;
  std::string name;
  ConvertedNodeType type = ConvertedNodeType::kComp;
  std::vector<uint64_t> ctrl_deps;  // parent/child structure (launching op)
  std::vector<uint64_t> data_deps;  // everything that orders execution
  uint64_t duration_micros = 0;
  std::optional<uint64_t> start_time_micros;
  std::optional<bool> is_cpu_op;
  // Communication nodes.
  std::optional<CollectiveType> comm_type;  // COMM_COLL_NODE only
  uint64_t comm_size_bytes = 0;
  std::string pg_name;
  int32_t comm_src = -1;  // COMM_SEND/RECV; a rooted COMM_COLL's root (global rank)
  int32_t comm_dst = -1;
  int32_t comm_tag = 0;
  int64_t comm_group_size = 0;  // the record's world_size (not written; process-group derivation)
  // IOInfo strings (JSON text of the host op's values / shapes / types), in
  // the graph's `texts` or in static storage.
  std::string_view input_values, input_shapes, input_types;
  std::string_view output_values, output_shapes, output_types;
};

struct ConvertedGraph {
  int64_t rank = 0;
  std::string source_schema;  // recorded in the .et GlobalMetadata
  std::vector<ConvertedNode> nodes;  // in dependency order: deps come first
  // The nodes' IOInfo texts, each distinct one stored once: most ops of a
  // trace repeat the types and shapes of others, so a graph holds a few
  // thousand texts, not six strings per node. Copies of a graph share it.
  std::shared_ptr<pytorch::TextPool> texts = std::make_shared<pytorch::TextPool>();
};

const char* converted_node_type_name(ConvertedNodeType type);
const char* collective_type_name(CollectiveType type);

}  // namespace snr::et_convert
