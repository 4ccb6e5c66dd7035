#include "dsim/workload/workload_options.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "common/error.h"
#include "dsim/workload/workload.h"

namespace snr::dsim {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

RankGraph compute_and_send(uint64_t duration_ns, uint64_t bytes) {
  RankGraph graph;
  WorkNode compute;
  compute.chakra_id = 1;
  compute.action = NodeAction::kCompute;
  compute.node_class = NodeClass::kGpuCompute;
  compute.duration_ns = duration_ns;
  WorkNode send;
  send.chakra_id = 2;
  send.action = NodeAction::kSend;
  send.node_class = NodeClass::kGpuComm;
  send.comm_bytes = bytes;
  graph.nodes = {compute, send};
  return graph;
}

TEST(WorkloadScales, MultiplyComputeDurationsAndCommunicationSizes) {
  std::vector<RankGraph> graphs(2, compute_and_send(1000, 4096));
  apply_workload_scales(graphs, WorkloadScales{2.5, 0.5});
  for (const auto& graph : graphs) {
    EXPECT_EQ(graph.nodes[0].duration_ns, 2500u);
    EXPECT_EQ(graph.nodes[1].comm_bytes, 2048u);
    EXPECT_EQ(graph.nodes[0].comm_bytes, 0u);
  }
  std::vector<RankGraph> unchanged(1, compute_and_send(7, 3));
  apply_workload_scales(unchanged, WorkloadScales{});
  EXPECT_EQ(unchanged[0].nodes[0].duration_ns, 7u);
  EXPECT_EQ(unchanged[0].nodes[1].comm_bytes, 3u);
}

TEST(WorkloadScales, OutOfRangeScalesAndScaledValuesAreErrors) {
  std::vector<RankGraph> graphs(1, compute_and_send(1000, 4096));
  EXPECT_NE(error_of([&] { apply_workload_scales(graphs, WorkloadScales{-1, 1}); }).find("--compute-scale"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_workload_scales(graphs, WorkloadScales{1, 0}); }).find("--comm-scale"),
            std::string::npos);
  EXPECT_NE(error_of([&] { apply_workload_scales(graphs, WorkloadScales{std::nan(""), 1}); }).find("out of range"),
            std::string::npos);
  std::vector<RankGraph> long_node(1, compute_and_send(kMaxNodeNs / 2, 4096));
  EXPECT_NE(error_of([&] { apply_workload_scales(long_node, WorkloadScales{1e6, 1}); }).find("NPU 0 node 1"),
            std::string::npos);
  std::vector<RankGraph> tiny(1, compute_and_send(1, 1));
  EXPECT_NE(error_of([&] { apply_workload_scales(tiny, WorkloadScales{1, 0.1}); }).find("less than one byte"),
            std::string::npos);
}

TEST(CheckedConversions, RefuseWhatWouldWrap) {
  EXPECT_EQ(checked_node_ns(1.9, "x"), 1u);
  EXPECT_EQ(checked_node_ns(static_cast<double>(kMaxNodeNs), "x"), kMaxNodeNs);
  EXPECT_THROW((void)checked_node_ns(1e300, "x"), Error);
  EXPECT_THROW((void)checked_node_ns(-1, "x"), Error);
  EXPECT_THROW((void)checked_node_ns(std::nan(""), "x"), Error);
  EXPECT_THROW((void)checked_message_bytes(2.0 * static_cast<double>(kMaxMessageBytes), "x"), Error);
}

TEST(DanglingDependencies, ParsesTheTwoPolicies) {
  EXPECT_EQ(parse_dangling_dependencies("error"), DanglingDependencies::kError);
  EXPECT_EQ(parse_dangling_dependencies("ignore"), DanglingDependencies::kIgnore);
  EXPECT_THROW((void)parse_dangling_dependencies("drop"), Error);
}

class TraceSetSize : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("snr_trace_set_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void touch(int rank) { std::ofstream(dir_ / ("t." + std::to_string(rank) + ".et")) << "x"; }
  fs::path dir_;
};

TEST_F(TraceSetSize, MoreOrFewerRanksThanNpusAreErrors) {
  for (int rank = 0; rank < 4; ++rank) touch(rank);
  EXPECT_NO_THROW(check_trace_set_size(dir_ / "t", 4));
  const std::string fewer_npus = error_of([&] { check_trace_set_size(dir_ / "t", 2); });
  EXPECT_NE(fewer_npus.find("4 rank files, but the network configuration has 2 NPUs"), std::string::npos)
      << fewer_npus;
  EXPECT_NE(fewer_npus.find("t.2.et has no NPU"), std::string::npos) << fewer_npus;
  const std::string more_npus = error_of([&] { check_trace_set_size(dir_ / "t", 8); });
  EXPECT_NE(more_npus.find("has 8 NPUs"), std::string::npos) << more_npus;
  EXPECT_NE(more_npus.find("missing: "), std::string::npos) << more_npus;
  EXPECT_NE(more_npus.find("t.4.et"), std::string::npos) << more_npus;
  touch(6);  // a gap: rank 6 without 4 and 5
  EXPECT_NE(error_of([&] { check_trace_set_size(dir_ / "t", 4); }).find("t.6.et has no NPU"), std::string::npos);
}

}  // namespace
}  // namespace snr::dsim
