#include "et/generate/patterns.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"

namespace snr::et {
namespace {

using ChakraProtoMsg::CollectiveCommType;

ComputeSpec layer_compute(const PatternOptions& o, uint64_t scale_percent) {
  // A layer that moves `size_bytes` of weights does ~2 flops per byte of
  // bf16 weights per token batch; exact figures matter less than keeping
  // compute proportional to the layer's size.
  const uint64_t bytes = o.size_bytes * scale_percent / 100;
  return ComputeSpec{.num_ops = 2 * bytes, .tensor_size_bytes = bytes,
                     .duration_micros = std::max<uint64_t>(1, o.compute_micros * scale_percent / 100)};
}

Workload microbenchmark(const PatternOptions& o, CollectiveCommType type, std::string_view name) {
  WorkloadBuilder w(o.npus);
  for (Rank r = 0; r < o.npus; ++r) {
    for (uint32_t i = 0; i < o.layers; ++i) {
      w.collective(r, fmt::format("{}_{}", name, i), type, o.size_bytes, ProcessGroups::world());
    }
  }
  return w.workload();
}

// Forward through every layer, backward in reverse; each layer's gradient
// all-reduce starts as soon as its backward pass is done (overlapping the
// next layer's backward), and the optimizer step waits for all of them.
Workload data_parallel(const PatternOptions& o) {
  WorkloadBuilder w(o.npus);
  for (Rank r = 0; r < o.npus; ++r) {
    std::vector<NodeId> deps;
    for (uint32_t l = 0; l < o.layers; ++l) {
      deps = {w.compute(r, fmt::format("fwd_layer{}", l), layer_compute(o, 100), deps)};
    }
    std::vector<NodeId> reductions;
    for (uint32_t l = o.layers; l-- > 0;) {
      deps = {w.compute(r, fmt::format("bwd_layer{}", l), layer_compute(o, 200), deps)};
      reductions.push_back(w.collective(r, fmt::format("allreduce_grad_layer{}", l), ChakraProtoMsg::ALL_REDUCE,
                                        o.size_bytes, ProcessGroups::world(), deps));
    }
    w.compute(r, "optimizer_step", layer_compute(o, 10), reductions);
  }
  return w.workload();
}

// Megatron-style: each layer's output is all-reduced across the group
// before the next layer can start, in both directions.
Workload tensor_parallel(const PatternOptions& o) {
  WorkloadBuilder w(o.npus);
  for (Rank r = 0; r < o.npus; ++r) {
    std::vector<NodeId> deps;
    for (uint32_t l = 0; l < o.layers; ++l) {
      deps = {w.compute(r, fmt::format("fwd_layer{}_shard", l), layer_compute(o, 100), deps)};
      deps = {w.collective(r, fmt::format("allreduce_act_layer{}", l), ChakraProtoMsg::ALL_REDUCE, o.size_bytes,
                           ProcessGroups::world(), deps)};
    }
    for (uint32_t l = o.layers; l-- > 0;) {
      deps = {w.compute(r, fmt::format("bwd_layer{}_shard", l), layer_compute(o, 200), deps)};
      deps = {w.collective(r, fmt::format("allreduce_grad_act_layer{}", l), ChakraProtoMsg::ALL_REDUCE, o.size_bytes,
                           ProcessGroups::world(), deps)};
    }
  }
  return w.workload();
}

// GPipe schedule: one stage per rank; all forward micro-batches, then all
// backward ones. Activations travel stage s -> s+1, gradients back.
Workload pipeline_parallel(const PatternOptions& o) {
  if (o.microbatches == 0) throw Error("pattern pp: --microbatches must be at least 1");
  WorkloadBuilder w(o.npus);
  const auto fwd_tag = [](uint32_t m) { return static_cast<int32_t>(2 * m); };
  const auto bwd_tag = [](uint32_t m) { return static_cast<int32_t>(2 * m + 1); };
  for (Rank s = 0; s < o.npus; ++s) {
    const bool first = s == 0;
    const bool last = s + 1 == o.npus;
    std::vector<NodeId> chain;
    for (uint32_t m = 0; m < o.microbatches; ++m) {
      std::vector<NodeId> deps = chain;
      if (!first) deps.push_back(w.recv(s, s - 1, o.size_bytes, fwd_tag(m)));
      chain = {w.compute(s, fmt::format("fwd_stage{}_mb{}", s, m), layer_compute(o, 100 * o.layers), deps)};
      if (!last) w.send(s, s + 1, o.size_bytes, fwd_tag(m), chain);
    }
    for (uint32_t m = o.microbatches; m-- > 0;) {
      std::vector<NodeId> deps = chain;
      if (!last) deps.push_back(w.recv(s, s + 1, o.size_bytes, bwd_tag(m)));
      chain = {w.compute(s, fmt::format("bwd_stage{}_mb{}", s, m), layer_compute(o, 200 * o.layers), deps)};
      if (!first) w.send(s, s - 1, o.size_bytes, bwd_tag(m), chain);
    }
  }
  return w.workload();
}

// Tensor parallel inside groups of tp_size consecutive ranks, sharded data
// parallel (ZeRO-3 style) across them: parameters are all-gathered before
// use and gradients reduce-scattered after; layer sizes vary so message
// sizes form several clusters. An all-gather's size is a rank's
// contribution (its 1/dp shard), a reduce-scatter's the whole buffer (the
// sizes a PyTorch trace records, and what snr sim and ASTRA-sim read).
Workload hybrid(const PatternOptions& o) {
  if (o.tp_size == 0 || o.npus % o.tp_size != 0) {
    throw Error(fmt::format("pattern hybrid: --tp-size {} must divide --npus {}", o.tp_size, o.npus));
  }
  WorkloadBuilder w(o.npus);
  const Rank dp_size = o.npus / o.tp_size;
  std::vector<GroupId> tp_group(o.npus), dp_group(o.npus);
  for (Rank t = 0; t < dp_size; ++t) {
    std::vector<Rank> members;
    for (Rank k = 0; k < o.tp_size; ++k) members.push_back(t * o.tp_size + k);
    const GroupId g = w.add_group(members);
    for (Rank m : members) tp_group[m] = g;
  }
  for (Rank k = 0; k < o.tp_size; ++k) {
    std::vector<Rank> members;
    for (Rank t = 0; t < dp_size; ++t) members.push_back(t * o.tp_size + k);
    const GroupId g = w.add_group(members);
    for (Rank m : members) dp_group[m] = g;
  }
  const auto layer_percent = [](uint32_t l) -> uint64_t { return 50 + 75 * (l % 3); };  // 50%, 125%, 200%
  for (Rank r = 0; r < o.npus; ++r) {
    std::vector<NodeId> deps;
    for (uint32_t l = 0; l < o.layers; ++l) {
      const uint64_t params = o.size_bytes * layer_percent(l) / 100 / o.tp_size;
      const uint64_t shard = std::max<uint64_t>(params / dp_size, 1);
      const NodeId gather = w.collective(r, fmt::format("allgather_params_layer{}", l), ChakraProtoMsg::ALL_GATHER,
                                         shard, dp_group[r]);
      deps.push_back(gather);
      deps = {w.compute(r, fmt::format("fwd_layer{}", l), layer_compute(o, layer_percent(l)), deps)};
      deps = {w.collective(r, fmt::format("allreduce_act_layer{}", l), ChakraProtoMsg::ALL_REDUCE, o.size_bytes / 8,
                           tp_group[r], deps)};
    }
    for (uint32_t l = o.layers; l-- > 0;) {
      const uint64_t params = o.size_bytes * layer_percent(l) / 100 / o.tp_size;
      deps = {w.compute(r, fmt::format("bwd_layer{}", l), layer_compute(o, 2 * layer_percent(l)), deps)};
      deps = {w.collective(r, fmt::format("allreduce_grad_act_layer{}", l), ChakraProtoMsg::ALL_REDUCE,
                           o.size_bytes / 8, tp_group[r], deps)};
      w.collective(r, fmt::format("reducescatter_grad_layer{}", l), ChakraProtoMsg::REDUCE_SCATTER, params, dp_group[r],
                   deps);
    }
  }
  return w.workload();
}

}  // namespace

const std::vector<std::pair<std::string_view, std::string_view>>& pattern_catalog() {
  static const std::vector<std::pair<std::string_view, std::string_view>> catalog = {
      {"allreduce", "--layers all-reduces of --size bytes on all ranks"},
      {"allgather", "--layers all-gathers of --size bytes on all ranks"},
      {"reducescatter", "--layers reduce-scatters of --size bytes on all ranks"},
      {"alltoall", "--layers all-to-alls of --size bytes on all ranks"},
      {"dp", "data parallel: forward, backward with per-layer gradient all-reduce, optimizer step"},
      {"tp", "tensor (model) parallel: activation all-reduce after every layer, both directions"},
      {"pp", "pipeline parallel (GPipe): one stage per rank, --microbatches, send/recv between stages"},
      {"hybrid", "tensor parallel groups of --tp-size x sharded data parallel (all-gather / reduce-scatter)"},
  };
  return catalog;
}

Workload generate_pattern(const PatternOptions& o) {
  if (o.npus == 0) throw Error("--npus must be at least 1");
  if (o.layers == 0) throw Error("--layers must be at least 1");
  if (o.size_bytes == 0) throw Error("--size must be at least 1 byte");
  const std::string& p = o.pattern;
  if (p == "allreduce") return microbenchmark(o, ChakraProtoMsg::ALL_REDUCE, "all_reduce");
  if (p == "allgather") return microbenchmark(o, ChakraProtoMsg::ALL_GATHER, "all_gather");
  if (p == "reducescatter") return microbenchmark(o, ChakraProtoMsg::REDUCE_SCATTER, "reduce_scatter");
  if (p == "alltoall") return microbenchmark(o, ChakraProtoMsg::ALL_TO_ALL, "all_to_all");
  if (p == "dp") return data_parallel(o);
  if (p == "tp") return tensor_parallel(o);
  if (p == "pp") return pipeline_parallel(o);
  if (p == "hybrid") return hybrid(o);
  std::string known;
  for (const auto& [name, unused] : pattern_catalog()) known += (known.empty() ? "" : ", ") + std::string(name);
  throw Error(fmt::format("unknown pattern '{}'; known patterns: {}", p, known));
}

}  // namespace snr::et
