// Test helper shared by dsim's unit tests: a rank graph of one collective.
#pragma once

#include <cstdint>

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

}  // namespace snr::dsim::test_graphs
