#include "dsim/system/binomial_tree.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/error.h"
#include "dsim/simulator.h"
#include "dsim/workload/test_graphs.h"

namespace snr::dsim {
namespace {

TEST(BinomialTree, ShapeIsMpichsBinomialTree) {
  // 6 ranks: 0 -> {4, 2, 1}, 2 -> {3}, 4 -> {5}.
  EXPECT_EQ(BinomialTreePhase::children_of(0, 6), (std::vector<uint32_t>{4, 2, 1}));
  EXPECT_EQ(BinomialTreePhase::children_of(2, 6), (std::vector<uint32_t>{3}));
  EXPECT_EQ(BinomialTreePhase::children_of(4, 6), (std::vector<uint32_t>{5}));
  EXPECT_TRUE(BinomialTreePhase::children_of(5, 6).empty());
  EXPECT_EQ(BinomialTreePhase::parent_of(6), 4);
  EXPECT_EQ(BinomialTreePhase::parent_of(5), 4);
  EXPECT_EQ(BinomialTreePhase::parent_of(0), -1);
  EXPECT_EQ(BinomialTreePhase::subtree_size(0, 6), 6u);
  EXPECT_EQ(BinomialTreePhase::subtree_size(4, 6), 2u);
  EXPECT_EQ(BinomialTreePhase::subtree_size(2, 6), 2u);
  EXPECT_EQ(BinomialTreePhase::subtree_size(1, 6), 1u);
}

using test_graphs::one_collective;

// Endpoint delay 10 ns, reductions at 1000 B/ns, one chunk.
SystemConfig tree_system() {
  return parse_system_config(
      R"({"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
          "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"],
          "collective-optimization": "baseline", "local-mem-bw": 1000})",
      "test");
}

NetworkConfig four_npus_fully_connected() {
  return parse_network_config("topology: [FullyConnected]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [100]\n",
                              "t");
}

// 4 NPUs fully connected: every message is one hop of (int)(100 ns + bytes /
// 53.687 B/ns) (50 GB/s), on its own link. Endpoint delay 10 ns; reduction
// 3 x floor(bytes / 1000 B/ns); one chunk.
std::vector<TimeNs> finish_times(CollectiveKind kind, uint64_t bytes, int64_t root = -1,
                                 const CommGroups& groups = {}, int32_t group = -1) {
  const SystemConfig system = tree_system();
  const NetworkConfig network = four_npus_fully_connected();
  std::vector<RankGraph> graphs(4, one_collective(kind, bytes, root));
  for (auto& g : graphs) g.nodes[0].group = group;
  std::vector<TimeNs> out;
  for (const auto backend : {"analytical-congestion-aware", "analytical-congestion-unaware"}) {
    const auto result = simulate(system, network, groups, graphs, backend, false);
    std::vector<TimeNs> times;
    for (const auto& npu : result.npus) times.push_back(npu.finish_ns);
    if (!out.empty()) {
      EXPECT_EQ(times, out) << backend;
    }
    out = times;
  }
  return out;
}

TEST(BinomialTree, BroadcastHandComputed) {
  // 4096 B: one hop = (int)(100 + 76.29) = 176. Root 0 ready at 10, sends to
  // 2 and 1 (arrive 186); 1 and 2 forward after the endpoint (196); 2 -> 3
  // arrives 372, +10 = 382.
  EXPECT_EQ(finish_times(CollectiveKind::kBroadcast, 4096), (std::vector<TimeNs>{10, 196, 196, 382}));
  // Root 2 (comm_src): relative ranks 2->0, 3->1, 0->2, 1->3.
  EXPECT_EQ(finish_times(CollectiveKind::kBroadcast, 4096, 2), (std::vector<TimeNs>{196, 382, 10, 196}));
}

TEST(BinomialTree, ReduceHandComputed) {
  // 4096 B: leaves 1 and 3 send at 10 (arrive 186); a received message takes
  // 10 (endpoint) + 12 (reduction) -> 2 sends at 208 (arrives 384), 0 done at
  // 384 + 22 = 406.
  EXPECT_EQ(finish_times(CollectiveKind::kReduce, 4096), (std::vector<TimeNs>{406, 10, 208, 10}));
}

TEST(BinomialTree, GatherAndScatterMoveSubtreesHandComputed) {
  // Blocks of 1024 B: one block (int)(100 + 19.07) = 119, two (int)(100 + 38.15) = 138.
  // Gather: 1, 3 send one block at 10 (arrive 129); 2 sends two at 139 (arrive 277); 0 done 287.
  EXPECT_EQ(finish_times(CollectiveKind::kGather, 1024), (std::vector<TimeNs>{287, 10, 139, 10}));
  // Scatter: 0 sends two blocks to 2 (arrive 148) and one to 1 (arrive 129) at 10;
  // 1 done 139; 2 forwards one block at 158 (arrive 277); 3 done 287.
  EXPECT_EQ(finish_times(CollectiveKind::kScatter, 1024), (std::vector<TimeNs>{10, 139, 158, 287}));
}

TEST(BinomialTree, RunsOnACommunicatorGroup) {
  CommGroups groups;
  groups.groups["1"] = {3, 1};  // ring order: root (position 0) is NPU 3
  const SystemConfig system = tree_system();
  const NetworkConfig network = four_npus_fully_connected();
  std::vector<RankGraph> graphs(4);
  graphs[1] = one_collective(CollectiveKind::kBroadcast, 4096);
  graphs[3] = one_collective(CollectiveKind::kBroadcast, 4096);
  graphs[1].nodes[0].group = 0;
  graphs[3].nodes[0].group = 0;
  const auto result = simulate(system, network, groups, graphs, "analytical-congestion-aware", false);
  EXPECT_EQ(result.npus[3].finish_ns, 10u);
  EXPECT_EQ(result.npus[1].finish_ns, 196u);
  EXPECT_EQ(result.bytes_sent_per_npu[3], 4096u);
  // A root outside the group is an error.
  graphs[1].nodes[0].peer = 0;
  graphs[3].nodes[0].peer = 0;
  EXPECT_THROW((void)simulate(system, network, groups, graphs, "analytical-congestion-aware", false), Error);
}

}  // namespace
}  // namespace snr::dsim
