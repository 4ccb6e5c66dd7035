#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"
#include "formats/chakra/attributes.h"
#include "pathfind/emit/sim_config.h"
#include "pathfind/emit/trace.h"

namespace snr::pathfind {
namespace {

PredictInputs inputs(Workload w, std::string_view strategy) {
  PredictInputs in;
  in.device = device_preset("a100-80gb");
  in.workload = std::move(w);
  in.strategy = parse_strategy(strategy);
  return in;
}

Workload gemm() {
  Workload w;
  w.name = "gemm";
  w.kind = WorkloadKind::kGemm;
  w.gemm = {8192, 8192, 8192};
  w.dtype = DType::kFp16;
  return w;
}

Workload small_training() {
  Workload w;
  w.name = "small";
  w.model = {"small", 2048, 8192, 1024, 16, 128, 8, 0};
  w.batch = 8;
  w.microbatch = 1;
  w.dtype = DType::kFp16;
  return w;
}

uint64_t micros(const ChakraProtoMsg::Node& node) { return node.duration_micros(); }

TEST(PathfindEmit, ColumnRowGemmIsOneComputeAndOneAllReducePerRank) {
  PredictInputs in = inputs(gemm(), "CR-8-d1-p1");
  Prediction r = predict(in);
  et::Workload w = emit_traces(in, r);
  ASSERT_EQ(w.ranks.size(), 8u);
  for (const auto& nodes : w.ranks) {
    ASSERT_EQ(nodes.size(), 2u);
    EXPECT_EQ(nodes[0].type(), ChakraProtoMsg::COMP_NODE);
    EXPECT_EQ(micros(nodes[0]), static_cast<uint64_t>(std::llround(r.gemm->kernel.time_s * 1e6)));
    EXPECT_EQ(nodes[1].type(), ChakraProtoMsg::COMM_COLL_NODE);
    EXPECT_EQ(chakra::NodeView(nodes[1]).comm_size_bytes().value_or(0), 8192ull * 8192 * 2);
    ASSERT_EQ(nodes[1].data_deps_size(), 1);
  }
  EXPECT_EQ(w.groups.members(w.groups.find("1").value()).size(), 8u);
}

// tp=2, pp=2, dp=2 on one 8-GPU board, 4 microbatches per replica.
TEST(PathfindEmit, TrainingFollowsOneForwardOneBackward) {
  PredictInputs in = inputs(small_training(), "tp=2,pp=2,dp=2");
  Prediction r = predict(in);
  ASSERT_TRUE(r.training.has_value());
  ASSERT_EQ(r.training->microbatches, 4u);
  et::Workload w = emit_traces(in, r);
  ASSERT_EQ(w.ranks.size(), 8u);
  for (size_t rank = 0; rank < w.ranks.size(); ++rank) {
    uint64_t sends = 0, recvs = 0, comp_us = 0, colls = 0;
    for (const auto& node : w.ranks[rank]) {
      if (node.type() == ChakraProtoMsg::COMM_SEND_NODE) ++sends;
      if (node.type() == ChakraProtoMsg::COMM_RECV_NODE) ++recvs;
      if (node.type() == ChakraProtoMsg::COMM_COLL_NODE) ++colls;
      if (node.type() == ChakraProtoMsg::COMP_NODE) comp_us += micros(node);
    }
    // Each microbatch: a forward transfer one way and a backward transfer back.
    EXPECT_EQ(sends, 4u) << rank;
    EXPECT_EQ(recvs, 4u) << rank;
    // 4 TP boundary kernels per block, each with one collective forward or
    // backward (no sequence parallelism), 4 blocks per stage, 4
    // microbatches, plus the DP all-reduce.
    ASSERT_EQ(r.training->blocks_per_device, 4u);
    EXPECT_EQ(colls, 4u * 4 * 4 + 1) << rank;
    // Compute adds up to the predicted per-rank compute within rounding.
    double expected_s = r.training->optimizer_s;
    for (const KernelTime& k : r.training->kernels) {
      if (k.kind != KernelKind::kComm) expected_s += 4.0 * 4.0 * (k.forward_s + k.backward_s + k.recompute_s);
    }
    EXPECT_NEAR(static_cast<double>(comp_us), expected_s * 1e6, 0.5) << rank;
  }
  // The bound emit refuses on holds every rank's nodes.
  double nodes = 0;
  for (const auto& rank : w.ranks) nodes += static_cast<double>(rank.size());
  EXPECT_LE(nodes, max_trace_nodes(r));
  EXPECT_GE(nodes * 2, max_trace_nodes(r) / 2);
}

// 1,024 replicas of the 64-GPU GPT-3 example: about 0.83 billion nodes
// (12,626 per rank, as in the example). emit used to start building them
// (18 GB after 30 s) and now refuses before the first.
TEST(PathfindEmit, TracesTooLargeToBuildAreRefusedFirst) {
  Workload w;
  w.name = "gpt3-175B";
  w.model = {"gpt3-175B", 12288, 49152, 2048, 96, 128, 96, 51200};
  w.batch = 65536;
  w.microbatch = 1;
  w.dtype = DType::kFp16;
  PredictInputs in = inputs(w, "tp=8,pp=8,dp=1024,sp,recompute=selective");
  const Prediction r = predict(in);
  EXPECT_GT(max_trace_nodes(r), 1e9);
  std::string error;
  try {
    (void)emit_traces(in, r);
  } catch (const Error& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("ranks), more than the 8388608 emit builds in memory"), std::string::npos) << error;
}

TEST(PathfindEmit, SimulatorConfigFollowsTheSystem) {
  PredictInputs in = inputs(gemm(), "CR-2-d8-p1");  // 16 devices: 2 boards of 8
  Prediction r = predict(in);
  hw::NetworkConfigFiles files = emit_sim_config(in.device, r);
  EXPECT_NE(files.network_yml.find("topology: [ Switch, Switch ]"), std::string::npos) << files.network_yml;
  EXPECT_NE(files.network_yml.find("npus_count: [ 8, 2 ]"), std::string::npos) << files.network_yml;
  // NVLink 300e9 B/s x 0.65 and IB 25e9 x 0.9, in GB/s of 2^30 B. Latency: the
  // presets' 10 us and 20 us per operation over an all-reduce's 2(n-1) steps
  // (14 on the 8 NVLink devices, 2 between the 2 boards), each step over two
  // switch links.
  EXPECT_NE(files.network_yml.find(fmt::format("bandwidth: [ {}, {} ]", 300e9 * 0.65 / 1073741824.0,
                                               25e9 * 0.9 / 1073741824.0)),
            std::string::npos)
      << files.network_yml;
  EXPECT_NE(files.network_yml.find(fmt::format("latency: [ {}, {} ]", 10e-6 / 14 * 1e9 / 2, 20e-6 / 2 * 1e9 / 2)),
            std::string::npos)
      << files.network_yml;
  EXPECT_NE(files.system_json.find("\"ring\""), std::string::npos);
}

TEST(PathfindEmit, InterleavedPipelinesAreRefused) {
  Workload w = small_training();
  w.model.num_blocks = 8;
  PredictInputs in = inputs(w, "tp=2,pp=2,dp=2,interleave=2");
  Prediction r = predict(in);
  EXPECT_THROW((void)emit_traces(in, r), Error);
}

}  // namespace
}  // namespace snr::pathfind
