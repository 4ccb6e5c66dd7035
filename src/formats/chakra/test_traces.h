// Small deterministic traces for tests, fuzz seeds and benchmarks of the
// Chakra modules. Header-only so test binaries need no extra library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/chakra/attributes.h"
#include "formats/chakra/et_def.pb.h"

namespace snr::chakra::testing {

inline ChakraProtoMsg::GlobalMetadata sample_metadata() {
  ChakraProtoMsg::GlobalMetadata metadata;
  metadata.set_version("0.0.4");
  auto* attr = metadata.add_attr();
  attr->set_name("schema");
  attr->set_string_val("1.0.2-chakra.0.0.4");
  return metadata;
}

inline ChakraProtoMsg::Node make_node(uint64_t id, const std::string& name, ChakraProtoMsg::NodeType type,
                                      std::vector<uint64_t> data_deps = {}, std::vector<uint64_t> ctrl_deps = {}) {
  ChakraProtoMsg::Node node;
  node.set_id(id);
  node.set_name(name);
  node.set_type(type);
  for (uint64_t d : data_deps) node.add_data_deps(d);
  for (uint64_t d : ctrl_deps) node.add_ctrl_deps(d);
  return node;
}

// A 6-node, 2-rank-style trace: compute, an all-reduce, a send, a recv, a
// memory load and a compute joining them; covers every conventional
// attribute, a zero-valued oneof member, and both dependency kinds.
inline std::vector<ChakraProtoMsg::Node> sample_nodes() {
  std::vector<ChakraProtoMsg::Node> nodes;
  auto gemm = make_node(0, "gemm_fwd", ChakraProtoMsg::COMP_NODE);
  gemm.set_duration_micros(120);
  set_is_cpu_op(gemm, false);
  set_num_ops(gemm, 2LL * 1024 * 1024 * 1024);
  set_tensor_size(gemm, 4u << 20);
  gemm.mutable_inputs()->set_shapes("[[1024,1024],[1024,1024]]");
  gemm.mutable_inputs()->set_types("[\"Tensor(float)\",\"Tensor(float)\"]");
  nodes.push_back(gemm);

  auto all_reduce = make_node(1, "all_reduce_grad", ChakraProtoMsg::COMM_COLL_NODE, {0});
  set_is_cpu_op(all_reduce, false);
  set_comm_type(all_reduce, ChakraProtoMsg::ALL_REDUCE);  // 0: still written, as int64_val
  set_comm_size(all_reduce, 1 << 20);
  set_pg_name(all_reduce, "0");
  set_involved_dim(all_reduce, {true, false});
  set_comm_priority(all_reduce, 0);
  nodes.push_back(all_reduce);

  auto send = make_node(2, "send_to_1", ChakraProtoMsg::COMM_SEND_NODE, {}, {0});
  set_comm_size(send, 65536);
  set_comm_src(send, 0);
  set_comm_dst(send, 1);
  set_comm_tag(send, 7);
  nodes.push_back(send);

  auto recv = make_node(3, "recv_from_1", ChakraProtoMsg::COMM_RECV_NODE, {}, {0});
  set_comm_size(recv, 65536);
  set_comm_src(recv, 1);
  set_comm_dst(recv, 0);
  set_comm_tag(recv, 7);
  nodes.push_back(recv);

  auto load = make_node(4, "load_weights", ChakraProtoMsg::MEM_LOAD_NODE);
  set_tensor_size(load, 1 << 16);
  auto* scale = load.add_attr();
  scale->set_name("scale");
  scale->set_double_val(0.1);
  nodes.push_back(load);

  auto join = make_node(5, "optimizer_step", ChakraProtoMsg::COMP_NODE, {1, 3, 4}, {2});
  join.set_start_time_micros(1000);
  join.set_duration_micros(35);
  set_is_cpu_op(join, true);
  nodes.push_back(join);
  return nodes;
}

// A linear-ish synthetic trace of `count` compute nodes for benchmarks:
// node i depends on i-1 (data) and i-8 (control), with realistic names and
// a few attributes.
inline ChakraProtoMsg::Node synthetic_node(uint64_t i) {
  ChakraProtoMsg::Node node;
  node.set_id(i);
  node.set_name("aten::linear_" + std::to_string(i % 97));
  node.set_type(i % 16 == 15 ? ChakraProtoMsg::COMM_COLL_NODE : ChakraProtoMsg::COMP_NODE);
  if (i > 0) node.add_data_deps(i - 1);
  if (i >= 8) node.add_ctrl_deps(i - 8);
  node.set_duration_micros(10 + i % 50);
  node.mutable_inputs()->set_shapes("[[64,1024],[1024,1024]]");
  set_is_cpu_op(node, false);
  if (node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
    set_comm_type(node, ChakraProtoMsg::ALL_REDUCE);
    set_comm_size(node, 1 << 20);
  } else {
    set_num_ops(node, 134217728);
    set_tensor_size(node, 262144);
  }
  return node;
}

}  // namespace snr::chakra::testing
