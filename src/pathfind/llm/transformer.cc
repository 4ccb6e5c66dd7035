#include "pathfind/llm/transformer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "common/error.h"
#include "pathfind/roofline/gemm.h"
#include "pathfind/roofline/gemm_cache.h"

namespace snr::pathfind {

std::string_view recompute_name(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kFull: return "full";
    case Recompute::kSelective: return "selective";
  }
  return "?";
}

std::string_view collective_kind_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kNone: return "";
    case CollectiveKind::kAllReduce: return "all_reduce";
    case CollectiveKind::kAllGather: return "all_gather";
    case CollectiveKind::kReduceScatter: return "reduce_scatter";
  }
  return "?";
}

std::string_view kernel_kind_name(KernelKind kind) {
  switch (kind) {
    case KernelKind::kGemm: return "gemm";
    case KernelKind::kStream: return "stream";
    case KernelKind::kComm: return "comm";
  }
  return "?";
}

void TransformerModel::validate() const {
  auto need = [&](uint64_t v, std::string_view field) {
    if (v == 0 || v > (1ull << 24)) throw Error(fmt::format("model '{}': {} must be in [1, 2^24], got {}", name, field, v));
  };
  need(hidden, "hidden");
  need(feedforward, "feedforward");
  need(seq_size, "seq_size");
  need(attn_heads, "attn_heads");
  need(attn_size, "attn_size");
  need(num_blocks, "num_blocks");
  if (vocab_size > (1ull << 24)) throw Error(fmt::format("model '{}': vocab_size must be at most 2^24", name));
  if (kv_heads > attn_heads || (kv_heads > 0 && attn_heads % kv_heads != 0)) {
    throw Error(fmt::format("model '{}': kv_heads {} must divide attn_heads {}", name, kv_heads, attn_heads));
  }
}

double TransformerModel::block_parameters() const {
  const double h = static_cast<double>(hidden), f = static_cast<double>(feedforward);
  const double ah = static_cast<double>(attn_heads * attn_size);
  const double qkv = ah + 2.0 * static_cast<double>(key_value_heads() * attn_size);
  const double up = gated_mlp ? 2.0 : 1.0;  // matrices before the activation
  const double weights = h * qkv + ah * h + up * h * f + f * h;
  double bias = 0;
  if (biases != LinearBiases::kNone) bias += qkv;
  if (biases == LinearBiases::kAll) bias += h + up * f + h;
  return weights + bias + 2 * norm_parameters();
}

double TransformerModel::total_parameters() const {
  const double embeddings = (tied_embeddings ? 1.0 : 2.0) * static_cast<double>(vocab_size * hidden);
  return static_cast<double>(num_blocks) * block_parameters() + embeddings + norm_parameters();
}

void Parallelism::validate(const TransformerModel& model, const DeviceSpec& device) const {
  const ParallelismNames& n = names;
  auto fail = [&](std::string_view field, const std::string& why) {
    throw Error(fmt::format("{}: {}: {}", n.where, field, why));
  };
  if (tp == 0) fail(n.tp, "must be positive");
  if (pp == 0) fail(n.pp, "must be positive");
  if (dp == 0) fail(n.dp, "must be positive");
  if (interleave == 0) fail(n.interleave, "must be positive");
  if (tp * pp * dp != devices) {
    fail(n.devices, fmt::format("{} {} x {} {} x {} {} = {} differs from the device count {}", n.tp, tp, n.pp, pp,
                                n.dp, dp, tp * pp * dp, devices));
  }
  if (model.num_blocks % (pp * interleave) != 0) {
    fail(n.pp, fmt::format("{} blocks do not split into {} {} x {} {} stages", model.num_blocks, n.pp, pp,
                           n.interleave, interleave));
  }
  if (interleave > 1 && pp == 1) fail(n.interleave, fmt::format("needs pipeline parallelism ({} > 1)", n.pp));
  if (model.attn_heads % tp != 0) fail(n.tp, fmt::format("{} attention heads do not split {} ways", model.attn_heads, tp));
  if (model.feedforward % tp != 0) fail(n.tp, fmt::format("feedforward {} does not split {} ways", model.feedforward, tp));
  if (sequence_parallel && model.seq_size % tp != 0) {
    fail(n.sequence_parallel, fmt::format("sequence length {} must split {} {} ways", model.seq_size, n.tp, tp));
  }
  if (redo_all_gather && !sequence_parallel) fail(n.redo_all_gather, "needs sequence parallelism");
  struct Dim {
    const std::string& name;
    uint64_t degree;
    size_t tier;
    const std::string& tier_field;
  };
  const std::array<Dim, 3> dims{{{n.tp, tp, tp_tier, n.tp_tier}, {n.pp, pp, pp_tier, n.pp_tier},
                                 {n.dp, dp, dp_tier, n.dp_tier}}};
  for (const Dim& d : dims) {
    if (d.degree == 1) continue;
    if (d.tier >= device.network.size()) {
      fail(d.tier_field, fmt::format("network tier {} does not exist on device '{}' ({} tiers)", d.tier, device.name,
                                     device.network.size()));
    }
    if (device.network[d.tier].size < d.degree) {
      fail(d.tier_field, fmt::format("tier {} ('{}') reaches {} devices, {} {} needs {}", d.tier,
                                     device.network[d.tier].name, device.network[d.tier].size, d.name, d.degree,
                                     d.degree));
    }
  }
  // Dimensions that share a tier nest inside it: tp 8 and pp 8 both on an
  // 8-GPU NVLink board would need 64 GPUs on that board (Calculon's
  // _check_network_assignments refuses the same).
  for (size_t index = 0; index < device.network.size(); ++index) {
    uint64_t needed = 1;
    std::string parts, fields;
    for (const Dim& d : dims) {
      if (d.degree == 1 || d.tier != index) continue;
      needed *= d.degree;
      parts += fmt::format("{}{} {}", parts.empty() ? "" : " x ", d.name, d.degree);
      fields += fmt::format("{}{}", fields.empty() ? "" : " and ", d.tier_field);
    }
    if (needed > device.network[index].size) {
      fail(fields, fmt::format("{} share tier {} ('{}'), which reaches {} devices, {} needed; put one of them on "
                               "another tier",
                               parts, index, device.network[index].name, device.network[index].size, needed));
    }
  }
}

namespace {

// NetworkTier's cost: once per operation, per step, and the traffic.
double operation_s(const NetworkTier& tier, const TrafficFactor& traffic, uint64_t n, double steps, double bytes) {
  return tier.operation_latency_s + steps * tier.latency_s +
         traffic.of(n) * bytes / (tier.bandwidth_bytes_per_s * tier.efficiency);
}

}  // namespace

double all_reduce_s(const NetworkTier& tier, uint64_t n, double bytes) {
  if (n <= 1) return 0;
  return operation_s(tier, tier.traffic.all_reduce, n, 2.0 * static_cast<double>(n - 1), bytes);
}

double reduce_scatter_s(const NetworkTier& tier, uint64_t n, double bytes) {
  if (n <= 1) return 0;
  return operation_s(tier, tier.traffic.reduce_scatter, n, static_cast<double>(n - 1), bytes);
}

double all_gather_s(const NetworkTier& tier, uint64_t n, double bytes) {
  if (n <= 1) return 0;
  return operation_s(tier, tier.traffic.all_gather, n, static_cast<double>(n - 1), bytes);
}

double send_recv_s(const NetworkTier& tier, double bytes) { return operation_s(tier, tier.traffic.p2p, 2, 1, bytes); }

namespace {

struct BlockBuilder {
  const DeviceSpec& device;
  GemmCache& gemms;
  const IterationConstants& constants;
  const Parallelism& par;
  std::vector<KernelTime>& out;

  KernelTime& add(std::string name, KernelKind kind) {
    out.push_back(KernelTime{std::move(name), kind, "", 0, 0, 0, CollectiveKind::kNone, CollectiveKind::kNone, 0, 0});
    return out.back();
  }

  void gemm(std::string name, GemmShape fwd, GemmShape bwd1, GemmShape bwd2, bool recomputed) {
    const GemmPrediction& f = gemms.get(fwd);
    KernelTime& k = add(std::move(name), KernelKind::kGemm);
    k.bound = std::string(f.bound);
    k.forward_s = f.time_s;
    k.backward_s = gemms.get(bwd1).time_s + gemms.get(bwd2).time_s;
    if (recomputed) k.recompute_s = f.time_s;
    k.overhead_s = device.kernel_overhead_s * (recomputed ? 4 : 3);  // forward, two backward, recompute
  }

  void stream(std::string name, double bytes, double flops, bool recomputed) {
    KernelTime& k = add(std::move(name), KernelKind::kStream);
    k.forward_s = predict_streaming_s(device, bytes, flops);
    k.bound = device.main_memory().name;
    double b = bytes * constants.elementwise_backward_ratio;
    k.backward_s = predict_streaming_s(device, b, flops * constants.elementwise_backward_ratio);
    if (recomputed) k.recompute_s = k.forward_s;
    k.overhead_s = device.kernel_overhead_s * (recomputed ? 3 : 2);
  }

  // Forward collective and its backward counterpart (all-reduce <-> identity,
  // reduce-scatter <-> all-gather).
  void comm(std::string name, double forward_s, double backward_s, bool recomputed, CollectiveKind forward,
            CollectiveKind backward, double bytes) {
    KernelTime& k = add(std::move(name), KernelKind::kComm);
    k.bound = device.network[par.tp_tier].name;
    k.forward_s = forward_s;
    k.backward_s = backward_s;
    if (recomputed) k.recompute_s = forward_s;
    k.forward_collective = forward;
    k.backward_collective = backward;
    k.comm_bytes = bytes;
  }
};

}  // namespace

IterationPrediction predict_training_iteration(const DeviceSpec& base_device, const TransformerModel& model,
                                               const Parallelism& par, const TrainingJob& job,
                                               const IterationConstants& constants) {
  if (!(constants.sustained_compute_fraction > 0 && constants.sustained_compute_fraction <= 1)) {
    throw Error("iteration constants: sustained_compute_fraction must be in (0, 1]");
  }
  DeviceSpec device = base_device;
  device.max_utilization *= constants.sustained_compute_fraction;
  model.validate();
  par.validate(model, device);
  if (job.microbatch == 0 || job.global_batch == 0) throw Error("training job: batch sizes must be positive");
  if (job.global_batch % (par.dp * job.microbatch) != 0) {
    throw Error(fmt::format("training job: global batch {} is not a multiple of dp {} x microbatch {}",
                            job.global_batch, par.dp, job.microbatch));
  }
  IterationPrediction r;
  const uint64_t t = par.tp;
  // Grouped-query attention: Megatron splits the key/value groups over the
  // tensor-parallel ranks and refuses fewer groups than ranks.
  if (model.key_value_heads() % t != 0) {
    throw Error(fmt::format("{}: {}: {} key/value heads do not split {} ways (training splits them; inference "
                            "replicates them)",
                            par.names.where, par.names.tp, model.key_value_heads(), t));
  }
  const uint64_t b = job.microbatch, s = model.seq_size, h = model.hidden, f = model.feedforward;
  const uint64_t ah = model.attn_heads * model.attn_size, d = model.attn_size;
  const uint64_t qkv = ah + 2 * model.key_value_heads() * d;  // the query, key and value projections' width
  const uint64_t tokens = b * s;
  const uint64_t heads_batch = b * model.attn_heads / t;  // attention matrices per device
  const double e = dtype_bytes(job.dtype);
  const double sp_div = par.sequence_parallel ? static_cast<double>(t) : 1.0;
  const double act_bytes = static_cast<double>(tokens * h) * e;  // one [b, s, h] tensor
  const double score_elems = static_cast<double>(heads_batch * s * s);
  const bool full = par.recompute == Recompute::kFull;
  const bool sel = par.recompute == Recompute::kSelective || full;
  const NetworkTier* tp_net = t > 1 ? &device.network[par.tp_tier] : nullptr;

  GemmCache gemms(device, job.dtype);
  r.kernels.reserve(20);
  BlockBuilder blk{device, gemms, constants, par, r.kernels};

  // Tensor-parallel boundaries: without sequence parallelism the row-parallel
  // output is all-reduced and the column-parallel input's gradient is
  // all-reduced in backward; with it, reduce-scatter / all-gather pairs.
  auto tp_enter = [&](std::string name) {
    if (!tp_net) return;
    if (par.sequence_parallel) {
      double ag = all_gather_s(*tp_net, t, act_bytes);
      double rs = reduce_scatter_s(*tp_net, t, act_bytes);
      blk.comm(std::move(name) + ".all_gather", ag, rs + (par.redo_all_gather ? ag : 0), full,
               CollectiveKind::kAllGather, CollectiveKind::kReduceScatter, act_bytes);
    } else {
      blk.comm(std::move(name) + ".identity_fwd_all_reduce_bwd", 0, all_reduce_s(*tp_net, t, act_bytes), full,
               CollectiveKind::kNone, CollectiveKind::kAllReduce, act_bytes);
    }
  };
  auto tp_exit = [&](std::string name) {
    if (!tp_net) return;
    if (par.sequence_parallel) {
      blk.comm(std::move(name) + ".reduce_scatter", reduce_scatter_s(*tp_net, t, act_bytes),
               all_gather_s(*tp_net, t, act_bytes), full, CollectiveKind::kReduceScatter, CollectiveKind::kAllGather,
               act_bytes);
    } else {
      blk.comm(std::move(name) + ".all_reduce", all_reduce_s(*tp_net, t, act_bytes), 0, full,
               CollectiveKind::kAllReduce, CollectiveKind::kNone, act_bytes);
    }
  };
  const double norm_bytes = 2 * act_bytes / sp_div;
  const double norm_flops = 8.0 * static_cast<double>(tokens * h) / sp_div;
  const double dropres_bytes = act_bytes / sp_div * (3 + 1 / e);  // two reads, one write, a 1-byte mask

  blk.stream("attn.layernorm", norm_bytes, norm_flops, full);
  tp_enter("attn.in");
  blk.gemm("attn.qkv", {tokens, qkv / t, h}, {tokens, h, qkv / t}, {h, qkv / t, tokens}, full);
  blk.gemm("attn.scores", {heads_batch * s, s, d}, {heads_batch * s, d, s}, {heads_batch * s, d, s}, sel);
  blk.stream("attn.softmax", 2 * score_elems * e, 5 * score_elems, sel);
  blk.stream("attn.dropout", score_elems * (2 * e + 1), score_elems, sel);
  blk.gemm("attn.context", {heads_batch * s, d, s}, {heads_batch * s, s, d}, {heads_batch * s, d, s}, sel);
  blk.gemm("attn.proj", {tokens, h, ah / t}, {tokens, ah / t, h}, {ah / t, h, tokens}, full);
  tp_exit("attn.out");
  blk.stream("attn.dropout_residual", dropres_bytes, 2.0 * static_cast<double>(tokens * h) / sp_div, full);
  blk.stream("mlp.layernorm", norm_bytes, norm_flops, full);
  tp_enter("mlp.in");
  const uint64_t up = model.gated_mlp ? 2 : 1;  // gate and up projections side by side
  blk.gemm("mlp.fc1", {tokens, up * f / t, h}, {tokens, h, up * f / t}, {h, up * f / t, tokens}, full);
  blk.stream(model.gated_mlp ? "mlp.silu_mul" : "mlp.gelu", static_cast<double>((up + 1) * tokens * f / t) * e,
             8.0 * static_cast<double>(tokens * f / t), full);
  blk.gemm("mlp.fc2", {tokens, h, f / t}, {tokens, f / t, h}, {f / t, h, tokens}, full);
  tp_exit("mlp.out");
  blk.stream("mlp.dropout_residual", dropres_bytes, 2.0 * static_cast<double>(tokens * h) / sp_div, full);

  // Forward matrix flops of one block (model flops, no recompute).
  const double gemm_flops_fwd =
      2.0 * static_cast<double>(tokens) *
          (static_cast<double>(qkv / t * h) + ah / t * h + (1.0 + static_cast<double>(up)) * f / t * h) +
      2.0 * 2.0 * static_cast<double>(heads_batch * s * s * d);
  // Inference is the forward pass alone: no backward, recompute, gradient
  // all-reduce or optimizer step (Calculon's "training": false).
  const auto forward_only = [&](std::vector<KernelTime>& kernels) {
    for (KernelTime& k : kernels) {
      k.backward_s = k.recompute_s = 0;
      k.backward_collective = CollectiveKind::kNone;
      if (k.overhead_s > 0) k.overhead_s = device.kernel_overhead_s;  // the forward launch alone
    }
  };
  if (!job.training) forward_only(r.kernels);
  for (const KernelTime& k : r.kernels) {
    r.block_forward_s += k.forward_s;
    r.block_backward_s += k.backward_s + k.recompute_s;
  }

  // Output layer and loss on the last stage: logits GEMM split over TP, a
  // 32-bit softmax cross-entropy over the local vocabulary shard.
  double head_gemm_flops_fwd = 0;
  if (model.vocab_size > 0) {
    if (model.vocab_size % t != 0) throw Error(fmt::format("model '{}': vocab_size must split tp {} ways", model.name, t));
    const uint64_t vt = model.vocab_size / t;
    BlockBuilder head{device, gemms, constants, par, r.head_kernels};
    head.gemm("head.logits", {tokens, vt, h}, {tokens, h, vt}, {h, vt, tokens}, false);
    head_gemm_flops_fwd = 2.0 * static_cast<double>(tokens * vt * h);
    const double logits = static_cast<double>(tokens * vt);
    head.stream("head.cross_entropy", logits * (e + 4 + 4), 5 * logits, false);
    if (!job.training) forward_only(r.head_kernels);
    for (const KernelTime& k : r.head_kernels) r.head_s += k.forward_s + k.backward_s;
  }

  // Pipeline: m microbatches, p stages of v chunks each.
  const uint64_t p = par.pp, v = par.interleave;
  r.microbatches = job.global_batch / (par.dp * job.microbatch);
  r.blocks_per_device = model.num_blocks / p;
  const double blocks = static_cast<double>(r.blocks_per_device);
  if (p > 1) {
    // Megatron splits the boundary tensor over the TP ranks (scatter-gather).
    double msg = act_bytes / static_cast<double>(t);
    r.pipeline_message_bytes = msg;
    // Each chunk boundary once forward and, in training, once backward.
    const double crossings = (job.training ? 2.0 : 1.0) * static_cast<double>(v);
    r.pipeline_p2p_s = crossings * send_recv_s(device.network[par.pp_tier], msg);
  }
  // The last stage also runs the output layer: the slowest stage sets the pace.
  const double per_microbatch_s = blocks * (r.block_forward_s + r.block_backward_s) + r.pipeline_p2p_s + r.head_s;
  const double m = static_cast<double>(r.microbatches);
  r.bubble_s = static_cast<double>(p - 1) / static_cast<double>(v) * per_microbatch_s;
  r.pipeline_s = m * per_microbatch_s + r.bubble_s;

  // Weights, gradients, optimizer.
  // Blocks of one stage plus the embedding or output layer it holds.
  const double params_dev = (blocks * model.block_parameters() + model.embedding_parameters_per_stage(p)) /
                            static_cast<double>(t);
  r.dp_allreduce_bytes = job.training ? params_dev * e : 0;  // gradients exist in training only
  if (par.dp > 1 && job.training) {
    r.dp_allreduce_s = all_reduce_s(device.network[par.dp_tier], par.dp, r.dp_allreduce_bytes);
  }
  const double opt_share = par.optimizer_sharding ? static_cast<double>(par.dp) : 1.0;
  if (job.training) {
    r.optimizer_s = predict_streaming_s(device, params_dev * constants.optimizer_bytes_per_parameter / opt_share,
                                        10.0 * params_dev / opt_share);
  }
  r.iteration_s = r.pipeline_s + r.dp_allreduce_s + r.optimizer_s;

  // Model flops: forward, and in training a backward of twice the forward;
  // the output layer's once per microbatch on the last of the p stages, so
  // a device's share is 1/p of it (Korthikanti et al. 2022's count, the
  // 6·B·s·h·V term).
  r.model_flops_per_device = (job.training ? 3.0 : 1.0) *
                             (gemm_flops_fwd * blocks + head_gemm_flops_fwd / static_cast<double>(p)) * m;
  r.mfu = r.model_flops_per_device / (r.iteration_s * device.peak_flops_per_s(job.dtype));

  // Memory (Korthikanti et al. 2022, Table 2 and section 4.2).
  MemoryFootprint& mem = r.memory;
  mem.weights_bytes = params_dev * e;
  mem.gradients_bytes = params_dev * e;
  mem.optimizer_bytes = params_dev * 12.0 / opt_share;  // fp32 master, Adam m and v
  const double sbh = static_cast<double>(tokens * h);
  const double as_h = static_cast<double>(model.attn_heads * s) / static_cast<double>(h);
  const double td = static_cast<double>(t);
  double per_block = 0;
  // Table 2's 34 and 24 include the MLP activation's input, 2·sbh·(f/h)/t
  // bytes (8sbh/t at f = 4h); a fused activation keeps none.
  const double fused_saving = par.fused_activation ? 2 * sbh * static_cast<double>(f) / static_cast<double>(h) / td : 0;
  double working_block =
      (par.sequence_parallel ? sbh / td * (34 + 5 * as_h) : sbh * (10 + 24 / td + 5 * as_h / td)) - fused_saving;
  switch (par.recompute) {
    case Recompute::kNone: per_block = working_block; break;
    case Recompute::kSelective:
      per_block = (par.sequence_parallel ? sbh * 34 / td : sbh * (10 + 24 / td)) - fused_saving;
      break;
    case Recompute::kFull: per_block = 2 * sbh / sp_div; break;
  }
  double in_flight = static_cast<double>(std::min<uint64_t>(p, r.microbatches));
  if (v > 1) in_flight *= 1 + static_cast<double>(p - 1) / static_cast<double>(p * v);
  mem.activations_bytes = per_block * blocks * in_flight + (full ? working_block : 0);
  if (!job.training) {
    mem.gradients_bytes = mem.optimizer_bytes = 0;
    mem.activations_bytes = working_block;
  }
  mem.total_bytes = mem.weights_bytes + mem.gradients_bytes + mem.optimizer_bytes + mem.activations_bytes;
  mem.capacity_bytes = device.main_memory().capacity_bytes;
  mem.fits = mem.total_bytes <= mem.capacity_bytes;
  return r;
}

}  // namespace snr::pathfind
