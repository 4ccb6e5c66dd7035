// The strategy space: the counts of each family, the divisibility rules,
// and that predict() accepts every strategy the enumeration gives.
#include "pathfind/search/strategies.h"

#include <gtest/gtest.h>

#include <set>

#include "common/error_of.h"
#include "pathfind/age/generate.h"
#include "pathfind/predict/predict.h"
#include "pathfind/search/test_workloads.h"

namespace snr::pathfind::search {
namespace {

using snr::testing::error_of;

using testing::example_workload;

Workload gemm_workload() { return example_workload("gemm-8k"); }

// Small enough that its divisibility rules bite at 16 devices.
Workload transformer_workload() {
  Workload w;
  w.name = "small";
  w.model = {"small", 2048, 8192, 1024, 16, 128, 12, 32000};
  w.batch = 16;
  w.microbatch = 2;
  w.dtype = DType::kBf16;
  return w;
}

Workload lstm_workload() { return example_workload("lstm-lm"); }  // 2 layers, batch 4096

std::set<std::string> names(const std::vector<Strategy>& list) {
  std::set<std::string> out;
  for (const Strategy& s : list) out.insert(s.to_string());
  return out;
}

TEST(Strategies, GemmOnEightDevices) {
  const std::vector<Strategy> list = enumerate_strategies(gemm_workload(), 8);
  // d8; CR-2, CR-4, CR-8; RC over the ordered triples kp1 x kp2 x dp = 8 but (1, 1, 8).
  EXPECT_EQ(list.size(), 1u + 3u + 9u);
  EXPECT_EQ(list.front().to_string(), "d8-p1");
  EXPECT_EQ(names(list).size(), list.size());
  for (const char* expected : {"CR-8-d1-p1", "CR-2-d4-p1", "RC-2-4-d1-p1", "RC-1-2-d4-p1", "RC-8-1-d1-p1"}) {
    EXPECT_TRUE(names(list).contains(expected)) << expected;
  }
  for (const Strategy& s : list) {
    EXPECT_EQ(s.devices(), 8u);
    EXPECT_EQ(s.notation.lp, 1u);
  }
}

// A GEMM of 8 rows on 16 devices: a split that cuts the rows more than 8
// ways leaves devices without work, and predict() refuses it.
TEST(Strategies, GemmSplitsGiveEveryDeviceWork) {
  Workload w = gemm_workload();
  w.gemm = {8, 8192, 8192};
  const std::vector<Strategy> list = enumerate_strategies(w, 16);
  const std::set<std::string> got = names(list);
  for (const char* idle : {"d16-p1", "RC-2-1-d8-p1", "RC-4-1-d4-p1", "RC-16-1-d1-p1"}) {
    EXPECT_FALSE(got.contains(idle)) << idle;
  }
  for (const char* busy : {"CR-2-d8-p1", "RC-1-2-d8-p1", "RC-8-2-d1-p1", "CR-16-d1-p1"}) {
    EXPECT_TRUE(got.contains(busy)) << busy;
  }
  const DeviceSpec a100 = device_preset("a100-80gb");
  for (const Strategy& s : list) {
    PredictInputs in{a100, std::nullopt, w, s, std::nullopt, nullptr};
    EXPECT_NO_THROW((void)predict(in)) << s.to_string();
  }
}

TEST(Strategies, TransformerFollowsTheDivisibilityRules) {
  Workload w = transformer_workload();
  const std::vector<Strategy> list = enumerate_strategies(w, 16);
  for (const Strategy& s : list) {
    const uint64_t tp = s.tensor_parallel();
    EXPECT_EQ(w.model.attn_heads % tp, 0u) << s.to_string();
    EXPECT_EQ(w.model.num_blocks % s.notation.lp, 0u) << s.to_string();
    EXPECT_EQ(w.batch % (s.notation.dp * w.microbatch), 0u) << s.to_string();
    EXPECT_NE(s.notation.kind, KernelSplit::kRowColumn);
  }
  // pp 16 does not divide 12 blocks; dp 16 x microbatch 2 does not divide 16.
  EXPECT_FALSE(names(list).contains("d1-p16"));
  EXPECT_FALSE(names(list).contains("d16-p1"));
  EXPECT_TRUE(names(list).contains("CR-16-d1-p1"));
  EXPECT_TRUE(names(list).contains("CR-4-d2-p2"));
  // Interleaving needs pipeline stages and splits the blocks further.
  Strategy options;
  options.interleave = 2;
  options.sequence_parallel = true;
  for (const Strategy& s : enumerate_strategies(w, 16, options)) {
    EXPECT_GT(s.notation.lp, 1u) << s.to_string();
    EXPECT_EQ(w.model.num_blocks % (2 * s.notation.lp), 0u) << s.to_string();
    EXPECT_TRUE(s.sequence_parallel);
  }
}

TEST(Strategies, LstmSplitsLayersAndBatch) {
  const std::vector<Strategy> list = enumerate_strategies(lstm_workload(), 8);
  bool pipelined = false;
  for (const Strategy& s : list) {
    EXPECT_EQ(2u % s.notation.lp, 0u);
    EXPECT_EQ(4096u % s.notation.dp, 0u);
    pipelined |= s.notation.lp == 2;
  }
  EXPECT_TRUE(pipelined);
  // lp 1: 13 as for the GEMM; lp 2 over 4 devices: d4, CR-2, CR-4, and 5 RC.
  EXPECT_EQ(list.size(), 13u + 8u);
}

TEST(Strategies, PredictAcceptsEveryOne) {
  const age::GeneratedArchitecture g = age::generate_architecture(
      age::builtin_technology("n7"), age::builtin_template("gpu-16x16"), age::builtin_budget("a100-like"));
  for (const Workload& w : {gemm_workload(), transformer_workload(), lstm_workload()}) {
    for (const Strategy& s : enumerate_strategies(w, 8)) {
      PredictInputs in;
      in.device = g.device;
      in.arch = age::builtin_template("gpu-16x16");
      in.workload = w;
      in.strategy = s;
      EXPECT_EQ(error_of([&] { (void)predict(in); }), "") << w.name << " " << s.to_string();
    }
  }
}

TEST(Strategies, OptionsAndRefusals) {
  EXPECT_EQ(parse_search_options("search").to_string(), "d1-p1");
  const Strategy o = parse_search_options("search,sp,recompute=selective");
  EXPECT_TRUE(o.sequence_parallel);
  EXPECT_EQ(o.recompute, Recompute::kSelective);
  EXPECT_TRUE(parse_search_options("search,zero1").optimizer_sharding);
  EXPECT_NE(error_of([] { (void)parse_search_options("search,tp=4"); }).find("enumerates tp, pp and dp"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)parse_search_options("search,bogus"); }).find("bogus"), std::string::npos);
  EXPECT_NE(error_of([] { (void)parse_search_options("searching"); }).find("search or search,OPTIONS"),
            std::string::npos);
  Strategy sp;
  sp.sequence_parallel = true;
  EXPECT_NE(error_of([&] { (void)enumerate_strategies(gemm_workload(), 8, sp); }).find("transformer options"),
            std::string::npos);
  EXPECT_EQ(strategies_to_search(gemm_workload(), "search", 8).size(), 13u);
  EXPECT_EQ(strategies_to_search(gemm_workload(), "RC-2-4-d1-p1", 0).front().to_string(), "RC-2-4-d1-p1");
  EXPECT_NE(error_of([] { (void)strategies_to_search(gemm_workload(), "search", 0); })
                .find("needs the number of devices"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)strategies_to_search(gemm_workload(), "CR-8-d1-p1", 4); })
                .find("uses 8 devices but the system has 4"),
            std::string::npos);
  Workload odd = transformer_workload();
  odd.batch = 3;  // no dp x microbatch 2 divides 3
  EXPECT_NE(error_of([&] { (void)enumerate_strategies(odd, 4); }).find("no strategy spreads workload 'small'"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)enumerate_strategies(gemm_workload(), 0); }).find("devices must be"),
            std::string::npos);
}

}  // namespace
}  // namespace snr::pathfind::search
