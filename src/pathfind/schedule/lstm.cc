#include "pathfind/schedule/lstm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include "common/error.h"
#include "pathfind/roofline/gemm.h"
#include "pathfind/roofline/gemm_cache.h"

namespace snr::pathfind {
namespace {

// Dimensions stay below 2^32 and the cell count below 2^22 so that every
// product of them (b*S rows, kernel indices) is exact in uint64 and double.
constexpr uint64_t kMaxDimension = uint64_t{1} << 32;
constexpr uint64_t kMaxCells = uint64_t{1} << 22;

// Gate kernel, per batch row and hidden unit: reads the 4 pre-activations
// and c(t-1), writes the 4 activated gates (kept for backward), c(t) and
// h(t); 3 sigmoids and 2 tanh at about 8 flops each plus the 4 products and sums.
constexpr double kGateElementsPerUnit = 11;
constexpr double kGateFlopsPerUnit = 44;
// Softmax per logit: max, subtract, exponential, sum, divide.
constexpr double kSoftmaxFlopsPerLogit = 8;
constexpr double kOptimizerFlopsPerParameter = 10;
// Kept for backward per cell, batch row and hidden unit: 4 gate
// activations, c(t) and h(t) (h is the next cells' input, which the weight
// gradient reads).
constexpr double kKeptElementsPerUnit = 6;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
double as_double(uint64_t v) { return static_cast<double>(v); }

void check_tier(const NetworkTier& tier, std::string_view field, uint64_t ring) {
  if (ring <= 1) return;
  if (!(tier.bandwidth_bytes_per_s > 0) || !(tier.efficiency > 0) || !std::isfinite(tier.bandwidth_bytes_per_s)) {
    throw Error(fmt::format("lstm: {} '{}' has no usable bandwidth ({} B/s at efficiency {})", field, tier.name,
                            tier.bandwidth_bytes_per_s, tier.efficiency));
  }
  if (!(tier.latency_s >= 0) || !std::isfinite(tier.latency_s)) {
    throw Error(fmt::format("lstm: {} '{}': latency_s is {}", field, tier.name, tier.latency_s));
  }
  if (tier.size < ring) {
    throw Error(fmt::format("lstm: {} '{}' reaches {} devices, {} needed", field, tier.name, tier.size, ring));
  }
}

// One GEMM distributed as seed 004 §3.3 does a kernel-parallel node (the
// same split as predict/distributed_gemm.h, the batch already divided by dp).
struct SplitGemm {
  double compute_s = 0;
  double comm_s = 0;
  std::string_view bound;  // the roofline's: "compute" or a memory level
  [[nodiscard]] double time_s() const { return compute_s + comm_s; }
};

class GemmSplitter {
 public:
  GemmSplitter(const DeviceSpec& device, const ParallelismNotation& n, DType dtype, const NetworkTier& tier)
      : cache_(device, dtype), n_(n), bytes_(dtype_bytes(dtype)), tier_(tier) {}

  SplitGemm operator()(GemmShape s) {
    SplitGemm r;
    GemmShape local = s;
    if (n_.kind == KernelSplit::kRowColumn) {
      local = {ceil_div(s.m, n_.kp1), ceil_div(s.n, n_.kp2), s.k};
      // Each device's [M/KP1, N/KP2] block is gathered into whole rows.
      r.comm_s = all_gather_s(tier_, n_.kp2, as_double(local.m) * as_double(s.n) * bytes_);
    } else if (n_.kind == KernelSplit::kColumnRow) {
      local = {s.m, s.n, ceil_div(s.k, n_.kp1)};
      r.comm_s = all_reduce_s(tier_, n_.kp1, as_double(s.m) * as_double(s.n) * bytes_);
    }
    const GemmPrediction& p = cache_.get(local);
    r.compute_s = p.time_s;
    r.bound = p.bound;
    return r;
  }

  [[nodiscard]] CollectiveKind collective() const {
    if (n_.kind == KernelSplit::kRowColumn && n_.kp2 > 1) return CollectiveKind::kAllGather;
    return n_.kind == KernelSplit::kColumnRow && n_.kp1 > 1 ? CollectiveKind::kAllReduce : CollectiveKind::kNone;
  }
  // Bytes of the collective after a GEMM with `s`'s output, as timed above.
  [[nodiscard]] double comm_bytes(GemmShape s) const {
    const double rows = as_double(n_.kind == KernelSplit::kRowColumn ? ceil_div(s.m, n_.kp1) : s.m);
    return collective() == CollectiveKind::kNone ? 0.0 : rows * as_double(s.n) * bytes_;
  }
  // Output rows one device holds after the collective: RC keeps its row block.
  [[nodiscard]] uint64_t rows(uint64_t m) const { return n_.kind == KernelSplit::kRowColumn ? ceil_div(m, n_.kp1) : m; }
  // How many ways the weight matrices are sharded.
  [[nodiscard]] uint64_t weight_shards() const {
    if (n_.kind == KernelSplit::kRowColumn) return n_.kp2;
    return n_.kind == KernelSplit::kColumnRow ? n_.kp1 : 1;
  }

 private:
  GemmCache cache_;
  ParallelismNotation n_;
  double bytes_;
  const NetworkTier& tier_;
};

}  // namespace

void LstmModel::validate() const {
  auto check = [](std::string_view field, uint64_t v, uint64_t max) {
    if (v == 0) throw Error(fmt::format("lstm: {} is 0 (must be at least 1)", field));
    if (v > max) throw Error(fmt::format("lstm: {} is {} (at most {})", field, v, max));
  };
  check("hidden", hidden, kMaxDimension);
  check("vocab", vocab, kMaxDimension);
  check("batch", batch, kMaxDimension);
  check("layers", layers, kMaxCells);
  check("sequence", sequence, kMaxCells);
  if (layers * sequence > kMaxCells) {
    throw Error(fmt::format("lstm: layers {} x sequence {} = {} cells (at most {})", layers, sequence,
                            layers * sequence, kMaxCells));
  }
}

double LstmModel::layer_parameters() const {
  const double h = as_double(hidden);
  return 2 * h * 4 * h + 4 * h;
}

double LstmModel::projection_parameters() const { return as_double(hidden) * as_double(vocab) + as_double(vocab); }

double LstmModel::parameters() const {
  return as_double(layers) * layer_parameters() + projection_parameters();
}

uint64_t lstm_graph_kernels(const LstmModel& model, uint64_t stages, bool dp_allreduce) {
  return kLstmKernelsPerCell * model.layers * model.sequence + 5 + stages * (dp_allreduce ? 2 : 1);
}

LstmGraph build_lstm_graph(const LstmModel& model, uint32_t stages, const LstmKernelTimes& t,
                           uint32_t kernels_per_stage) {
  model.validate();
  if (stages == 0 || model.layers % stages != 0) {
    throw Error(fmt::format("lstm: layers {} do not split into lp {} pipeline stages", model.layers, stages));
  }
  if (t.optimizer_s.size() != stages) {
    throw Error(fmt::format("lstm: optimizer_s has {} entries for {} stages", t.optimizer_s.size(), stages));
  }
  if (t.dp_allreduce && t.dp_allreduce_s.size() != stages) {
    throw Error(fmt::format("lstm: dp_allreduce_s has {} entries for {} stages", t.dp_allreduce_s.size(), stages));
  }
  const uint64_t layers = model.layers, steps = model.sequence, per_stage = layers / stages;
  const size_t cells = layers * steps;
  auto stage_of = [&](uint64_t l) { return static_cast<uint32_t>(l / per_stage); };
  auto at = [&](uint64_t l, uint64_t step) { return l * steps + step; };
  const uint32_t last = stages - 1;

  LstmGraph out{ScheduleGraph(stages, kernels_per_stage), 0, 0};
  ScheduleGraph& g = out.graph;
  const size_t kernels = lstm_graph_kernels(model, stages, t.dp_allreduce);
  g.reserve(kernels, 6 * cells + steps + 2 * stages + 8, 20 * kernels);
  std::vector<uint32_t> gates(cells), dgrad(cells);
  // Per stage, the kernels its gradient all-reduce and weight update wait for.
  std::vector<std::vector<uint32_t>> grads(stages);
  uint32_t deps[2];

  // Forward, time-step major: the order a framework unrolls the recurrence,
  // and the priority among ready kernels of a stage.
  for (uint64_t step = 0; step < steps; ++step) {
    for (uint64_t l = 0; l < layers; ++l) {
      size_t n = 0;
      if (step > 0) deps[n++] = gates[at(l, step - 1)];  // h(t-1), c(t-1)
      if (l > 0) deps[n++] = gates[at(l - 1, step)];     // the layer below's h(t)
      const double transfer = l > 0 && stage_of(l - 1) != stage_of(l) ? t.transfer_s : 0.0;
      const uint32_t gemm = g.add(fmt::format("fwd gemm L{} t{}", l, step), stage_of(l), t.cell_forward_s,
                                  std::span<const uint32_t>(deps, n), transfer);
      gates[at(l, step)] = g.add(fmt::format("fwd gates L{} t{}", l, step), stage_of(l), t.gates_forward_s, {gemm});
    }
  }
  std::vector<uint32_t> outputs(steps);
  for (uint64_t step = 0; step < steps; ++step) outputs[step] = gates[at(layers - 1, step)];
  const uint32_t proj = g.add("proj fwd", last, t.projection_forward_s, outputs);
  const uint32_t softmax = g.add("softmax fwd", last, t.softmax_forward_s, {proj});
  out.backward_begin = softmax + 1;
  const uint32_t loss_grad = g.add("softmax bwd", last, t.softmax_backward_s, {softmax});
  const uint32_t proj_dgrad = g.add("proj dgrad", last, t.projection_data_grad_s, {loss_grad});
  grads[last] = {proj_dgrad, g.add("proj wgrad", last, t.projection_weight_grad_s, {loss_grad})};

  // Backward through time, last step and top layer first.
  for (uint64_t step = steps; step-- > 0;) {
    for (uint64_t l = layers; l-- > 0;) {
      size_t n = 0;
      deps[n++] = l + 1 == layers ? proj_dgrad : dgrad[at(l + 1, step)];  // dh(t) from above
      if (step + 1 < steps) deps[n++] = dgrad[at(l, step + 1)];           // dh, dc from t+1
      const double transfer = l + 1 < layers && stage_of(l + 1) != stage_of(l) ? t.transfer_s : 0.0;
      const uint32_t gb = g.add(fmt::format("bwd gates L{} t{}", l, step), stage_of(l), t.gates_backward_s,
                                std::span<const uint32_t>(deps, n), transfer);
      dgrad[at(l, step)] = g.add(fmt::format("bwd dgrad L{} t{}", l, step), stage_of(l), t.cell_data_grad_s, {gb});
      grads[stage_of(l)].push_back(
          g.add(fmt::format("bwd wgrad L{} t{}", l, step), stage_of(l), t.cell_weight_grad_s, {gb}));
      // The update must also wait for the last reader of the weights.
      if (step == 0) grads[stage_of(l)].push_back(dgrad[at(l, step)]);
    }
  }
  out.tail_begin = static_cast<uint32_t>(g.size());
  for (uint32_t s = 0; s < stages; ++s) {
    if (t.dp_allreduce) {
      const uint32_t ar = g.add(fmt::format("dp all-reduce stage {}", s), s, t.dp_allreduce_s[s], grads[s]);
      g.add(fmt::format("optimizer stage {}", s), s, t.optimizer_s[s], {ar});
    } else {
      g.add(fmt::format("optimizer stage {}", s), s, t.optimizer_s[s], grads[s]);
    }
  }
  return out;
}

LstmPrediction predict_lstm_training(const DeviceSpec& device, const LstmModel& model,
                                     const ParallelismNotation& notation, DType dtype, const NetworkTier& kernel_tier,
                                     const NetworkTier& pipeline_tier, const NetworkTier& data_tier,
                                     const LstmOptions& options) {
  model.validate();
  notation.validate();
  device.validate();
  if (model.layers % notation.lp != 0) {
    throw Error(fmt::format("lstm: layers {} do not split into lp {} pipeline stages", model.layers, notation.lp));
  }
  if (model.batch % notation.dp != 0) {
    throw Error(fmt::format("lstm: batch {} does not split into dp {} replicas", model.batch, notation.dp));
  }
  if (options.kernels_per_stage == 0) throw Error("lstm: kernels_per_stage is 0 (must be at least 1)");
  if (!(options.optimizer_bytes_per_parameter >= 0) || !std::isfinite(options.optimizer_bytes_per_parameter)) {
    throw Error(fmt::format("lstm: optimizer_bytes_per_parameter is {}", options.optimizer_bytes_per_parameter));
  }
  if (!(options.elementwise_backward_ratio >= 0) || !std::isfinite(options.elementwise_backward_ratio)) {
    throw Error(fmt::format("lstm: elementwise_backward_ratio is {}", options.elementwise_backward_ratio));
  }
  const uint64_t kernel_ring = notation.kind == KernelSplit::kRowColumn   ? notation.kp2
                               : notation.kind == KernelSplit::kColumnRow ? notation.kp1
                                                                          : 1;
  check_tier(kernel_tier, "kernel_tier", kernel_ring);
  check_tier(pipeline_tier, "pipeline_tier", notation.lp);
  check_tier(data_tier, "data_tier", notation.dp);

  const auto stages = static_cast<uint32_t>(notation.lp);
  const uint64_t h = model.hidden, v = model.vocab, seq = model.sequence;
  const uint64_t b = model.batch / notation.dp;
  const double e = dtype_bytes(dtype), ratio = options.elementwise_backward_ratio;
  GemmSplitter gemm(device, notation, dtype, kernel_tier);

  LstmPrediction r;
  r.replica_batch = b;
  r.rows_per_device = gemm.rows(b);
  r.stages = stages;
  const SplitGemm cell_fwd = gemm({b, 4 * h, 2 * h});
  const SplitGemm cell_dgrad = gemm({b, 2 * h, 4 * h});
  const SplitGemm cell_wgrad = gemm({2 * h, 4 * h, b});
  // One projection over all steps' outputs [b*S, H] rather than one per step:
  // the H x V matrix, the largest in the model, is then read once per pass.
  const SplitGemm proj_fwd = gemm({b * seq, v, h});
  const SplitGemm proj_dgrad = gemm({b * seq, h, v});
  const SplitGemm proj_wgrad = gemm({h, v, b * seq});

  const double rows = as_double(r.rows_per_device), proj_rows = as_double(gemm.rows(b * seq));
  const double hd = as_double(h), vd = as_double(v);
  LstmKernelTimes& t = r.times;
  t.cell_forward_s = cell_fwd.time_s();
  t.cell_data_grad_s = cell_dgrad.time_s();
  t.cell_weight_grad_s = cell_wgrad.time_s();
  t.projection_forward_s = proj_fwd.time_s();
  t.projection_data_grad_s = proj_dgrad.time_s();
  t.projection_weight_grad_s = proj_wgrad.time_s();
  const double gate_bytes = (kGateElementsPerUnit * rows * hd + 4 * hd) * e, gate_flops = kGateFlopsPerUnit * rows * hd;
  t.gates_forward_s = predict_streaming_s(device, gate_bytes, gate_flops);
  t.gates_backward_s = predict_streaming_s(device, gate_bytes * ratio, gate_flops * ratio);
  const double softmax_bytes = 2 * proj_rows * vd * e, softmax_flops = kSoftmaxFlopsPerLogit * proj_rows * vd;
  t.softmax_forward_s = predict_streaming_s(device, softmax_bytes, softmax_flops);
  t.softmax_backward_s = predict_streaming_s(device, softmax_bytes * ratio, softmax_flops * ratio);
  if (stages > 1) t.transfer_s = send_recv_s(pipeline_tier, rows * hd * e);
  t.dp_allreduce = notation.dp > 1;

  // Per stage: parameters on one device, then the tail kernels and memory.
  const double shards = as_double(gemm.weight_shards());
  const uint64_t per_stage = model.layers / stages;
  for (uint32_t s = 0; s < stages; ++s) {
    const bool last = s + 1 == stages;
    const double params =
        (as_double(per_stage) * model.layer_parameters() + (last ? model.projection_parameters() : 0)) / shards;
    const double grad_bytes = params * e;
    const double allreduce_s = t.dp_allreduce ? all_reduce_s(data_tier, notation.dp, grad_bytes) : 0.0;
    t.dp_allreduce_s.push_back(allreduce_s);
    t.optimizer_s.push_back(predict_streaming_s(device, params * options.optimizer_bytes_per_parameter,
                                                kOptimizerFlopsPerParameter * params));
    if (allreduce_s >= r.dp_allreduce_s) {
      r.dp_allreduce_s = allreduce_s;
      r.dp_allreduce_bytes = t.dp_allreduce ? grad_bytes : 0.0;
    }
    r.optimizer_s = std::max(r.optimizer_s, t.optimizer_s.back());

    MemoryFootprint m;
    m.weights_bytes = params * e;
    m.gradients_bytes = params * e;
    m.optimizer_bytes = 2 * params * e;  // the two Adam moments
    // Every cell's kept tensors plus the stage's input sequence (the
    // embedding output or the activations received from the stage before),
    // and on the last stage the softmax output the loss gradient reads.
    m.activations_bytes = (as_double(seq) * rows * hd * (kKeptElementsPerUnit * as_double(per_stage) + 1) +
                           (last ? proj_rows * vd : 0)) * e;
    m.total_bytes = m.weights_bytes + m.gradients_bytes + m.optimizer_bytes + m.activations_bytes;
    m.capacity_bytes = device.main_memory().capacity_bytes;
    m.fits = m.total_bytes <= m.capacity_bytes;
    if (s == 0 || m.total_bytes > r.memory.total_bytes) r.memory = m;
  }

  r.graph = build_lstm_graph(model, stages, t, options.kernels_per_stage);
  r.schedule = schedule_events(r.graph.graph);
  const ScheduleGraph& g = r.graph.graph;
  r.kernel_count = g.size();
  r.iteration_s = r.schedule.makespan_s;
  r.forward_s = r.schedule.finish_s[r.graph.backward_begin - 1];
  double backward_end_s = r.forward_s;
  for (uint32_t i = r.graph.backward_begin; i < r.graph.tail_begin; ++i) {
    backward_end_s = std::max(backward_end_s, r.schedule.finish_s[i]);
  }
  r.backward_s = backward_end_s - r.forward_s;

  const double cells = as_double(model.layers * seq);
  LstmKindTotals& k = r.totals;
  k.cell_gemm_s = cells * (cell_fwd.compute_s + cell_dgrad.compute_s + cell_wgrad.compute_s);
  k.gates_s = cells * (t.gates_forward_s + t.gates_backward_s);
  k.projection_s = proj_fwd.compute_s + proj_dgrad.compute_s + proj_wgrad.compute_s;
  k.softmax_s = t.softmax_forward_s + t.softmax_backward_s;
  k.kernel_collective_s = cells * (cell_fwd.comm_s + cell_dgrad.comm_s + cell_wgrad.comm_s) + proj_fwd.comm_s +
                          proj_dgrad.comm_s + proj_wgrad.comm_s;
  for (uint32_t s = 0; s < stages; ++s) {
    k.dp_allreduce_s += t.dp_allreduce_s[s];
    k.optimizer_s += t.optimizer_s[s];
  }
  for (uint32_t i = 0; i < g.size(); ++i) {
    for (uint32_t d : g.deps(i)) {
      if (g.stage(d) != g.stage(i)) k.transfer_s += g.transfer_in_s(i);
    }
  }

  const auto count = static_cast<uint64_t>(cells);
  const std::string memory(device.main_memory().name);
  auto row = [&](std::string name, KernelKind kind, std::string_view bound, double fwd, double bwd, uint64_t n) {
    r.kernels.push_back({{std::move(name), kind, std::string(bound), fwd, bwd, 0, CollectiveKind::kNone,
                          CollectiveKind::kNone, 0},
                         n});
  };
  row("cell gemm", KernelKind::kGemm, cell_fwd.bound, cell_fwd.compute_s, cell_dgrad.compute_s + cell_wgrad.compute_s,
      count);
  row("gates", KernelKind::kStream, memory, t.gates_forward_s, t.gates_backward_s, count);
  row("projection", KernelKind::kGemm, proj_fwd.bound, proj_fwd.compute_s,
      proj_dgrad.compute_s + proj_wgrad.compute_s, 1);
  row("softmax", KernelKind::kStream, memory, t.softmax_forward_s, t.softmax_backward_s, 1);
  if (gemm.collective() != CollectiveKind::kNone) {
    const std::string_view c = collective_kind_name(gemm.collective());
    row(fmt::format("cell gemm {}", c), KernelKind::kComm, kernel_tier.name, cell_fwd.comm_s,
        cell_dgrad.comm_s + cell_wgrad.comm_s, count);
    row(fmt::format("projection {}", c), KernelKind::kComm, kernel_tier.name, proj_fwd.comm_s,
        proj_dgrad.comm_s + proj_wgrad.comm_s, 1);
    for (size_t i = r.kernels.size() - 2; i < r.kernels.size(); ++i) {
      KernelTime& kt = r.kernels[i].time;
      kt.forward_collective = kt.backward_collective = gemm.collective();
    }
    r.kernels[r.kernels.size() - 2].time.comm_bytes = gemm.comm_bytes({b, 4 * h, 2 * h});
    r.kernels.back().time.comm_bytes = gemm.comm_bytes({b * seq, v, h});
  }
  return r;
}

}  // namespace snr::pathfind
