#include "et/convert/job_process_groups.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace snr::et_convert {
namespace {

ConvertedNode collective(uint64_t id, const std::string& pg, uint64_t bytes, int64_t world_size = 0) {
  ConvertedNode node;
  node.id = id;
  node.name = "record_param_comms";
  node.type = ConvertedNodeType::kCommColl;
  node.comm_type = CollectiveType::kAllReduce;
  node.comm_size_bytes = bytes;
  node.pg_name = pg;
  node.comm_group_size = world_size;
  return node;
}

struct Job {
  std::vector<pytorch::HostTrace> traces;
  std::vector<ConvertedGraph> graphs;
  std::vector<JobRank> ranks() {
    std::vector<JobRank> out;
    for (size_t i = 0; i < graphs.size(); ++i) out.push_back({&traces[i], &graphs[i]});
    return out;
  }
  void add(int64_t rank, std::vector<ConvertedNode> nodes, std::vector<pytorch::ProcessGroupInfo> groups = {}) {
    pytorch::HostTrace trace;
    trace.process_groups = std::move(groups);
    traces.push_back(std::move(trace));
    ConvertedGraph graph;
    graph.rank = rank;
    graph.nodes = std::move(nodes);
    graphs.push_back(std::move(graph));
  }
};

TEST(JobProcessGroups, DescribedGroupsKeepTheirNamesAndGoIntoEveryRank) {
  Job job;
  pytorch::ProcessGroupInfo world{"0", "cuda:nccl", -1, {}, 2};
  pytorch::ProcessGroupInfo pair{"1", "cuda:nccl", -1, {0, 1}, 2};
  job.add(0, {collective(5, "0", 64), collective(6, "1", 64)}, {world, pair});
  job.add(1, {collective(5, "0", 64), collective(6, "1", 64)}, {world, pair});
  auto ranks = job.ranks();
  const auto groups = unify_process_groups(ranks);
  // "0" and "1" have the same members: one group, PyTorch's default name.
  ASSERT_EQ(groups.groups.size(), 1u);
  EXPECT_EQ(groups.groups[0].ranks, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(groups.groups[0].name, "0");
  EXPECT_EQ(groups.renamed_nodes, 2u);
  for (const auto& graph : job.graphs) {
    ASSERT_EQ(graph.nodes.front().type, ConvertedNodeType::kMetadata);
    EXPECT_EQ(graph.nodes.front().name, "## process_group:init ##");
    EXPECT_EQ(graph.nodes.front().input_values, R"(['[{"pg_name":"0","ranks":[0,1]}]'])");
    EXPECT_EQ(graph.nodes.front().id, 7u);
    EXPECT_EQ(graph.nodes[2].pg_name, "0");
  }
}

TEST(JobProcessGroups, PerRankPointersMatchByCollectiveOrderAndSize) {
  // ET 1.0.1: each rank names the same group by its own pointer, no description.
  Job job;
  job.add(0, {collective(10, "94594108284448", 4096, 2), collective(11, "94594108284448", 8192, 2)});
  job.add(1, {collective(10, "94398426290464", 4096, 2), collective(11, "94398426290464", 8192, 2)});
  auto ranks = job.ranks();
  const auto groups = unify_process_groups(ranks);
  ASSERT_EQ(groups.groups.size(), 1u);
  EXPECT_EQ(groups.groups[0].name, "1");
  EXPECT_EQ(groups.groups[0].ranks, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(groups.groups[0].source, "by collective order and size");
  EXPECT_TRUE(groups.notes.empty());
  EXPECT_EQ(groups.renamed_nodes, 4u);
  EXPECT_EQ(job.graphs[1].nodes[2].pg_name, "1");
  EXPECT_EQ(job_comm_groups_json(groups), "{\n  \"1\": [0,1]\n}\n");
}

TEST(JobProcessGroups, SharedSequencesSplitByWorldSizeAndMismatchesAreReported) {
  Job job;
  // Two data-parallel pairs with identical collectives, world_size 2 in the records.
  for (int64_t r = 0; r < 4; ++r) job.add(r, {collective(3, "ptr" + std::to_string(r), 1024, 2)});
  auto ranks = job.ranks();
  auto groups = unify_process_groups(ranks);
  ASSERT_EQ(groups.groups.size(), 2u);
  EXPECT_EQ(groups.groups[0].ranks, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(groups.groups[1].ranks, (std::vector<int64_t>{2, 3}));
  ASSERT_EQ(groups.notes.size(), 1u);
  EXPECT_NE(groups.notes[0].find("assumed 2 groups of consecutive ranks"), std::string::npos);

  // Rank 1 ran a different size: nothing pairs, and the output says so.
  Job odd;
  odd.add(0, {collective(3, "a", 1024, 2)});
  odd.add(1, {collective(3, "b", 2048, 2)});
  auto odd_ranks = odd.ranks();
  groups = unify_process_groups(odd_ranks);
  EXPECT_TRUE(groups.groups.empty());
  ASSERT_EQ(groups.notes.size(), 2u);
  EXPECT_NE(groups.notes[0].find("not resolved"), std::string::npos);
  EXPECT_EQ(odd.graphs[0].nodes.size(), 1u);  // no METADATA node without groups
  EXPECT_EQ(odd.graphs[0].nodes[0].pg_name, "a");

  // One rank's trace alone whose records give no group size (ET 1.0.1):
  // the note says what would resolve it.
  Job alone;
  alone.add(0, {collective(3, "94594108284448", 1024, 0)});
  auto alone_ranks = alone.ranks();
  groups = unify_process_groups(alone_ranks);
  EXPECT_TRUE(groups.groups.empty());
  ASSERT_EQ(groups.notes.size(), 1u);
  EXPECT_EQ(groups.notes[0], "group rank 0 '94594108284448': no other rank's trace uses the same collectives: not "
                             "resolved (give every rank's trace to one snr et convert)");
}

}  // namespace
}  // namespace snr::et_convert
