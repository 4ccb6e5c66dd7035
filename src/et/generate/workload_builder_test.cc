#include "et/generate/workload_builder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>

#include "common/error.h"
#include "common/file_io.h"
#include "common/scratch_dir.h"
#include "et/generate/workload_check.h"
#include "formats/chakra/attributes.h"

namespace snr::et {
namespace {

std::filesystem::path scratch(const std::string& name) {
  auto dir = snr::testing::scratch_path(name);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(WorkloadBuilder, BuildsNodesWithChakraAttributes) {
  WorkloadBuilder w(2);
  const GroupId pair = w.add_group({0, 1});
  const NodeId fwd = w.compute(0, "fwd", {.num_ops = 64, .tensor_size_bytes = 128, .duration_micros = 7});
  const NodeId ar = w.collective(0, "ar", ChakraProtoMsg::ALL_REDUCE, 4096, pair, {fwd});
  const NodeId ar2 = w.collective(0, "ar2", ChakraProtoMsg::ALL_GATHER, 8192, pair);
  const auto& nodes = w.workload().ranks[0];
  ASSERT_EQ(nodes.size(), 3u);
  chakra::NodeView compute(nodes[fwd]);
  EXPECT_EQ(nodes[fwd].type(), ChakraProtoMsg::COMP_NODE);
  EXPECT_EQ(compute.num_ops(), 64u);
  EXPECT_EQ(compute.tensor_size_bytes(), 128u);
  EXPECT_EQ(nodes[fwd].duration_micros(), 7u);
  chakra::NodeView coll(nodes[ar]);
  EXPECT_EQ(coll.comm_type(), ChakraProtoMsg::ALL_REDUCE);
  EXPECT_EQ(coll.comm_size_bytes(), 4096u);
  EXPECT_EQ(coll.pg_name(), "1");
  ASSERT_EQ(nodes[ar].data_deps_size(), 1);
  EXPECT_EQ(nodes[ar].data_deps(0), fwd);
  // Collectives on one group are chained in program order.
  ASSERT_EQ(nodes[ar2].ctrl_deps_size(), 1);
  EXPECT_EQ(nodes[ar2].ctrl_deps(0), ar);
}

TEST(WorkloadBuilder, RejectsInvalidCalls) {
  WorkloadBuilder w(2);
  EXPECT_THROW(w.compute(2, "x", {}), Error);
  EXPECT_THROW(w.compute(0, "x", {}, {0}), Error);  // dependency on itself / a future node
  EXPECT_THROW(w.add_group({0, 0}), Error);
  EXPECT_THROW(w.add_group({5}), Error);
  const GroupId one = w.add_group({1});
  EXPECT_THROW(w.collective(0, "c", ChakraProtoMsg::ALL_REDUCE, 1, one), Error);
  EXPECT_THROW(w.send(0, 0, 1, 0), Error);
  w.compute(0, "a", {});
  EXPECT_THROW(w.depend(0, 0, 0), Error);
}

TEST(WorkloadBuilder, WritesAndReadsBackDeterministically) {
  WorkloadBuilder w(3);
  const GroupId g = w.add_group({0, 2});
  for (Rank r : {0u, 2u}) w.collective(r, "ar", ChakraProtoMsg::ALL_REDUCE, 100, g);
  w.send(0, 1, 10, 3);
  w.recv(1, 0, 10, 3);
  const auto dir = scratch("roundtrip");
  w.write(dir / "a");
  w.write(dir / "b");
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(read_file(dir / fmt::format("a.{}.et", r)), read_file(dir / fmt::format("b.{}.et", r)));
  }
  EXPECT_EQ(read_file(dir / "a.comm_groups.json"), "{\n  \"1\": [0, 2]\n}\n");
  const Workload back = read_workload(dir / "a");
  ASSERT_EQ(back.ranks.size(), 3u);
  EXPECT_EQ(back.groups.members(GroupId{1}), (std::vector<Rank>{0, 2}));
  const WorkloadCheck check = check_workload(back);
  EXPECT_TRUE(check.ok()) << check.summary();
  EXPECT_EQ(check.collectives, 2u);
  EXPECT_EQ(check.p2p_messages, 1u);
}

TEST(WorkloadBuilder, RewritingAPrefixLeavesExactlyTheNewWorkload) {
  const auto dir = scratch("rewrite");
  WorkloadBuilder four(4);
  four.add_group({0, 1});
  four.write(dir / "w");
  ASSERT_TRUE(std::filesystem::exists(dir / "w.3.et"));
  ASSERT_TRUE(std::filesystem::exists(dir / "w.comm_groups.json"));
  WorkloadBuilder two(2);
  two.write(dir / "w");
  EXPECT_TRUE(std::filesystem::exists(dir / "w.1.et"));
  EXPECT_FALSE(std::filesystem::exists(dir / "w.2.et"));
  EXPECT_FALSE(std::filesystem::exists(dir / "w.3.et"));
  EXPECT_FALSE(std::filesystem::exists(dir / "w.comm_groups.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / ".w.staging"));
  EXPECT_EQ(read_workload(dir / "w").ranks.size(), 2u);
}

TEST(WorkloadCheck, FindsMismatchedCollectivesAndUnmatchedMessages) {
  WorkloadBuilder w(3);
  w.collective(0, "ar", ChakraProtoMsg::ALL_REDUCE, 100, ProcessGroups::world());
  w.collective(1, "ar", ChakraProtoMsg::ALL_REDUCE, 200, ProcessGroups::world());
  w.collective(2, "ag", ChakraProtoMsg::ALL_REDUCE, 100, ProcessGroups::world());
  w.collective(2, "extra", ChakraProtoMsg::ALL_GATHER, 100, ProcessGroups::world());
  w.send(0, 1, 10, 7);
  const WorkloadCheck check = check_workload(w.workload());
  EXPECT_FALSE(check.ok());
  const std::string text = check.summary();
  EXPECT_NE(text.find("collective #0 differs: rank 1 node 0 is ALL_REDUCE of 200 bytes"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 2 issues 2 collectives but rank 0 issues 1 (would deadlock)"), std::string::npos) << text;
  EXPECT_NE(text.find("1 sends 0 -> 1 tag 7 have no matching receive"), std::string::npos) << text;
}

TEST(WorkloadCheck, FindsCyclesAndDanglingDependencies) {
  Workload w;
  w.groups = ProcessGroups(1);
  w.ranks.resize(1);
  auto& a = w.ranks[0].emplace_back();
  a.set_id(0);
  a.add_data_deps(1);
  auto& b = w.ranks[0].emplace_back();
  b.set_id(1);
  b.add_ctrl_deps(0);
  b.add_data_deps(9);
  const std::string text = check_workload(w).summary();
  EXPECT_NE(text.find("rank 0 node 1: depends on node 9 which is not in the trace"), std::string::npos) << text;
  EXPECT_NE(text.find("2 nodes are on or behind a dependency cycle"), std::string::npos) << text;
}

TEST(ProcessGroups, RejectsBadJson) {
  EXPECT_THROW(ProcessGroups::from_json("[", 4, "g.json"), Error);
  EXPECT_THROW(ProcessGroups::from_json("{\"2\": [0]}", 4, "g.json"), Error);
  EXPECT_THROW(ProcessGroups::from_json("{\"1\": [7]}", 4, "g.json"), Error);
  EXPECT_THROW(ProcessGroups::from_json("{\"1\": [\"a\"]}", 4, "g.json"), Error);
  EXPECT_EQ(ProcessGroups::from_json("{\"1\": [3, 1]}", 4, "g.json").members(GroupId{1}), (std::vector<Rank>{3, 1}));
}

}  // namespace
}  // namespace snr::et
