#include "pathfind/search/strategies.h"

#include <fmt/format.h>

#include "common/error.h"
#include "pathfind/predict/distributed_gemm.h"

namespace snr::pathfind::search {
namespace {

std::vector<uint64_t> divisors(uint64_t n) {
  std::vector<uint64_t> small, large;
  for (uint64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    small.push_back(d);
    if (d != n / d) large.push_back(n / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

Strategy with_notation(const Strategy& options, KernelSplit kind, uint64_t kp1, uint64_t kp2, uint64_t dp,
                       uint64_t lp) {
  Strategy s = options;
  s.notation = {kind, kp1, kp2, dp, lp};
  return s;
}

class Collector {
 public:
  void add(Strategy s) {
    if (out_.size() >= kMaxStrategies) {
      throw Error(
          fmt::format("parallelism search: more than {} strategies; give one strategy instead", kMaxStrategies));
    }
    out_.push_back(std::move(s));
  }
  std::vector<Strategy> take() { return std::move(out_); }

 private:
  std::vector<Strategy> out_;
};

void transformer_strategies(const Workload& w, uint64_t devices, const Strategy& o, Collector& out) {
  const TransformerModel& m = w.model;
  const bool training = w.phase == WorkloadPhase::kTraining;
  const bool training_options =
      o.interleave > 1 || o.sequence_parallel || o.recompute != Recompute::kNone || o.optimizer_sharding;
  if (!training && training_options) {
    throw Error("parallelism search: interleave, sp, recompute and zero1 are training options; the workload is "
                "inference");
  }
  const uint64_t kv_heads = m.key_value_heads();
  for (uint64_t tp : divisors(devices)) {
    if (m.attn_heads % tp != 0 || m.feedforward % tp != 0) continue;
    if (m.vocab_size > 0 && m.vocab_size % tp != 0) continue;
    if (o.sequence_parallel && m.seq_size % tp != 0) continue;
    if (!training && kv_heads % tp != 0 && tp % kv_heads != 0) continue;
    for (uint64_t pp : divisors(devices / tp)) {
      const uint64_t dp = devices / tp / pp;
      if (m.num_blocks % (pp * o.interleave) != 0 || (o.interleave > 1 && pp == 1)) continue;
      if (training ? w.batch % (dp * w.microbatch) != 0 : w.batch % dp != 0) continue;
      out.add(with_notation(o, tp > 1 ? KernelSplit::kColumnRow : KernelSplit::kNone, tp, 1, dp, pp));
    }
  }
}

// Kernel splits of `rest` devices per pipeline stage: none, CR, RC; those
// `fits` accepts.
template <class Fits>
void kernel_strategies(uint64_t rest, uint64_t lp, const Strategy& o, Fits fits, Collector& out) {
  auto add = [&](KernelSplit kind, uint64_t kp1, uint64_t kp2, uint64_t dp) {
    Strategy s = with_notation(o, kind, kp1, kp2, dp, lp);
    if (fits(s.notation)) out.add(std::move(s));
  };
  add(KernelSplit::kNone, 1, 1, rest);
  for (uint64_t kp1 : divisors(rest)) {
    if (kp1 > 1) add(KernelSplit::kColumnRow, kp1, 1, rest / kp1);
  }
  for (uint64_t kp1 : divisors(rest)) {
    for (uint64_t kp2 : divisors(rest / kp1)) {
      if (kp1 * kp2 > 1) add(KernelSplit::kRowColumn, kp1, kp2, rest / kp1 / kp2);
    }
  }
}

}  // namespace

std::vector<Strategy> enumerate_strategies(const Workload& w, uint64_t devices, const Strategy& options) {
  if (devices == 0 || devices > kMaxParallelDevices) {
    throw Error(fmt::format("parallelism search: devices must be in 1..{}, got {}", kMaxParallelDevices, devices));
  }
  if (options.notation.devices() != 1) {
    throw Error("parallelism search: the strategies enumerate tp/pp/dp (kernel, pipeline and data counts); give only "
                "interleave, sp, recompute or zero1");
  }
  Collector out;
  if (w.kind == WorkloadKind::kTransformer) {
    transformer_strategies(w, devices, options, out);
  } else {
    if (options.interleave > 1 || options.sequence_parallel || options.recompute != Recompute::kNone ||
        options.optimizer_sharding) {
      throw Error("parallelism search: interleave, sp, recompute and zero1 are transformer options");
    }
    if (w.kind == WorkloadKind::kGemm) {
      // predict() refuses a split that leaves devices without work.
      kernel_strategies(
          devices, 1, options, [&](const ParallelismNotation& n) { return idle_device_reason(w.gemm, n).empty(); },
          out);
    } else {
      for (uint64_t lp : divisors(devices)) {
        if (w.lstm.layers % lp != 0) continue;
        kernel_strategies(
            devices / lp, lp, options, [&](const ParallelismNotation& n) { return w.lstm.batch % n.dp == 0; }, out);
      }
    }
  }
  std::vector<Strategy> strategies = out.take();
  if (strategies.empty()) {
    throw Error(fmt::format("parallelism search: no strategy spreads workload '{}' over {} devices (the counts must "
                            "divide the model: docs/pathfind-search.md lists the rules)",
                            w.name, devices));
  }
  return strategies;
}

Strategy parse_search_options(std::string_view text) {
  if (!text.starts_with("search")) throw Error(fmt::format("parallelism '{}': not a search", text));
  std::string_view rest = text.substr(6);
  if (rest.empty()) return {};
  if (rest.front() != ',') throw Error(fmt::format("parallelism '{}': write search or search,OPTIONS", text));
  rest.remove_prefix(1);
  // Without a key=value part parse_strategy would read the notation.
  Strategy s = parse_strategy(rest.find('=') == std::string_view::npos ? std::string(rest) + ",interleave=1"
                                                                       : std::string(rest));
  if (s.notation.devices() != 1) {
    throw Error(fmt::format("parallelism '{}': a search enumerates tp, pp and dp; give only interleave, sp, "
                            "recompute or zero1 after it",
                            text));
  }
  return s;
}

std::vector<Strategy> strategies_to_search(const Workload& workload, std::string_view parallelism, uint64_t devices) {
  if (parallelism.starts_with("search")) {
    if (devices == 0) {
      throw Error(fmt::format("parallelism '{}' needs the number of devices to spread the work over", parallelism));
    }
    return enumerate_strategies(workload, devices, parse_search_options(parallelism));
  }
  Strategy s = parse_strategy(parallelism);
  if (devices != 0) check_devices(s.notation, devices);
  return {s};
}

}  // namespace snr::pathfind::search
