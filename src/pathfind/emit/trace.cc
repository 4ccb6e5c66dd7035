#include "pathfind/emit/trace.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "common/error.h"

namespace snr::pathfind {
namespace {

using et::GroupId;
using et::NodeId;
using et::Rank;

ChakraProtoMsg::CollectiveCommType chakra_type(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return ChakraProtoMsg::ALL_REDUCE;
    case CollectiveKind::kAllGather: return ChakraProtoMsg::ALL_GATHER;
    case CollectiveKind::kReduceScatter: return ChakraProtoMsg::REDUCE_SCATTER;
    case CollectiveKind::kNone: break;
  }
  throw Error("emit: no collective to write");
}

// Shards <-> ranks under the chosen ordering: the first dimension of the
// order varies fastest and linear index i is system node i.
class RankMap {
 public:
  RankMap(const ParallelDims& dims, const DimOrder& order) : dims_(dims), order_(order) {}
  [[nodiscard]] Rank rank_of(const ShardCoord& shard) const {
    uint64_t index = 0, stride = 1;
    for (ParallelDim dim : order_) {
      index += shard.at(dim) * stride;
      stride *= dims_[dim];
    }
    return static_cast<Rank>(index);
  }
  [[nodiscard]] ShardCoord shard_of(Rank rank) const {
    ShardCoord shard;
    uint64_t rest = rank;
    for (ParallelDim dim : order_) {
      shard.at(dim) = rest % dims_[dim];
      rest /= dims_[dim];
    }
    return shard;
  }
  // The ranks that differ from `shard` only along `dim`, in coordinate order.
  [[nodiscard]] std::vector<Rank> line(ShardCoord shard, ParallelDim dim) const {
    std::vector<Rank> out;
    for (uint64_t i = 0; i < dims_[dim]; ++i) {
      shard.at(dim) = i;
      out.push_back(rank_of(shard));
    }
    return out;
  }

 private:
  ParallelDims dims_;
  DimOrder order_;
};

// One rank's program: nodes chained in program order, compute merged
// between communication, rounding carried.
class RankProgram {
 public:
  RankProgram(et::WorkloadBuilder& builder, Rank rank) : w_(builder), rank_(rank) {}

  void compute(double seconds) { pending_s_ += seconds; }
  // `bytes`: the whole tensor. ASTRA-sim's all-gather size is what each
  // rank contributes (every ring step forwards it whole), so it gets 1/n.
  void collective(std::string_view name, CollectiveKind kind, double bytes, GroupId group, uint64_t group_size) {
    if (kind == CollectiveKind::kNone) return;
    flush();
    if (kind == CollectiveKind::kAllGather) bytes /= static_cast<double>(group_size);
    chain(w_.collective(rank_, name, chakra_type(kind), bytes_of(bytes), group, deps()));
  }
  void recv(Rank from, double bytes, int32_t tag) {
    flush();
    chain(w_.recv(rank_, from, bytes_of(bytes), tag, deps()));
  }
  // The next kernel does not wait for a send to finish.
  void send(Rank to, double bytes, int32_t tag) {
    flush();
    (void)w_.send(rank_, to, bytes_of(bytes), tag, deps());
  }
  void flush() {
    const double exact_us = pending_s_ * 1e6 + carry_us_;
    const double whole_us = std::max(0.0, std::round(exact_us));
    carry_us_ = exact_us - whole_us;
    pending_s_ = 0;
    if (whole_us < 1) return;
    chain(w_.compute(rank_, fmt::format("compute{}", computes_++), {0, 0, static_cast<uint64_t>(whole_us)}, deps()));
  }

 private:
  static uint64_t bytes_of(double bytes) { return static_cast<uint64_t>(std::llround(std::max(bytes, 1.0))); }
  std::vector<NodeId> deps() const { return last_ ? std::vector<NodeId>{*last_} : std::vector<NodeId>{}; }
  void chain(NodeId id) { last_ = id; }

  et::WorkloadBuilder& w_;
  Rank rank_;
  std::optional<NodeId> last_;
  double pending_s_ = 0;
  double carry_us_ = 0;
  uint64_t computes_ = 0;
};

struct Group {
  GroupId id;
  uint64_t size = 1;
};

void forward_kernels(RankProgram& prog, const std::vector<KernelTime>& kernels, Group tp) {
  for (const KernelTime& k : kernels) {
    if (k.kind == KernelKind::kComm) prog.collective(k.name, k.forward_collective, k.comm_bytes, tp.id, tp.size);
    else prog.compute(k.forward_s);
  }
}

void backward_kernels(RankProgram& prog, const std::vector<KernelTime>& kernels, Group tp) {
  for (auto it = kernels.rbegin(); it != kernels.rend(); ++it) {
    const KernelTime& k = *it;
    if (k.kind != KernelKind::kComm) {
      prog.compute(k.backward_s + k.recompute_s);
      continue;
    }
    if (k.recompute_s > 0) prog.collective(k.name + ".recompute", k.forward_collective, k.comm_bytes, tp.id, tp.size);
    prog.collective(k.name + ".backward", k.backward_collective, k.comm_bytes, tp.id, tp.size);
  }
}

double comm_kernels(const std::vector<KernelTime>& kernels) {
  double n = 0;
  for (const KernelTime& k : kernels) n += k.kind == KernelKind::kComm ? 1 : 0;
  return n;
}

}  // namespace

double max_trace_nodes(const Prediction& r) {
  double comm = 0;  // per rank
  if (r.gemm) {
    comm = 1;
  } else if (r.inference) {
    const InferencePrediction& inf = *r.inference;
    comm = static_cast<double>(inf.blocks_per_device) * comm_kernels(inf.kernels) + comm_kernels(inf.head_kernels) + 2;
  } else if (r.training) {
    // Forward, recompute and backward of each collective; a receive and a
    // send each way per microbatch; the DP all-reduce.
    const IterationPrediction& it = *r.training;
    comm = static_cast<double>(it.microbatches) *
               (static_cast<double>(it.blocks_per_device) * 3 * comm_kernels(it.kernels) +
                3 * comm_kernels(it.head_kernels) + 4) +
           1;
  }
  return static_cast<double>(r.devices) * (2 * comm + 1);
}

et::Workload emit_traces(const PredictInputs& in, const Prediction& r) {
  if (!r.system) throw Error("emit: the prediction has no system graph");
  if (in.strategy.interleave > 1) {
    throw Error(fmt::format("emit: interleave={} is not written yet (the traces follow plain 1F1B); emit the design "
                            "without interleave",
                            in.strategy.interleave));
  }
  if (r.devices > (uint64_t{1} << 20)) throw Error(fmt::format("emit: {} ranks are more than 2^20", r.devices));
  if (const double nodes = max_trace_nodes(r); nodes > kMaxEmitNodes) {
    throw Error(fmt::format("emit: the traces would hold up to {:.0f} nodes ({} ranks), more than the {:.0f} emit "
                            "builds in memory (about 1.5 KB each); emit fewer ranks or a smaller batch",
                            nodes, r.devices, kMaxEmitNodes));
  }
  const ParallelDims dims = parallel_dims(in.strategy.notation);
  const RankMap ranks(dims, r.mapping.order);
  const Rank npus = static_cast<Rank>(r.devices);
  et::WorkloadBuilder w(npus);

  // One process group per line of each communicating dimension.
  std::array<std::vector<GroupId>, kParallelDimCount> group_of;
  for (ParallelDim dim : kAllParallelDims) {
    std::vector<GroupId>& groups = group_of[index_of(dim)];
    groups.assign(npus, GroupId{});
    if (dims[dim] < 2) continue;
    for (Rank rank = 0; rank < npus; ++rank) {
      ShardCoord shard = ranks.shard_of(rank);
      if (shard.at(dim) != 0) continue;
      std::vector<Rank> members = ranks.line(shard, dim);
      GroupId g = w.add_group(members);
      for (Rank m : members) groups[m] = g;
    }
  }
  auto group = [&](ParallelDim dim, Rank rank) { return Group{group_of[index_of(dim)][rank], dims[dim]}; };
  const uint64_t stages = dims[ParallelDim::kPipeline];

  for (Rank rank = 0; rank < npus; ++rank) {
    RankProgram prog(w, rank);
    const ShardCoord shard = ranks.shard_of(rank);
    const uint64_t p = shard.pipeline_stage;
    ShardCoord prev = shard, next = shard;
    if (p > 0) prev.pipeline_stage = p - 1;
    if (p + 1 < stages) next.pipeline_stage = p + 1;
    const Group tp = group(ParallelDim::kKernelRow, rank);
    if (r.gemm) {
      prog.compute(r.gemm->kernel.time_s);
      ParallelDim dim = r.gemm->collective == CollectiveKind::kAllGather ? ParallelDim::kKernelCol
                                                                          : ParallelDim::kKernelRow;
      const Group g = group(dim, rank);
      prog.collective("gemm." + std::string(collective_kind_name(r.gemm->collective)), r.gemm->collective,
                      r.gemm->comm_bytes, g.id, g.size);
    } else if (r.inference) {
      const InferencePrediction& inf = *r.inference;
      const double bytes = inf.pipeline_message_bytes;
      if (p > 0) prog.recv(ranks.rank_of(prev), bytes, 0);
      for (uint64_t b = 0; b < inf.blocks_per_device; ++b) forward_kernels(prog, inf.kernels, tp);
      if (p + 1 == stages) forward_kernels(prog, inf.head_kernels, tp);
      if (p + 1 < stages) prog.send(ranks.rank_of(next), bytes, 0);
    } else if (r.training) {
      const IterationPrediction& it = *r.training;
      const uint64_t m_count = it.microbatches;
      const double bytes = it.pipeline_message_bytes;
      auto forward = [&](uint64_t m) {
        const auto tag = static_cast<int32_t>(2 * m);
        if (p > 0) prog.recv(ranks.rank_of(prev), bytes, tag);
        for (uint64_t b = 0; b < it.blocks_per_device; ++b) forward_kernels(prog, it.kernels, tp);
        if (p + 1 == stages) forward_kernels(prog, it.head_kernels, tp);
        if (p + 1 < stages) prog.send(ranks.rank_of(next), bytes, tag);
      };
      auto backward = [&](uint64_t m) {
        const auto tag = static_cast<int32_t>(2 * m + 1);
        if (p + 1 < stages) prog.recv(ranks.rank_of(next), bytes, tag);
        if (p + 1 == stages) backward_kernels(prog, it.head_kernels, tp);
        for (uint64_t b = 0; b < it.blocks_per_device; ++b) backward_kernels(prog, it.kernels, tp);
        if (p > 0) prog.send(ranks.rank_of(prev), bytes, tag);
      };
      const uint64_t warmup = std::min<uint64_t>(stages - p - 1, m_count);
      for (uint64_t m = 0; m < warmup; ++m) forward(m);
      for (uint64_t m = 0; m + warmup < m_count; ++m) {
        forward(m + warmup);
        backward(m);
      }
      for (uint64_t m = m_count - warmup; m < m_count; ++m) backward(m);
      const Group dp = group(ParallelDim::kData, rank);
      prog.collective("dp.all_reduce_gradients", dp.size > 1 ? CollectiveKind::kAllReduce : CollectiveKind::kNone,
                      it.dp_allreduce_bytes, dp.id, dp.size);
      prog.compute(it.optimizer_s);
    }
    prog.flush();
  }
  return w.workload();
}

}  // namespace snr::pathfind
