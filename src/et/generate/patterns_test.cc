#include "et/generate/patterns.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "et/generate/feeder_replay.h"
#include "et/generate/workload_check.h"
#include "formats/chakra/attributes.h"

namespace snr::et {
namespace {

class EveryPattern : public testing::TestWithParam<std::string> {};

TEST_P(EveryPattern, PassesCrossRankCheck) {
  for (Rank npus : {1u, 2u, 8u}) {
    PatternOptions o;
    o.pattern = GetParam();
    o.npus = npus;
    o.layers = 3;
    o.tp_size = npus >= 2 ? 2 : 1;
    const Workload w = generate_pattern(o);
    ASSERT_EQ(w.ranks.size(), npus);
    const WorkloadCheck check = check_workload(w);
    EXPECT_TRUE(check.ok()) << GetParam() << " on " << npus << " npus: " << check.summary();
    EXPECT_GT(check.nodes, 0u);
    const ReplayResult replay = replay_with_feeders(w);
    EXPECT_TRUE(replay.completed) << GetParam() << " on " << npus << " npus: " << replay.stuck;
    EXPECT_EQ(replay.nodes_completed, check.nodes);
  }
}

INSTANTIATE_TEST_SUITE_P(Patterns, EveryPattern,
                         testing::Values("allreduce", "allgather", "reducescatter", "alltoall", "dp", "tp", "pp",
                                         "hybrid"));

size_t count_type(const Workload& w, ChakraProtoMsg::NodeType type) {
  size_t n = 0;
  for (const auto& rank : w.ranks) {
    for (const auto& node : rank) n += node.type() == type ? 1 : 0;
  }
  return n;
}

TEST(Patterns, HaveTheExpectedShape) {
  PatternOptions o;
  o.npus = 4;
  o.layers = 5;
  o.pattern = "dp";
  EXPECT_EQ(count_type(generate_pattern(o), ChakraProtoMsg::COMM_COLL_NODE), 4u * 5);
  o.pattern = "tp";
  EXPECT_EQ(count_type(generate_pattern(o), ChakraProtoMsg::COMM_COLL_NODE), 4u * 10);
  o.pattern = "pp";
  o.microbatches = 3;
  // 3 stage boundaries x 3 micro-batches x 2 directions.
  EXPECT_EQ(count_type(generate_pattern(o), ChakraProtoMsg::COMM_SEND_NODE), 18u);
  EXPECT_EQ(check_workload(generate_pattern(o)).p2p_messages, 18u);
  o.pattern = "hybrid";
  const Workload h = generate_pattern(o);
  EXPECT_EQ(h.groups.size(), 1u + 2 + 2);
  EXPECT_EQ(count_type(h, ChakraProtoMsg::COMM_COLL_NODE), 4u * 5 * 4);
}

TEST(Patterns, HybridGathersShardsAndScattersWholeBuffers) {
  // 8 ranks in tensor-parallel pairs: 4 replicas. Layer 0 holds 50% of
  // 1 MiB over 2 ranks, 262,144 B per rank: each replica contributes a
  // quarter of it to the gather, and reduce-scatters all of it.
  PatternOptions o;
  o.npus = 8;
  o.layers = 1;
  o.pattern = "hybrid";
  const Workload h = generate_pattern(o);
  uint64_t gathered = 0, scattered = 0;
  for (const auto& node : h.ranks[3]) {
    const chakra::NodeView view(node);
    const auto type = view.comm_type();
    if (!type.has_value()) continue;
    if (*type == ChakraProtoMsg::ALL_GATHER) gathered = view.comm_size_bytes().value_or(0);
    if (*type == ChakraProtoMsg::REDUCE_SCATTER) scattered = view.comm_size_bytes().value_or(0);
  }
  EXPECT_EQ(gathered, 262144u / 4);
  EXPECT_EQ(scattered, 262144u);
}

TEST(FeederReplay, DetectsDeadlocks) {
  // Rank 1 waits for a message rank 0 only sends after a collective that
  // rank 1 cannot reach: a cross-rank wait cycle.
  WorkloadBuilder w(2);
  const NodeId recv0 = w.recv(0, 1, 8, 0);
  w.collective(0, "ar", ChakraProtoMsg::ALL_REDUCE, 8, ProcessGroups::world(), {recv0});
  const NodeId recv1 = w.recv(1, 0, 8, 0);
  w.collective(1, "ar", ChakraProtoMsg::ALL_REDUCE, 8, ProcessGroups::world(), {recv1});
  w.send(0, 1, 8, 0, {1});
  w.send(1, 0, 8, 0, {1});
  const ReplayResult replay = replay_with_feeders(w.workload());
  EXPECT_FALSE(replay.completed);
  EXPECT_NE(replay.stuck.find("rank 0"), std::string::npos) << replay.stuck;
}

TEST(Patterns, RejectsBadOptions) {
  PatternOptions o;
  o.pattern = "nope";
  EXPECT_THROW(generate_pattern(o), Error);
  o.pattern = "hybrid";
  o.npus = 6;
  o.tp_size = 4;
  EXPECT_THROW(generate_pattern(o), Error);
  o.pattern = "dp";
  o.layers = 0;
  EXPECT_THROW(generate_pattern(o), Error);
}

}  // namespace
}  // namespace snr::et
