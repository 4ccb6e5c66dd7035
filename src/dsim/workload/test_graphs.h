// Test helpers shared by dsim's unit tests: a rank graph of one collective,
// a compute node.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "dsim/workload/workload.h"

namespace snr::dsim::test_graphs {

// One GPU communication node running `kind` over `bytes`; `root` is the
// rooted collectives' root (-1: the group's first member).
inline RankGraph one_collective(CollectiveKind kind, uint64_t bytes, int64_t root = -1) {
  RankGraph graph;
  WorkNode node;
  node.name = "collective";
  node.node_class = NodeClass::kGpuComm;
  node.action = NodeAction::kCollective;
  node.collective = kind;
  node.comm_bytes = bytes;
  node.peer = root;
  graph.nodes.push_back(node);
  return graph;
}

// A compute node of `duration_ns` on the GPU or, with `node_class` kCpu, the host.
inline WorkNode compute_node(std::string name, uint64_t duration_ns, NodeClass node_class = NodeClass::kGpuCompute) {
  WorkNode node;
  node.name = std::move(name);
  node.node_class = node_class;
  node.action = NodeAction::kCompute;
  node.duration_ns = duration_ns;
  return node;
}

}  // namespace snr::dsim::test_graphs
