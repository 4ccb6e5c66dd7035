#include "pathfind/schedule/lstm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "pathfind/roofline/gemm.h"

namespace snr::pathfind {
namespace {

// The paper's case-study model (hidden 16K, batch 16K, vocab 800K, 2 layers,
// 20 steps) scaled down 32x in hidden, batch and vocabulary.
LstmModel small() { return {512, 25000, 2, 20, 512}; }

struct Rig {
  DeviceSpec device = device_preset("v100");
  NetworkTier kernel_tier = device.network[0];    // nvlink2
  NetworkTier pipeline_tier = device.network[0];
  NetworkTier data_tier = device.network[1];      // ib-edr

  LstmPrediction run(const LstmModel& m, std::string_view strategy, LstmOptions options = {}) const {
    return predict_lstm_training(device, m, parse_parallelism(strategy), DType::kFp16, kernel_tier, pipeline_tier,
                                 data_tier, options);
  }
};

double sum_of_durations(const ScheduleGraph& g) {
  double sum = 0;
  for (uint32_t i = 0; i < g.size(); ++i) sum += g.duration_s(i);
  return sum;
}

// Seconds of the kernel rows over one iteration.
double rows_total(const LstmPrediction& r) {
  double sum = 0;
  for (const LstmKernel& k : r.kernels) sum += (k.time.forward_s + k.time.backward_s) * static_cast<double>(k.count);
  return sum;
}

double total_of(const LstmKindTotals& k) {
  return k.cell_gemm_s + k.gates_s + k.projection_s + k.softmax_s + k.transfer_s + k.kernel_collective_s +
         k.dp_allreduce_s + k.optimizer_s;
}

TEST(PathfindLstm, ParametersAreCountedPerMatrixAndBias) {
  LstmModel m = small();
  const double h = 512, v = 25000;
  EXPECT_EQ(m.layer_parameters(), 2 * h * 4 * h + 4 * h);
  EXPECT_EQ(m.projection_parameters(), h * v + v);
  EXPECT_EQ(m.parameters(), 2 * (8 * h * h + 4 * h) + h * v + v);
}

TEST(PathfindLstm, GraphHasFiveKernelsPerCellInProgramOrder) {
  Rig s;
  LstmPrediction r = s.run(small(), "d1-p1");
  // Per cell: forward GEMM + gates, backward gates + data and weight GEMMs;
  // then projection and softmax forward, softmax backward and the two
  // projection GEMMs backward, and one optimizer step.
  EXPECT_EQ(r.kernel_count, 5 * 2 * 20 + 5 + 1);
  EXPECT_EQ(r.kernel_count, lstm_graph_kernels(small(), 1, false));
  EXPECT_EQ(r.graph.backward_begin, 2 * 2 * 20 + 2);
  EXPECT_EQ(r.graph.tail_begin - r.graph.backward_begin, 3 * 2 * 20 + 3);
  const ScheduleGraph& g = r.graph.graph;
  EXPECT_EQ(g.name(0), "fwd gemm L0 t0");
  EXPECT_EQ(g.name(1), "fwd gates L0 t0");
  EXPECT_EQ(g.name(2), "fwd gemm L1 t0");
  EXPECT_EQ(g.name(r.graph.backward_begin - 1), "softmax fwd");
  EXPECT_EQ(g.name(r.graph.backward_begin + 3), "bwd gates L1 t19");
  EXPECT_EQ(g.name(r.graph.tail_begin), "optimizer stage 0");
  // The cell (1, 3) waits for (1, 2) and (0, 3).
  const std::vector<uint32_t> deps(g.deps(2 * (3 * 2 + 1)).begin(), g.deps(2 * (3 * 2 + 1)).end());
  EXPECT_EQ(g.name(deps[0]), "fwd gates L1 t2");
  EXPECT_EQ(g.name(deps[1]), "fwd gates L0 t3");
  EXPECT_EQ(s.run(small(), "d2-p2").kernel_count, 5 * 2 * 20 + 5 + 2 * 2);
  EXPECT_EQ(lstm_graph_kernels(small(), 2, true), 5 * 2 * 20 + 5 + 2 * 2);
}

TEST(PathfindLstm, OneDeviceTakesTheSumOfItsKernels) {
  Rig s;
  LstmModel m = small();
  LstmPrediction r = s.run(m, "d1-p1");
  const LstmKernelTimes& t = r.times;
  EXPECT_DOUBLE_EQ(r.iteration_s, sum_of_durations(r.graph.graph));
  EXPECT_DOUBLE_EQ(r.iteration_s, r.schedule.stage_busy_s[0]);
  EXPECT_DOUBLE_EQ(r.iteration_s, total_of(r.totals));
  EXPECT_DOUBLE_EQ(r.forward_s, 40 * (t.cell_forward_s + t.gates_forward_s) + t.projection_forward_s +
                                    t.softmax_forward_s);
  EXPECT_DOUBLE_EQ(r.iteration_s, r.forward_s + r.backward_s + r.optimizer_s);
  EXPECT_EQ(r.dp_allreduce_s, 0);
  EXPECT_EQ(r.totals.transfer_s, 0);
  EXPECT_EQ(r.totals.kernel_collective_s, 0);
  EXPECT_EQ(r.replica_batch, 512u);
  // Each GEMM is the roofline's prediction of its shape.
  EXPECT_EQ(t.cell_forward_s, predict_gemm(s.device, {512, 2048, 1024}, DType::kFp16).time_s);
  EXPECT_EQ(t.projection_weight_grad_s, predict_gemm(s.device, {512, 25000, 512 * 20}, DType::kFp16).time_s);
  EXPECT_TRUE(r.memory.fits);
  ASSERT_EQ(r.kernels.size(), 4u);
  EXPECT_EQ(r.kernels[0].time.name, "cell gemm");
  EXPECT_EQ(r.kernels[0].count, 40u);
  EXPECT_EQ(r.kernels[1].time.bound, "hbm");
  EXPECT_NEAR(rows_total(r), r.iteration_s - r.optimizer_s, 1e-12 * r.iteration_s);
}

TEST(PathfindLstm, TwoStagesOverlapAlongTheTimeStepWavefront) {
  Rig s;
  LstmModel m = small();
  const LstmPrediction one = s.run(m, "d1-p1");
  const LstmPrediction two = s.run(m, "d1-p2");
  EXPECT_LT(two.iteration_s, one.iteration_s);
  EXPECT_GT(two.iteration_s, one.iteration_s / 2);
  const LstmKernelTimes& t = two.times;
  const double x = send_recv_s(s.pipeline_tier, 512.0 * 512 * 2);
  EXPECT_EQ(t.transfer_s, x);
  EXPECT_DOUBLE_EQ(two.totals.transfer_s, 2 * 20 * x);  // every step crosses once forward, once backward
  // Both stages run identical cells: stage 1 trails stage 0 by one cell and a hop.
  const double cell = t.cell_forward_s + t.gates_forward_s;
  const double fwd = 21 * cell + x + t.projection_forward_s + t.softmax_forward_s;
  EXPECT_NEAR(two.forward_s, fwd, 1e-12 * fwd);
  // Backward: the last stage leads, one step of gates + two GEMMs after the
  // other; stage 0 trails by a gates kernel, a data gradient and a hop. Each
  // stage then updates its own weights.
  const double step = t.gates_backward_s + t.cell_data_grad_s + t.cell_weight_grad_s;
  const double last_stage = fwd + t.softmax_backward_s + t.projection_data_grad_s + t.projection_weight_grad_s +
                            20 * step;
  const double first_stage = last_stage + t.gates_backward_s + t.cell_data_grad_s + x;
  const double end = std::max(first_stage + t.optimizer_s[0], last_stage + t.optimizer_s[1]);
  EXPECT_NEAR(two.iteration_s, end, 1e-12 * end);
  EXPECT_NEAR(two.backward_s, first_stage - fwd, 1e-12 * end);
  bool hop = false;
  for (const CriticalStep& c : two.schedule.critical_path) hop |= c.cause == StartCause::kTransfer;
  EXPECT_TRUE(hop);
}

TEST(PathfindLstm, TwoSlotsPerStageHideWeightGradients) {
  Rig s;
  LstmOptions two_slots;
  two_slots.kernels_per_stage = 2;
  EXPECT_LT(s.run(small(), "d1-p2", two_slots).iteration_s, s.run(small(), "d1-p2").iteration_s);
}

TEST(PathfindLstm, DataParallelismHalvesTheBatchAndAllReducesTheGradients) {
  Rig s;
  LstmModel m = small();
  LstmPrediction r = s.run(m, "d2-p1");
  EXPECT_EQ(r.replica_batch, 256u);
  EXPECT_EQ(r.dp_allreduce_bytes, m.parameters() * 2);
  EXPECT_EQ(r.dp_allreduce_s, all_reduce_s(s.data_tier, 2, m.parameters() * 2));
  EXPECT_EQ(r.totals.dp_allreduce_s, r.dp_allreduce_s);
  EXPECT_EQ(r.kernel_count, s.run(m, "d1-p1").kernel_count + 1);
  EXPECT_DOUBLE_EQ(r.iteration_s, r.forward_s + r.backward_s + r.dp_allreduce_s + r.optimizer_s);
  EXPECT_EQ(r.times.cell_forward_s, predict_gemm(s.device, {256, 2048, 1024}, DType::kFp16).time_s);
}

TEST(PathfindLstm, ColumnRowAddsAnAllReducePerGemm) {
  Rig s;
  LstmModel m = small();
  LstmPrediction r = s.run(m, "CR-2-d1-p1");
  auto ar = [&](double elements) { return all_reduce_s(s.kernel_tier, 2, elements * 2); };
  const double b = 512, h = 512, v = 25000, bs = b * 20;
  // 40 cells x (forward, data gradient, weight gradient) + the three projection GEMMs.
  const double expected =
      40 * (ar(b * 4 * h) + ar(b * 2 * h) + ar(2 * h * 4 * h)) + ar(bs * v) + ar(bs * h) + ar(h * v);
  EXPECT_NEAR(r.totals.kernel_collective_s, expected, 1e-12 * expected);
  EXPECT_EQ(r.times.cell_forward_s,
            predict_gemm(s.device, {512, 2048, 512}, DType::kFp16).time_s + ar(b * 4 * h));
  EXPECT_EQ(r.rows_per_device, 512u);
  EXPECT_EQ(r.memory.weights_bytes, m.parameters() / 2 * 2);
  EXPECT_NEAR(r.iteration_s, total_of(r.totals), 1e-12 * r.iteration_s);
  ASSERT_EQ(r.kernels.size(), 6u);
  EXPECT_EQ(r.kernels[4].time.name, "cell gemm all_reduce");
  EXPECT_EQ(r.kernels[4].time.bound, "nvlink2");
  EXPECT_EQ(r.kernels[4].time.comm_bytes, b * 4 * h * 2);
  EXPECT_EQ(r.kernels[5].time.forward_collective, CollectiveKind::kAllReduce);
  EXPECT_NEAR(rows_total(r), r.iteration_s - r.optimizer_s, 1e-12 * r.iteration_s);
}

TEST(PathfindLstm, RowColumnGathersWholeRows) {
  Rig s;
  LstmPrediction r = s.run(small(), "RC-2-4-d1-p1");
  EXPECT_EQ(r.rows_per_device, 256u);
  // [256, 2048/4] blocks over K = 1024, gathered into [256, 2048] over 4 devices.
  EXPECT_EQ(r.times.cell_forward_s, predict_gemm(s.device, {256, 512, 1024}, DType::kFp16).time_s +
                                        all_gather_s(s.kernel_tier, 4, 256.0 * 2048 * 2));
  EXPECT_EQ(r.memory.weights_bytes, small().parameters() / 4 * 2);
}

TEST(PathfindLstm, PaperCaseStudyShapeDoesNotFitOneV100) {
  Rig s;
  LstmModel paper{16384, 800000, 2, 20, 16384};
  LstmPrediction r = s.run(paper, "d1-p1");
  const double p = paper.parameters();
  EXPECT_EQ(r.memory.weights_bytes, 2 * p);
  EXPECT_EQ(r.memory.optimizer_bytes, 4 * p);
  // 40 cells of 6 kept [b, H] tensors, the input sequence, the softmax output.
  const double b = 16384, h = 16384;
  EXPECT_EQ(r.memory.activations_bytes, (20 * b * h * 13 + b * 20 * 800000) * 2);
  EXPECT_FALSE(r.memory.fits);
  EXPECT_GT(r.iteration_s, 0);
}

// The worked example of docs/pathfind-schedule.md: round kernel times.
LstmKernelTimes round_times(uint32_t stages) {
  LstmKernelTimes t;
  t.cell_forward_s = 2;
  t.gates_forward_s = 1;
  t.gates_backward_s = 1;
  t.cell_data_grad_s = 2;
  t.cell_weight_grad_s = 2;
  t.projection_forward_s = 4;
  t.projection_data_grad_s = 4;
  t.projection_weight_grad_s = 4;
  t.softmax_forward_s = 1;
  t.softmax_backward_s = 1;
  t.transfer_s = stages > 1 ? 1 : 0;
  t.optimizer_s = stages > 1 ? std::vector<double>{1, 2} : std::vector<double>{3};
  return t;
}

TEST(PathfindLstm, WorkedExampleOfTheDocumentation) {
  LstmModel m{1, 1, 2, 3, 1};
  LstmGraph one = build_lstm_graph(m, 1, round_times(1));
  LstmGraph two = build_lstm_graph(m, 2, round_times(2));
  Schedule serial = schedule_events(one.graph);
  Schedule piped = schedule_events(two.graph);
  EXPECT_EQ(serial.makespan_s, 65);
  EXPECT_EQ(piped.finish_s[two.backward_begin - 1], 18);  // forward: 4 cells of 3, a hop, projection, softmax
  EXPECT_EQ(piped.makespan_s, 47);
  EXPECT_EQ(piped.stage_busy_s, (std::vector<double>{25, 40}));
  std::vector<std::string> names;
  for (const CriticalStep& c : piped.critical_path) names.emplace_back(two.graph.name(c.kernel));
  const std::vector<std::string> expected{
      "fwd gemm L0 t0",  "fwd gates L0 t0",  "fwd gemm L1 t0",  "fwd gates L1 t0", "fwd gemm L1 t1",
      "fwd gates L1 t1", "fwd gemm L1 t2",   "fwd gates L1 t2", "proj fwd",        "softmax fwd",
      "softmax bwd",     "proj dgrad",       "proj wgrad",      "bwd gates L1 t2", "bwd dgrad L1 t2",
      "bwd wgrad L1 t2", "bwd gates L1 t1",  "bwd dgrad L1 t1", "bwd wgrad L1 t1", "bwd gates L1 t0",
      "bwd dgrad L1 t0", "bwd gates L0 t0",  "bwd dgrad L0 t0", "bwd wgrad L0 t0", "optimizer stage 0"};
  EXPECT_EQ(names, expected);
  const std::vector<CriticalStep>& path = piped.critical_path;
  EXPECT_EQ(describe_cause(two.graph, path[2]), "transfer from stage 0 (fwd gates L0 t0 finished, 1 s transfer)");
  EXPECT_EQ(describe_cause(two.graph, path[12]), "stage 1 busy until proj dgrad finished (queued 4 s)");
  EXPECT_EQ(describe_cause(two.graph, path[21]), "transfer from stage 1 (bwd dgrad L1 t0 finished, 1 s transfer)");
  EXPECT_EQ(piped.start_s[path[21].kernel], 41);
}

void expect_error(const std::function<void()>& fn, const std::string& fragment) {
  try {
    fn();
    ADD_FAILURE() << "no error, expected: " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(PathfindLstm, RejectsInconsistentInputsNamingTheField) {
  Rig s;
  expect_error([&] { s.run(small(), "d1-p3"); }, "lstm: layers 2 do not split into lp 3 pipeline stages");
  expect_error([&] { s.run({512, 4096, 2, 20, 510}, "d4-p1"); }, "lstm: batch 510 does not split into dp 4 replicas");
  expect_error([&] { s.run({0, 4096, 2, 20, 512}, "d1-p1"); }, "lstm: hidden is 0");
  expect_error([&] { s.run({512, 0, 2, 20, 512}, "d1-p1"); }, "lstm: vocab is 0");
  expect_error([&] { s.run({512, 4096, 2, 0, 512}, "d1-p1"); }, "lstm: sequence is 0");
  expect_error([&] { s.run({512, 4096, 4096, 4096, 512}, "d1-p1"); }, "lstm: layers 4096 x sequence 4096");
  expect_error([&] { s.run(small(), "CR-16-d1-p1"); }, "lstm: kernel_tier 'nvlink2' reaches 8 devices, 16 needed");
  Rig dead = s;
  dead.pipeline_tier.bandwidth_bytes_per_s = 0;
  expect_error([&] { dead.run(small(), "d1-p2"); }, "lstm: pipeline_tier 'nvlink2' has no usable bandwidth");
  EXPECT_NO_THROW(dead.run(small(), "d1-p1"));  // no pipeline, no use of the tier
  LstmOptions none;
  none.kernels_per_stage = 0;
  expect_error([&] { s.run(small(), "d1-p1", none); }, "lstm: kernels_per_stage is 0");
  LstmKernelTimes t = round_times(2);
  expect_error([&] { build_lstm_graph({1, 1, 2, 3, 1}, 1, t); }, "lstm: optimizer_s has 2 entries for 1 stages");
}

}  // namespace
}  // namespace snr::pathfind
