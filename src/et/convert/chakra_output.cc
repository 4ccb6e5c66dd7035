#include "et/convert/chakra_output.h"

#include <memory>
#include <string_view>

#include "formats/chakra/attributes.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/rank_files.h"

namespace snr::et_convert {

namespace {

ChakraProtoMsg::NodeType proto_type(ConvertedNodeType type) {
  switch (type) {
    case ConvertedNodeType::kComp: return ChakraProtoMsg::COMP_NODE;
    case ConvertedNodeType::kCommColl: return ChakraProtoMsg::COMM_COLL_NODE;
    case ConvertedNodeType::kCommSend: return ChakraProtoMsg::COMM_SEND_NODE;
    case ConvertedNodeType::kCommRecv: return ChakraProtoMsg::COMM_RECV_NODE;
    case ConvertedNodeType::kMetadata: return ChakraProtoMsg::METADATA_NODE;
  }
  return ChakraProtoMsg::INVALID_NODE;
}

}  // namespace

const char* converted_node_type_name(ConvertedNodeType type) {
  switch (type) {
    case ConvertedNodeType::kComp: return "COMP_NODE";
    case ConvertedNodeType::kCommColl: return "COMM_COLL_NODE";
    case ConvertedNodeType::kCommSend: return "COMM_SEND_NODE";
    case ConvertedNodeType::kCommRecv: return "COMM_RECV_NODE";
    case ConvertedNodeType::kMetadata: return "METADATA_NODE";
  }
  return "INVALID_NODE";
}

const char* collective_type_name(CollectiveType type) {
  switch (type) {
    case CollectiveType::kAllReduce: return "ALL_REDUCE";
    case CollectiveType::kReduce: return "REDUCE";
    case CollectiveType::kAllGather: return "ALL_GATHER";
    case CollectiveType::kGather: return "GATHER";
    case CollectiveType::kScatter: return "SCATTER";
    case CollectiveType::kBroadcast: return "BROADCAST";
    case CollectiveType::kAllToAll: return "ALL_TO_ALL";
    case CollectiveType::kReduceScatter: return "REDUCE_SCATTER";
    case CollectiveType::kReduceScatterBlock: return "REDUCE_SCATTER_BLOCK";
    case CollectiveType::kBarrier: return "BARRIER";
  }
  return "UNKNOWN";
}

ChakraProtoMsg::Node to_chakra_node(const ConvertedNode& node) {
  ChakraProtoMsg::Node out;
  fill_chakra_node(node, out);
  return out;
}

namespace {

// Sets `field` of `out` (inputs or outputs) to the three texts, reusing
// `kept`, the message `out` held before it was cleared, when there is one.
template <auto kSetAllocated>
void set_io(ChakraProtoMsg::Node& out, std::unique_ptr<ChakraProtoMsg::IOInfo>& kept, std::string_view values,
            std::string_view shapes, std::string_view types) {
  if (!kept) kept = std::make_unique<ChakraProtoMsg::IOInfo>();
  kept->set_values(values.data(), values.size());
  kept->set_shapes(shapes.data(), shapes.size());
  kept->set_types(types.data(), types.size());
  (out.*kSetAllocated)(kept.release());
}

}  // namespace

void fill_chakra_node(const ConvertedNode& node, ChakraProtoMsg::Node& out) {
  // Node::Clear() deletes the inputs and outputs messages (proto3 singular
  // fields) and their strings; taken out first and given back, they keep
  // their storage for the next node when `out` is refilled.
  std::unique_ptr<ChakraProtoMsg::IOInfo> inputs(out.has_inputs() ? out.release_inputs() : nullptr);
  std::unique_ptr<ChakraProtoMsg::IOInfo> outputs(out.has_outputs() ? out.release_outputs() : nullptr);
  out.Clear();
  out.set_id(node.id);
  out.set_name(node.name);
  out.set_type(proto_type(node.type));
  for (uint64_t d : node.ctrl_deps) out.add_ctrl_deps(d);
  for (uint64_t d : node.data_deps) out.add_data_deps(d);
  if (node.start_time_micros) out.set_start_time_micros(*node.start_time_micros);
  out.set_duration_micros(node.duration_micros);
  if (!node.input_types.empty()) {
    set_io<&ChakraProtoMsg::Node::set_allocated_inputs>(out, inputs, node.input_values, node.input_shapes,
                                                         node.input_types);
  }
  if (!node.output_types.empty()) {
    set_io<&ChakraProtoMsg::Node::set_allocated_outputs>(out, outputs, node.output_values, node.output_shapes,
                                                          node.output_types);
  }
  if (node.is_cpu_op) chakra::set_is_cpu_op(out, *node.is_cpu_op);
  switch (node.type) {
    case ConvertedNodeType::kComp:
    case ConvertedNodeType::kMetadata:
      break;
    case ConvertedNodeType::kCommColl:
      chakra::set_is_cpu_op(out, false);
      chakra::set_comm_type(out, static_cast<ChakraProtoMsg::CollectiveCommType>(
                                     static_cast<int>(node.comm_type.value_or(CollectiveType::kAllReduce))));
      chakra::set_comm_size(out, static_cast<int64_t>(node.comm_size_bytes));
      if (!node.pg_name.empty()) chakra::set_pg_name(out, node.pg_name);
      if (node.comm_src >= 0) chakra::set_comm_src(out, node.comm_src);  // a rooted collective's root
      break;
    case ConvertedNodeType::kCommSend:
    case ConvertedNodeType::kCommRecv:
      chakra::set_is_cpu_op(out, false);
      chakra::set_comm_size(out, static_cast<int64_t>(node.comm_size_bytes));
      chakra::set_comm_src(out, node.comm_src);
      chakra::set_comm_dst(out, node.comm_dst);
      chakra::set_comm_tag(out, node.comm_tag);
      if (!node.pg_name.empty()) chakra::set_pg_name(out, node.pg_name);
      break;
  }
}

std::filesystem::path write_chakra_rank(const std::filesystem::path& prefix,
                                        const ConvertedGraph& graph, const std::string& converter) {
  ChakraProtoMsg::GlobalMetadata metadata;
  metadata.set_version("0.0.4");
  auto* attr = metadata.add_attr();
  attr->set_name("converter");
  attr->set_string_val(converter);
  if (!graph.source_schema.empty()) {
    auto* schema = metadata.add_attr();
    schema->set_name("source_schema");
    schema->set_string_val(graph.source_schema);
  }
  const auto path = chakra::rank_trace_path(prefix, static_cast<uint64_t>(graph.rank));
  chakra::EtWriter writer(path, metadata);
  // One message refilled per node: Clear() keeps its strings', lists' and
  // attributes' storage, so the nodes after the first allocate little.
  ChakraProtoMsg::Node out;
  for (const auto& node : graph.nodes) {
    fill_chakra_node(node, out);
    writer.write(out);
  }
  writer.commit();
  return path;
}

}  // namespace snr::et_convert
