#include "pathfind/llm/inference.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"
#include "pathfind/roofline/gemm_cache.h"

namespace snr::pathfind {

std::string_view inference_phase_name(InferencePhase phase) {
  return phase == InferencePhase::kPrefill ? "prefill" : "decode";
}

namespace {

struct ForwardBuilder {
  const DeviceSpec& device;
  GemmCache& gemms;
  std::vector<KernelTime>& out;

  void gemm(std::string name, GemmShape shape) {
    const GemmPrediction& p = gemms.get(shape);
    out.push_back({std::move(name), KernelKind::kGemm, std::string(p.bound), p.time_s, 0, 0, CollectiveKind::kNone,
                   CollectiveKind::kNone, 0, device.kernel_overhead_s});
  }
  void stream(std::string name, double bytes, double flops) {
    out.push_back({std::move(name), KernelKind::kStream, device.main_memory().name,
                   predict_streaming_s(device, bytes, flops), 0, 0, CollectiveKind::kNone, CollectiveKind::kNone, 0,
                   device.kernel_overhead_s});
  }
  void comm(std::string name, const NetworkTier& tier, double seconds, CollectiveKind collective, double bytes) {
    out.push_back({std::move(name), KernelKind::kComm, tier.name, seconds, 0, 0, collective, CollectiveKind::kNone,
                   bytes, 0});
  }
};

}  // namespace

InferencePrediction predict_inference(const DeviceSpec& device, const TransformerModel& model, const Parallelism& par,
                                      const InferenceJob& job) {
  model.validate();
  par.validate(model, device);
  auto fail = [](std::string_view field, const std::string& why) {
    throw Error(fmt::format("inference: {}: {}", field, why));
  };
  if (par.recompute != Recompute::kNone || par.sequence_parallel || par.interleave != 1 || par.optimizer_sharding) {
    fail("parallelism", "recompute, sequence parallelism, interleaving and optimizer sharding (zero1) are training "
                        "options");
  }
  if (job.batch == 0 || job.batch % par.dp != 0) {
    fail("batch", fmt::format("{} sequences do not split over dp {}", job.batch, par.dp));
  }
  if (job.phase == InferencePhase::kPrefill && job.prompt == 0) fail("sequence", "a prefill needs a prompt");
  if (job.prompt > (1ull << 24) || job.context > (1ull << 30)) fail("sequence/context", "out of range");
  const uint64_t t = par.tp;
  const uint64_t kvh = model.key_value_heads();
  if (kvh % t != 0 && t % kvh != 0) {
    fail("tp", fmt::format("{} key/value heads neither split {} ways nor replicate evenly", kvh, t));
  }
  const uint64_t kv_dev = kvh % t == 0 ? kvh / t : 1;  // replicated when there are fewer heads than ranks
  const uint64_t b = job.batch / par.dp;
  const bool prefill = job.phase == InferencePhase::kPrefill;
  const uint64_t s = prefill ? job.prompt : 1;  // new tokens per sequence
  const uint64_t tokens = b * s;
  const uint64_t h = model.hidden, f = model.feedforward, d = model.attn_size;
  const uint64_t q_dev = model.attn_heads / t;
  const double e = dtype_bytes(job.dtype);
  const double th = static_cast<double>(tokens * h);

  InferencePrediction r;
  r.sequences_per_replica = b;
  GemmCache gemms(device, job.dtype);
  ForwardBuilder blk{device, gemms, r.kernels};
  const NetworkTier* tp_net = t > 1 ? &device.network[par.tp_tier] : nullptr;

  blk.stream("attn.layernorm", 2 * th * e, 8 * th);
  blk.gemm("attn.qkv", {tokens, (q_dev + 2 * kv_dev) * d, h});
  const double kv_new_bytes = static_cast<double>(tokens * 2 * kv_dev * d) * e;
  if (prefill) {
    const uint64_t heads_batch = b * q_dev;
    const double scores = static_cast<double>(heads_batch * s * s);
    blk.stream("attn.kv_cache_write", 2 * kv_new_bytes, 0);
    blk.gemm("attn.scores", {heads_batch * s, s, d});
    blk.stream("attn.softmax", 2 * scores * e, 5 * scores);
    blk.gemm("attn.context", {heads_batch * s, d, s});
  } else {
    // One query per sequence reads every cached key and value once.
    const double cached = static_cast<double>(job.context + 1);
    const double kv_read = static_cast<double>(b * kv_dev * d) * cached * 2 * e;
    const double flops = 4.0 * static_cast<double>(b * q_dev * d) * cached;
    blk.stream("attn.decode", kv_read + kv_new_bytes + 2 * static_cast<double>(b * q_dev * d) * e, flops);
  }
  blk.gemm("attn.proj", {tokens, h, q_dev * d});
  if (tp_net) blk.comm("attn.all_reduce", *tp_net, all_reduce_s(*tp_net, t, th * e), CollectiveKind::kAllReduce, th * e);
  blk.stream("attn.residual", 3 * th * e, th);
  blk.stream("mlp.layernorm", 2 * th * e, 8 * th);
  const uint64_t up = model.gated_mlp ? 2 : 1;  // gate and up projections side by side
  blk.gemm("mlp.fc1", {tokens, up * f / t, h});
  const double ft = static_cast<double>(tokens * f / t);
  blk.stream("mlp.activation", static_cast<double>(up + 1) * ft * e, 8 * ft);
  blk.gemm("mlp.fc2", {tokens, h, f / t});
  if (tp_net) blk.comm("mlp.all_reduce", *tp_net, all_reduce_s(*tp_net, t, th * e), CollectiveKind::kAllReduce, th * e);
  blk.stream("mlp.residual", 3 * th * e, th);
  for (const KernelTime& k : r.kernels) r.block_s += k.forward_s;

  // The next token needs the logits of each sequence's last position only.
  if (model.vocab_size > 0) {
    if (model.vocab_size % t != 0) fail("tp", fmt::format("vocab_size {} does not split {} ways", model.vocab_size, t));
    ForwardBuilder head{device, gemms, r.head_kernels};
    head.gemm("head.logits", {b, model.vocab_size / t, h});
    if (tp_net) {
      const double logits_bytes = static_cast<double>(b * model.vocab_size) * e;
      head.comm("head.all_gather", *tp_net, all_gather_s(*tp_net, t, logits_bytes), CollectiveKind::kAllGather,
                logits_bytes);
    }
    for (const KernelTime& k : r.head_kernels) r.head_s += k.forward_s;
  }

  r.blocks_per_device = model.num_blocks / par.pp;
  r.pipeline_message_bytes = th * e;
  if (par.pp > 1) r.pipeline_p2p_s = send_recv_s(device.network[par.pp_tier], r.pipeline_message_bytes);
  const double stage_s = static_cast<double>(r.blocks_per_device) * r.block_s;
  r.step_s = static_cast<double>(par.pp) * stage_s + static_cast<double>(par.pp - 1) * r.pipeline_p2p_s + r.head_s;
  r.tokens_per_s = static_cast<double>(job.batch * s) / r.step_s;

  const double blocks = static_cast<double>(r.blocks_per_device);
  const double hd = static_cast<double>(h), fd = static_cast<double>(f), upd = static_cast<double>(up);
  const double q_width = static_cast<double>(model.attn_heads * d);
  const double kv_width_per_device = 2.0 * static_cast<double>(kv_dev * d);  // this device's K and V heads
  // Per device and block: the column-parallel matrices (Q, MLP up/gate) and
  // the row-parallel ones (projection, MLP down) split t ways; the K/V
  // projections of its kv_dev heads, which with fewer heads than ranks are
  // copies (the kernels read them whole); biases of column-parallel layers
  // split, of row-parallel ones (added after the all-reduce) and the norms
  // whole on every rank.
  double block_params = (hd * q_width + q_width * hd + upd * hd * fd + fd * hd) / static_cast<double>(t) +
                        hd * kv_width_per_device + 2 * model.norm_parameters();
  if (model.biases != LinearBiases::kNone) block_params += q_width / static_cast<double>(t) + kv_width_per_device;
  if (model.biases == LinearBiases::kAll) block_params += hd + upd * fd / static_cast<double>(t) + hd;
  MemoryFootprint& mem = r.memory;
  // The final norm sits with the output layer on the last stage.
  mem.weights_bytes = (blocks * block_params + model.embedding_parameters_per_stage(par.pp) / static_cast<double>(t) +
                       model.norm_parameters()) *
                      e;
  const double cached_tokens = static_cast<double>(prefill ? job.prompt : job.context + 1);
  r.kv_cache_bytes = blocks * static_cast<double>(b * 2 * kv_dev * d) * cached_tokens * e;
  // The largest transient of the step: the MLP's widened activations, or prefill's score matrices.
  double working = 2 * th * e + ft * e;
  if (prefill) working = std::max(working, static_cast<double>(b * q_dev * s * s) * e);
  mem.activations_bytes = r.kv_cache_bytes + working;
  mem.total_bytes = mem.weights_bytes + mem.activations_bytes;
  mem.capacity_bytes = device.main_memory().capacity_bytes;
  mem.fits = mem.total_bytes <= mem.capacity_bytes;
  return r;
}

}  // namespace snr::pathfind
