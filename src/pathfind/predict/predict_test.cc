#include "pathfind/predict/predict.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "pathfind/age/generate.h"
#include "pathfind/predict/system.h"

namespace snr::pathfind {
namespace {

Workload gpt3_training() {
  Workload w;
  w.name = "gpt3-175B";
  w.kind = WorkloadKind::kTransformer;
  w.phase = WorkloadPhase::kTraining;
  w.model = {"gpt3-175B", 12288, 49152, 2048, 96, 128, 96, 51200};
  w.batch = 64;
  w.microbatch = 1;
  w.dtype = DType::kFp16;
  return w;
}

Workload gemm(uint64_t m, uint64_t n, uint64_t k) {
  Workload w;
  w.name = "gemm";
  w.kind = WorkloadKind::kGemm;
  w.gemm = {m, n, k};
  w.dtype = DType::kFp16;
  return w;
}

PredictInputs inputs(DeviceSpec device, Workload w, std::string_view strategy) {
  PredictInputs in;
  in.device = std::move(device);
  in.workload = std::move(w);
  in.strategy = parse_strategy(strategy);
  return in;
}

std::string predict_error(const DeviceSpec& device, Workload w, std::string_view strategy) {
  try {
    (void)predict(inputs(device, std::move(w), strategy));
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::string();
}

// CR-8 on one 8-GPU NVLink board: each GPU multiplies 8192x8192 over
// K/8 = 1024 and the partial products (8192 x 8192 x 2 B) are all-reduced;
// on a switch no two logical edges share a port, so the ring sees the full
// 300 GB/s.
TEST(PathfindPredict, ColumnRowGemmOnOneBoard) {
  DeviceSpec a100 = device_preset("a100-80gb");
  Prediction r = predict(inputs(a100, gemm(8192, 8192, 8192), "CR-8-d1-p1"));
  ASSERT_TRUE(r.gemm.has_value());
  EXPECT_EQ(r.gemm->local.k, 1024u);
  EXPECT_EQ(r.gemm->collective, CollectiveKind::kAllReduce);
  const double expected_comm = all_reduce_s(a100.network[0], 8, 8192.0 * 8192 * 2);
  EXPECT_DOUBLE_EQ(r.gemm->comm_s, expected_comm);
  EXPECT_DOUBLE_EQ(r.time_s, predict_gemm(a100, {8192, 8192, 1024}, DType::kFp16).time_s + expected_comm);
  EXPECT_EQ(r.dims[0].traffic.max_sharing, 1u);
  EXPECT_EQ(r.orderings.size(), 24u);
}

// A routing cache filled on one generated device gives, on another with
// other link bandwidths, exactly what predicting without it gives.
TEST(PathfindPredict, RoutingCacheGivesTheSamePrediction) {
  const age::TechnologyLibrary tech = age::builtin_technology("n7");
  const age::ArchitectureTemplate arch = age::builtin_template("gpu-16x16");
  age::ResourceBudget budget = age::builtin_budget("a100-like");
  PredictInputs in = inputs(age::generate_architecture(tech, arch, budget).device, gpt3_training(),
                            "tp=8,pp=8,sp,recompute=selective");
  in.arch = arch;
  in.order = parse_dimension_order("r,c,p,d");
  RoutingCache cache;
  in.routing_cache = &cache;
  const Prediction first = predict(in);
  ASSERT_TRUE(cache.system.has_value());
  for (auto& [component, fraction] : budget.power) {
    if (component == "intra_package" || component == "inter_package") fraction /= 2;
  }
  in.device = age::generate_architecture(tech, arch, budget).device;
  const Prediction cached = predict(in);
  in.routing_cache = nullptr;
  const Prediction fresh = predict(in);
  EXPECT_NE(cached.time_s, first.time_s);  // the network got slower
  EXPECT_EQ(cached.time_s, fresh.time_s);
  EXPECT_EQ(cached.mapping.score_s, fresh.mapping.score_s);
  for (size_t d = 0; d < kParallelDimCount; ++d) {
    EXPECT_EQ(cached.dims[d].tier.bandwidth_bytes_per_s, fresh.dims[d].tier.bandwidth_bytes_per_s);
  }
}

// RC-4-2: blocks of [8192/4, 8192/2] over the full K; row groups of two
// all-gather whole rows (2048 x 8192 x 2 B).
TEST(PathfindPredict, RowColumnGemmGathersRows) {
  DeviceSpec a100 = device_preset("a100-80gb");
  Prediction r = predict(inputs(a100, gemm(8192, 8192, 8192), "RC-4-2-d1-p1"));
  EXPECT_EQ(r.gemm->local.m, 2048u);
  EXPECT_EQ(r.gemm->local.n, 4096u);
  EXPECT_EQ(r.gemm->collective, CollectiveKind::kAllGather);
  EXPECT_DOUBLE_EQ(r.gemm->comm_bytes, 2048.0 * 8192 * 2);
}

// Korthikanti et al.'s GPT-3 run: TP 8 inside a board, PP 8 across boards.
// The best ordering keeps the tensor-parallel ring on NVLink, so the
// prediction equals the Megatron model on the preset's own two tiers.
TEST(PathfindPredict, BestOrderingKeepsTensorParallelismOnTheBoard) {
  DeviceSpec a100 = device_preset("a100-80gb");
  Prediction r = predict(inputs(a100, gpt3_training(), "tp=8,pp=8,dp=1,interleave=1,sp,recompute=selective"));
  Parallelism par;
  par.devices = 64;
  par.tp = 8;
  par.pp = 8;
  par.sequence_parallel = true;
  par.recompute = Recompute::kSelective;
  par.tp_tier = 0;
  par.pp_tier = 1;
  par.dp_tier = 1;
  IterationPrediction direct = predict_training_iteration(a100, gpt3_training().model, par, {64, 1, DType::kFp16, true});
  EXPECT_NEAR(r.time_s, direct.iteration_s, direct.iteration_s * 1e-12);
  EXPECT_EQ(r.dims[index_of(ParallelDim::kKernelRow)].traffic.bottleneck_tier, 0u);
  EXPECT_EQ(r.dims[index_of(ParallelDim::kPipeline)].traffic.bottleneck_tier, 1u);
  EXPECT_EQ(r.time_name, "iteration");
  EXPECT_NE(r.bottleneck.find("compute"), std::string::npos) << r.bottleneck;
  double total = 0;
  for (const TimeCause& c : r.causes) total += c.seconds;
  EXPECT_NEAR(total, r.time_s, r.time_s * 1e-9);
}

TEST(PathfindPredict, AWorseOrderingPutsTensorParallelismOnTheFabric) {
  DeviceSpec a100 = device_preset("a100-80gb");
  PredictInputs in = inputs(a100, gpt3_training(), "tp=8,pp=8,dp=1,sp,recompute=selective");
  Prediction best = predict(in);
  in.order = DimOrder{ParallelDim::kPipeline, ParallelDim::kKernelRow, ParallelDim::kKernelCol, ParallelDim::kData};
  Prediction worse = predict(in);
  EXPECT_EQ(worse.orderings.size(), 1u);
  EXPECT_EQ(worse.dims[index_of(ParallelDim::kKernelRow)].traffic.bottleneck_tier, 1u);
  EXPECT_GT(worse.time_s, best.time_s * 1.2);
}

TEST(PathfindPredict, DecodeOnAGeneratedChip) {
  age::GeneratedArchitecture g = age::generate_architecture(
      age::builtin_technology("n7"), age::builtin_template("gpu-16x16"), age::builtin_budget("a100-like"));
  Workload w;
  w.name = "llama-like";
  w.kind = WorkloadKind::kTransformer;
  w.phase = WorkloadPhase::kDecode;
  w.model = {"llama-like", 4096, 11008, 4096, 32, 128, 32, 32000, 8};
  w.batch = 32;
  w.context = 1023;
  PredictInputs in = inputs(g.device, w, "tp=2,pp=1,dp=1");
  in.arch = age::builtin_template("gpu-16x16");
  Prediction r = predict(in);
  EXPECT_EQ(r.time_name, "decode step");
  EXPECT_NEAR(r.tokens_per_s, 32 / r.time_s, 1e-6);
  EXPECT_TRUE(r.memory.fits);
  // Every kernel launch's fixed cost is a cause of its own: at batch 32 a
  // decode step's kernels are mostly launch (kernel_overhead per GEMM and
  // stream, 32 blocks and the output layer), the rest mostly HBM.
  ASSERT_GE(r.causes.size(), 2u);
  double launches = 0, total = 0;
  for (const KernelTime& k : r.kernels) launches += k.kind == KernelKind::kComm ? 0 : 32;
  for (const KernelTime& k : r.head_kernels) launches += k.kind == KernelKind::kComm ? 0 : 1;
  for (const TimeCause& c : r.causes) total += c.seconds;
  EXPECT_NEAR(total, r.time_s, 1e-9 * r.time_s);
  const auto seconds_of = [&](std::string_view cause) {
    for (const TimeCause& c : r.causes) {
      if (c.cause == cause) return c.seconds;
    }
    return 0.0;
  };
  EXPECT_NEAR(seconds_of("kernel overhead"), launches * g.device.kernel_overhead_s, 1e-12);
  EXPECT_GT(seconds_of("memory:hbm"), 0.2 * r.time_s);
  EXPECT_EQ(r.causes[0].cause, "kernel overhead") << r.bottleneck;
  EXPECT_EQ(r.causes[1].cause, "memory:hbm");
}

TEST(PathfindPredict, InconsistentInputsNameTheField) {
  DeviceSpec a100 = device_preset("a100-80gb");
  auto error = [&](Workload w, std::string_view strategy) { return predict_error(a100, std::move(w), strategy); };
  EXPECT_NE(error(gpt3_training(), "RC-4-2-d1-p8").find("CR-8-d1-p8"), std::string::npos);
  EXPECT_NE(error(gpt3_training(), "tp=8,pp=8,dp=1,interleave=5").find("interleave"), std::string::npos);
  EXPECT_NE(error(gemm(64, 64, 64), "CR-4-d1-p2").find("pipeline"), std::string::npos);
  EXPECT_NE(error(gemm(64, 64, 64), "d12-p1").find("packages"), std::string::npos);
  Workload big = gpt3_training();
  big.batch = 65;
  EXPECT_NE(error(big, "tp=8,pp=4,dp=2").find("global batch"), std::string::npos);
}

// 8 rows over 16 data replicas left 8 devices idle, modelled as computing
// one row each (the same time as d8 on half the devices); such a split is
// refused as a pipeline stage without a layer is.
TEST(PathfindPredict, GemmSplitsThatIdleDevicesAreRefused) {
  const DeviceSpec a100 = device_preset("a100-80gb");
  auto error = [&](Workload w, std::string_view strategy) { return predict_error(a100, std::move(w), strategy); };
  EXPECT_NE(error(gemm(8, 64, 64), "d16-p1").find("M = 8 rows cannot be cut dp 16 ways (dp must be at most M)"),
            std::string::npos);
  EXPECT_NE(error(gemm(8, 64, 64), "RC-4-1-d4-p1").find("dp 4 x KP1 4 = 16 ways"), std::string::npos);
  EXPECT_NE(error(gemm(64, 8, 64), "RC-1-16-d1-p1").find("N = 8 columns cannot be cut KP2 16 ways"),
            std::string::npos);
  EXPECT_NE(error(gemm(64, 64, 8), "CR-16-d1-p1").find("K = 8 cannot be cut KP1 16 ways"), std::string::npos);
  EXPECT_EQ(error(gemm(8, 64, 64), "d8-p1"), "");
  EXPECT_EQ(error(gemm(8, 64, 64), "RC-2-1-d4-p1"), "");
}

// sp without tensor parallelism has nothing to split; it is accepted, as
// Calculon accepts rs_ag at tensor_par 1, and the output says so.
TEST(PathfindPredict, SequenceParallelWithoutTensorParallelIsANote) {
  const DeviceSpec a100 = device_preset("a100-80gb");
  const Prediction with_sp = predict(inputs(a100, gpt3_training(), "tp=1,pp=8,dp=8,sp,recompute=selective"));
  const Prediction without = predict(inputs(a100, gpt3_training(), "tp=1,pp=8,dp=8,recompute=selective"));
  ASSERT_EQ(with_sp.notes.size(), 1u);
  EXPECT_NE(with_sp.notes[0].find("sp with tp=1"), std::string::npos);
  EXPECT_EQ(with_sp.time_s, without.time_s);
  EXPECT_EQ(with_sp.memory.total_bytes, without.memory.total_bytes);
  EXPECT_TRUE(without.notes.empty());
  EXPECT_TRUE(predict(inputs(a100, gpt3_training(), "tp=8,pp=8,dp=1,sp")).notes.empty());
}

TEST(PathfindPredict, ModelThatDoesNotFitIsAVerdict) {
  Prediction r = predict(inputs(device_preset("a100-80gb"), gpt3_training(), "tp=8,pp=1,dp=1"));
  EXPECT_FALSE(r.memory.fits);
  EXPECT_GT(r.memory.total_bytes, r.memory.capacity_bytes);
}

}  // namespace
}  // namespace snr::pathfind

namespace snr::pathfind {
namespace {

// The paper's LSTM language model through predict(): the event-driven
// schedule's critical path is what the causes add up, and two pipeline
// stages overlap along the time-step wavefront.
TEST(PathfindPredict, LstmIsScheduledByEvents) {
  Workload w;
  w.name = "lstm";
  w.kind = WorkloadKind::kLstm;
  w.lstm = {1024, 8192, 2, 20, 256};
  w.batch = 256;
  w.dtype = DType::kFp16;
  PredictInputs in;
  in.device = device_preset("v100");
  in.workload = w;
  in.strategy = parse_strategy("d1-p1");
  Prediction one = predict(in);
  ASSERT_TRUE(one.lstm.has_value());
  double total = 0;
  for (const TimeCause& c : one.causes) total += c.seconds;
  EXPECT_NEAR(total, one.time_s, one.time_s * 1e-9);
  in.strategy = parse_strategy("d1-p2");
  Prediction two = predict(in);
  EXPECT_LT(two.time_s, one.time_s);
  EXPECT_GT(two.time_s, one.time_s / 2);
  total = 0;
  for (const TimeCause& c : two.causes) total += c.seconds;
  EXPECT_NEAR(total, two.time_s, two.time_s * 1e-9);
  in.strategy = parse_strategy("tp=2");
  in.strategy.sequence_parallel = true;
  EXPECT_THROW((void)predict(in), Error);
}

// npu-128x128's intra-package tier is a torus of 4,096 chips without a
// shape: one ring, each chip's 300 GB/s split over its two links. A run on
// 4 of them used to become a switch at the full 300 GB/s per port, twice
// what a ring link carries (tp=4 decode all-reduces 1.4 us instead of 2.2).
TEST(PathfindPredict, PartlyUsedTorusStaysARing) {
  const age::ArchitectureTemplate arch = age::builtin_template("npu-128x128");
  const age::GeneratedArchitecture g =
      age::generate_architecture(age::builtin_technology("n7"), arch, age::builtin_budget("npu-v4-like"));
  const double tier_bw = g.device.network[0].bandwidth_bytes_per_s;
  for (uint64_t devices : {uint64_t{4}, uint64_t{16}, g.device.network[0].size}) {
    const SystemGraph system = build_system(g.device, &arch, devices);
    ASSERT_EQ(system.dimensions().size(), 1u) << devices;
    EXPECT_EQ(system.dimensions()[0].kind, SystemDimension::Kind::kRing) << devices;
    EXPECT_EQ(system.dimensions()[0].size, devices);
    EXPECT_DOUBLE_EQ(system.dimensions()[0].link_bandwidth_bytes_per_s, tier_bw / 2) << devices;
  }
  // Without the template (a device file) the tier is a switch.
  const SystemGraph bare = build_system(g.device, nullptr, 4);
  EXPECT_EQ(bare.dimensions()[0].kind, SystemDimension::Kind::kSwitch);

  Workload w;
  w.name = "decode";
  w.kind = WorkloadKind::kTransformer;
  w.phase = WorkloadPhase::kDecode;
  w.model = {"decode", 4096, 14336, 8192, 32, 128, 2, 0, 8};
  w.batch = 16;
  w.context = 4096;
  w.dtype = DType::kBf16;
  PredictInputs in = inputs(g.device, w, "tp=4");
  in.arch = arch;
  const Prediction r = predict(in);
  const DimensionTraffic& row = r.mapping.dims[0];  // kernel_row
  EXPECT_EQ(row.max_hops, 1u);
  EXPECT_DOUBLE_EQ(row.effective_bandwidth_bytes_per_s, tier_bw / 2);
}

}  // namespace
}  // namespace snr::pathfind
