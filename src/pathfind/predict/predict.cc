#include "pathfind/predict/predict.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/error.h"
#include "pathfind/predict/system.h"

namespace snr::pathfind {
namespace {

// What one logical edge of each parallel dimension carries per iteration:
// only the ratios between dimensions matter, for ranking orderings.
std::array<double, kParallelDimCount> bytes_per_edge(const Workload& w, const Strategy& s) {
  std::array<double, kParallelDimCount> bytes{};
  const ParallelismNotation& n = s.notation;
  const double e = dtype_bytes(w.dtype);
  auto ring = [](uint64_t k) { return k > 1 ? 2.0 * static_cast<double>(k - 1) / static_cast<double>(k) : 0.0; };
  auto& row = bytes[index_of(ParallelDim::kKernelRow)];
  auto& col = bytes[index_of(ParallelDim::kKernelCol)];
  auto& pipe = bytes[index_of(ParallelDim::kPipeline)];
  auto& data = bytes[index_of(ParallelDim::kData)];
  if (w.kind == WorkloadKind::kGemm) {
    const double m = static_cast<double>(w.gemm.m) / static_cast<double>(n.dp);
    if (n.kind == KernelSplit::kColumnRow) row = ring(n.kp1) * m * static_cast<double>(w.gemm.n) * e;
    if (n.kind == KernelSplit::kRowColumn) {
      col = ring(n.kp2) / 2 * m / static_cast<double>(n.kp1) * static_cast<double>(w.gemm.n) * e;
    }
    return bytes;
  }
  if (w.kind == WorkloadKind::kLstm) {
    const LstmModel& l = w.lstm;
    const double rows = static_cast<double>(l.batch) / static_cast<double>(n.dp);
    const double steps = static_cast<double>(l.layers * l.sequence);
    const double gate_bytes = rows * 4.0 * static_cast<double>(l.hidden) * e;  // one cell's output per step
    if (n.kind == KernelSplit::kColumnRow) row = 3 * ring(n.kp1) * gate_bytes * steps;
    if (n.kind == KernelSplit::kRowColumn) col = 3 * ring(n.kp2) / 2 * gate_bytes / static_cast<double>(n.kp1) * steps;
    pipe = n.lp > 1 ? 2 * rows * static_cast<double>(l.sequence * l.hidden) * e : 0;
    data = ring(n.dp) * l.parameters() / static_cast<double>(n.kp1 * n.kp2) * e;
    return bytes;
  }
  const TransformerModel& t = w.model;
  const double tp = static_cast<double>(s.tensor_parallel());
  const double blocks = static_cast<double>(t.num_blocks) / static_cast<double>(n.lp);
  if (w.phase == WorkloadPhase::kTraining) {
    const double act = static_cast<double>(w.microbatch * t.seq_size * t.hidden) * e;
    const double micro = static_cast<double>(w.batch) / static_cast<double>(n.dp * w.microbatch);
    row = 4 * ring(s.tensor_parallel()) * act * blocks * micro;
    pipe = n.lp > 1 ? 2 * act / tp * micro : 0;
    data = ring(n.dp) * blocks * t.block_parameters() / tp * e;
  } else {
    const double tokens = static_cast<double>(w.batch / n.dp) *
                          static_cast<double>(w.phase == WorkloadPhase::kPrefill ? t.seq_size : 1);
    const double act = tokens * static_cast<double>(t.hidden) * e;
    row = 2 * ring(s.tensor_parallel()) * act * blocks;
    pipe = n.lp > 1 ? act : 0;
  }
  return bytes;
}

NetworkTier mapped_tier(const DeviceSpec& device, ParallelDim dim, uint64_t size, const DimensionTraffic& traffic) {
  NetworkTier none;
  none.name = "none";
  none.bandwidth_bytes_per_s = 1.0;
  const NetworkTier& base =
      device.network.empty() ? none : device.network[std::min(traffic.bottleneck_tier, device.network.size() - 1)];
  NetworkTier t = base;
  t.name = fmt::format("{}:{}", parallel_dim_name(dim), base.name);
  t.size = size;
  if (traffic.edges > 0) t.bandwidth_bytes_per_s = traffic.effective_bandwidth_bytes_per_s;
  return t;
}

std::string cause_of(const KernelTime& k) {
  if (k.kind == KernelKind::kComm) return "network:" + k.bound;
  return k.bound == "compute" ? "compute" : "memory:" + k.bound;
}

void add_cause(std::map<std::string, double>& causes, const std::string& cause, double seconds) {
  if (seconds > 0) causes[cause] += seconds;
}

// A kernel's `seconds` (all its phases, overhead_s included), `times`
// over, to its bound, but for the fixed per-kernel cost in them, which is a
// cause of its own: a small kernel's time is mostly launch, and the memory
// it reads would be the wrong thing to make faster.
constexpr std::string_view kOverheadCause = "kernel overhead";
void add_kernel_causes(std::map<std::string, double>& causes, const KernelTime& k, double seconds, double times) {
  const double overhead = std::min(seconds, k.overhead_s);
  add_cause(causes, std::string(kOverheadCause), overhead * times);
  add_cause(causes, cause_of(k), (seconds - overhead) * times);
}

}  // namespace

Prediction predict(const PredictInputs& in) {
  const Strategy& s = in.strategy;
  s.notation.validate();
  const Workload& w = in.workload;
  Prediction r;
  r.devices = s.devices();
  if (w.kind == WorkloadKind::kTransformer && s.notation.kind == KernelSplit::kRowColumn) {
    throw Error(fmt::format("parallelism {}: a transformer's tensor parallelism is Megatron's CR-{{TP}} (column- then "
                            "row-parallel GEMM pairs); write CR-{}-d{}-p{} or tp={}",
                            s.notation.to_string(), s.tensor_parallel(), s.notation.dp, s.notation.lp,
                            s.tensor_parallel()));
  }
  const age::ArchitectureTemplate* arch = in.arch ? &*in.arch : nullptr;
  SystemGraph system = build_system(in.device, arch, r.devices);
  const ParallelDims dims = parallel_dims(s.notation);
  const std::array<double, kParallelDimCount> bytes = bytes_per_edge(w, s);
  RoutingCache* cache = in.routing_cache;
  if (in.order && cache != nullptr && cache->system && cache->dims.size == dims.size &&
      cache->routed.order == *in.order && same_shape(*cache->system, system)) {
    r.mapping = DeviceMapper::score(cache->routed, system, bytes);
    r.orderings.emplace_back(order_name(*in.order), r.mapping.score_s);
  } else if (in.order) {
    const DeviceMapper mapper(dims, system);
    RoutedOrder routed = mapper.route(*in.order);
    r.mapping = DeviceMapper::score(routed, system, bytes);
    r.orderings.emplace_back(order_name(*in.order), r.mapping.score_s);
    if (cache != nullptr) *cache = {dims, system, std::move(routed)};
  } else {
    const DeviceMapper mapper(dims, system);
    OrderingSearch search = mapper.best_ordering(bytes);
    r.mapping = std::move(search.best);
    for (const Mapping& m : search.all) r.orderings.emplace_back(order_name(m.order), m.score_s);
  }
  r.system = system;
  DeviceSpec device = in.device;
  device.network.clear();
  for (ParallelDim dim : kAllParallelDims) {
    MappedDimension& md = r.dims[index_of(dim)];
    md.dim = dim;
    md.size = dims[dim];
    md.bytes_per_edge = bytes[index_of(dim)];
    md.traffic = r.mapping.dims[index_of(dim)];
    md.tier = mapped_tier(in.device, dim, md.size, md.traffic);
    device.network.push_back(md.tier);
  }

  std::map<std::string, double> causes;
  if (w.kind == WorkloadKind::kLstm) {
    if (s.interleave > 1 || s.sequence_parallel || s.recompute != Recompute::kNone || s.optimizer_sharding) {
      throw Error("parallelism: interleave, sp, recompute and zero1 are transformer options, not the LSTM's");
    }
    const bool rc = s.notation.kind == KernelSplit::kRowColumn;
    const NetworkTier& kernel = device.network[index_of(rc ? ParallelDim::kKernelCol : ParallelDim::kKernelRow)];
    const NetworkTier& pipe = device.network[index_of(ParallelDim::kPipeline)];
    const NetworkTier& data = device.network[index_of(ParallelDim::kData)];
    LstmPrediction l = predict_lstm_training(device, w.lstm, s.notation, w.dtype, kernel, pipe, data);
    r.time_name = "iteration";
    r.time_s = l.iteration_s;
    r.memory = l.memory;
    for (const LstmKernel& k : l.kernels) r.kernels.push_back(k.time);
    // The critical path of the schedule, kernel by kernel, so the causes sum
    // to the iteration even where stages overlap.
    std::string gemm_bound = "compute", projection_bound = "compute";
    for (const LstmKernel& k : l.kernels) {
      if (k.time.name == "cell gemm") gemm_bound = k.time.bound;
      if (k.time.name == "projection") projection_bound = k.time.bound;
    }
    auto bound_cause = [&](const std::string& bound) { return bound == "compute" ? bound : "memory:" + bound; };
    for (const CriticalStep& step : l.schedule.critical_path) {
      const std::string_view name = l.graph.graph.name(step.kernel);
      std::string cause;
      if (name.starts_with("proj")) cause = bound_cause(projection_bound);
      else if (name.find("gemm") != std::string_view::npos || name.find("grad") != std::string_view::npos) {
        cause = bound_cause(gemm_bound);
      } else if (name.starts_with("dp all-reduce")) cause = "network:" + data.name;
      else if (name.starts_with("optimizer")) cause = "memory:" + device.main_memory().name + " (optimizer)";
      else cause = "memory:" + device.main_memory().name;
      add_cause(causes, cause, l.graph.graph.duration_s(step.kernel));
      add_cause(causes, "network:" + pipe.name, step.gap_s);
    }
    r.lstm = std::move(l);
  } else if (w.kind == WorkloadKind::kGemm) {
    r.time_name = "gemm";
    r.gemm = predict_distributed_gemm(device, w.gemm, s.notation, w.dtype, &device.network[0], &device.network[1]);
    const GemmPrediction& k = r.gemm->kernel;
    r.kernels.push_back({"gemm", KernelKind::kGemm, std::string(k.bound), k.time_s, 0, 0, CollectiveKind::kNone,
                         CollectiveKind::kNone, 0, device.kernel_overhead_s});
    if (r.gemm->collective != CollectiveKind::kNone) {
      size_t tier = r.gemm->collective == CollectiveKind::kAllReduce ? 0 : 1;
      r.kernels.push_back({std::string(collective_kind_name(r.gemm->collective)), KernelKind::kComm,
                           device.network[tier].name, r.gemm->comm_s, 0, 0, r.gemm->collective, CollectiveKind::kNone,
                           r.gemm->comm_bytes, 0});
    }
    for (const KernelTime& kt : r.kernels) add_kernel_causes(causes, kt, kt.forward_s, 1);
    r.time_s = r.gemm->time_s;
    const double e = dtype_bytes(w.dtype);
    const GemmShape& l = r.gemm->local;
    r.memory.weights_bytes = static_cast<double>(l.k * l.n) * e;
    r.memory.activations_bytes = static_cast<double>(l.m * l.k + l.m * w.gemm.n) * e;
    r.memory.total_bytes = r.memory.weights_bytes + r.memory.activations_bytes;
    r.memory.capacity_bytes = device.main_memory().capacity_bytes;
    r.memory.fits = r.memory.total_bytes <= r.memory.capacity_bytes;
  } else {
    Parallelism par;
    par.devices = r.devices;
    par.tp = s.tensor_parallel();
    par.pp = s.notation.lp;
    par.dp = s.notation.dp;
    par.interleave = s.interleave;
    par.sequence_parallel = s.sequence_parallel;
    // Calculon accepts rs_ag with tensor_par 1 the same way: no group to
    // scatter over, so the block is the one without sequence parallelism.
    if (s.sequence_parallel && par.tp == 1) {
      r.notes.push_back("sp with tp=1: there is no tensor-parallel group to split the sequence over, so sequence "
                        "parallelism changes nothing (modelled as without sp)");
    }
    par.recompute = s.recompute;
    par.optimizer_sharding = s.optimizer_sharding;
    par.tp_tier = index_of(ParallelDim::kKernelRow);
    par.pp_tier = index_of(ParallelDim::kPipeline);
    par.dp_tier = index_of(ParallelDim::kData);
    if (w.phase == WorkloadPhase::kTraining) {
      r.time_name = "iteration";
      IterationPrediction it =
          predict_training_iteration(device, w.model, par, TrainingJob{w.batch, w.microbatch, w.dtype, true});
      const double blocks = static_cast<double>(it.blocks_per_device);
      const double micro = static_cast<double>(it.microbatches);
      for (const KernelTime& k : it.kernels) {
        add_kernel_causes(causes, k, k.forward_s + k.backward_s + k.recompute_s, blocks * micro);
      }
      for (const KernelTime& k : it.head_kernels) add_kernel_causes(causes, k, k.forward_s + k.backward_s, micro);
      add_cause(causes, "network:" + device.network[par.pp_tier].name, it.pipeline_p2p_s * micro);
      add_cause(causes, "pipeline bubble", it.bubble_s);
      add_cause(causes, "network:" + device.network[par.dp_tier].name, it.dp_allreduce_s);
      add_cause(causes, "memory:" + device.main_memory().name + " (optimizer)", it.optimizer_s);
      r.time_s = it.iteration_s;
      r.mfu = it.mfu;
      r.kernels = it.kernels;
      r.head_kernels = it.head_kernels;
      r.memory = it.memory;
      r.training = std::move(it);
    } else {
      r.time_name = w.phase == WorkloadPhase::kPrefill ? "prefill step" : "decode step";
      InferenceJob job{w.phase == WorkloadPhase::kPrefill ? InferencePhase::kPrefill : InferencePhase::kDecode,
                       w.batch, w.model.seq_size, w.context, w.dtype};
      InferencePrediction inf = predict_inference(device, w.model, par, job);
      const double blocks = static_cast<double>(inf.blocks_per_device * par.pp);
      for (const KernelTime& k : inf.kernels) add_kernel_causes(causes, k, k.forward_s, blocks);
      for (const KernelTime& k : inf.head_kernels) add_kernel_causes(causes, k, k.forward_s, 1);
      add_cause(causes, "network:" + device.network[par.pp_tier].name,
                inf.pipeline_p2p_s * static_cast<double>(par.pp - 1));
      r.time_s = inf.step_s;
      r.tokens_per_s = inf.tokens_per_s;
      r.kernels = inf.kernels;
      r.head_kernels = inf.head_kernels;
      r.memory = inf.memory;
      r.inference = std::move(inf);
    }
  }
  for (const auto& [cause, seconds] : causes) r.causes.push_back({cause, seconds});
  std::stable_sort(r.causes.begin(), r.causes.end(),
                   [](const TimeCause& a, const TimeCause& b) { return a.seconds > b.seconds; });
  double total = 0;
  for (const TimeCause& c : r.causes) total += c.seconds;
  if (!r.causes.empty() && total > 0) {
    r.bottleneck = fmt::format("{} ({:.0f}% of the {})", r.causes.front().cause,
                               100 * r.causes.front().seconds / total, r.time_name);
  }
  return r;
}

}  // namespace snr::pathfind
