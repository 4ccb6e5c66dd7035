#include "dsim/loadstore/generated/plan_generator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <mutex>

#include "common/error.h"
#include "dsim/loadstore/generated/plan_builder.h"

namespace snr::dsim::loadstore {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<PlanAlgorithm>> algorithms;  // stable addresses
};

void add_locked(Registry& registry, std::unique_ptr<PlanAlgorithm> algorithm) {
  if (!algorithm || algorithm->name().empty()) throw Error("plan algorithm: an algorithm needs a name");
  for (const auto& existing : registry.algorithms) {
    if (existing->name() == algorithm->name()) {
      throw Error(fmt::format("plan algorithm '{}' is already registered", algorithm->name()));
    }
  }
  registry.algorithms.push_back(std::move(algorithm));
}

Registry& registry() {
  static Registry* instance = [] {
    auto* r = new Registry;
    // The built-ins, one line each; `auto` takes the first that implements
    // a collective, so the ring comes first.
    add_locked(*r, make_ring_plan_algorithm());
    add_locked(*r, make_direct_plan_algorithm());
    add_locked(*r, make_nccl_ring_plan_algorithm());
    add_locked(*r, make_nccl_tree_plan_algorithm());
    add_locked(*r, make_halving_doubling_plan_algorithm());
    add_locked(*r, make_double_binary_tree_plan_algorithm());
    add_locked(*r, make_nccl_nvls_plan_algorithm());
    return r;
  }();
  return *instance;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string_view transfer_name(Transfer transfer) { return transfer == Transfer::kPut ? "put" : "get"; }

Transfer parse_transfer(std::string_view text) {
  const std::string name = lower(text);
  if (name == "put") return Transfer::kPut;
  if (name == "get") return Transfer::kGet;
  throw Error(fmt::format("unknown transfer '{}' (put or get)", text));
}

Protocol parse_protocol(std::string_view text) {
  const std::string name = lower(text);
  if (name == "simple") return Protocol::kSimple;
  if (name == "ll") return Protocol::kLL;
  if (name == "ll128") return Protocol::kLL128;
  throw Error(fmt::format("unknown protocol '{}' (Simple, LL or LL128)", text));
}

bool PlanAlgorithm::implements(std::string_view collective) const {
  const auto list = collectives();
  return std::find(list.begin(), list.end(), collective) != list.end();
}

const PlanAlgorithm& find_plan_algorithm(std::string_view name) {
  Registry& r = registry();
  {
    std::lock_guard lock(r.mutex);
    for (const auto& algorithm : r.algorithms) {
      if (algorithm->name() == name) return *algorithm;
    }
  }
  throw Error(fmt::format("unknown collective algorithm '{}' (registered: {})", name,
                          fmt::join(plan_algorithm_names(), ", ")));
}

std::vector<std::string> plan_algorithm_names() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& algorithm : r.algorithms) names.emplace_back(algorithm->name());
  return names;
}

const PlanAlgorithm& default_plan_algorithm(std::string_view collective) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& algorithm : r.algorithms) {
    if (algorithm->implements(collective)) return *algorithm;
  }
  throw Error(fmt::format("no built-in algorithm implements '{}' (allgather, reducescatter, allreduce, alltoall)",
                          collective));
}

void register_plan_algorithm(std::unique_ptr<PlanAlgorithm> algorithm) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  add_locked(r, std::move(algorithm));
}

Protocol choose_protocol(const PlanAlgorithm& algorithm, const GeneratedPlanOptions& options,
                         const AlphaBetaLink& per_gpu_link) {
  const double step_bytes = static_cast<double>(algorithm.bytes_per_step(options));
  const Protocol preferred = step_bytes < simple_equals_ll_bytes(per_gpu_link) ? Protocol::kLL : Protocol::kSimple;
  if (algorithm.supports(options.transfer, preferred)) return preferred;
  // An algorithm without that protocol (NVLS has Simple only) runs with the
  // other of the two, else LL128; with none the generator says so.
  const Protocol other = preferred == Protocol::kLL ? Protocol::kSimple : Protocol::kLL;
  for (const Protocol p : {other, Protocol::kLL128}) {
    if (algorithm.supports(options.transfer, p)) return p;
  }
  return preferred;
}

GpuBuffers collective_buffers(std::string_view collective, uint32_t gpus, uint64_t buffer_bytes) {
  GpuBuffers b;
  if (collective == kAllGather) {
    b.input_bytes = buffer_bytes / gpus;
    b.output_bytes = buffer_bytes;
  } else if (collective == kReduceScatter) {
    b.input_bytes = buffer_bytes;
    b.output_bytes = buffer_bytes / gpus;
  } else if (collective == kAllReduce || collective == kAllToAll) {
    b.input_bytes = b.output_bytes = buffer_bytes;
  } else {
    throw Error(fmt::format("unknown collective '{}' (allgather, reducescatter, allreduce, alltoall)", collective));
  }
  return b;
}

Program generate_collective_plan(const PlanAlgorithm& algorithm, const GeneratedPlanOptions& options) {
  const std::string what = fmt::format("{} {}", algorithm.name(), options.collective);
  if (!algorithm.implements(options.collective)) {
    throw Error(fmt::format("algorithm '{}' does not implement '{}' (it implements {})", algorithm.name(),
                            options.collective, fmt::join(algorithm.collectives(), ", ")));
  }
  if (!algorithm.supports(options.transfer, options.protocol)) {
    throw Error(fmt::format("{}: no {}-based variant with the {} protocol", what, transfer_name(options.transfer),
                            protocol_name(options.protocol)));
  }
  // Far beyond any scale-up domain the per-GPU semaphores and workgroups
  // stop fitting the representation's 32-bit indices.
  constexpr uint32_t kMaxGpus = 4096, kMaxWorkgroups = 1024;
  if (options.gpus < algorithm.min_gpus() || options.gpus > kMaxGpus) {
    throw Error(fmt::format("{}: {} GPUs (between {} and {})", what, options.gpus, algorithm.min_gpus(), kMaxGpus));
  }
  if (const std::string why = algorithm.unsupported_gpus(options.gpus); !why.empty()) {
    throw Error(fmt::format("{}: {}", what, why));
  }
  if (options.workgroups == 0 || options.workgroups > kMaxWorkgroups) {
    throw Error(fmt::format("{}: {} workgroups per GPU (between 1 and {})", what, options.workgroups,
                            kMaxWorkgroups));
  }
  if (options.wavefront_threads == 0 || options.threads_per_workgroup == 0) {
    throw Error(fmt::format("{}: threads per workgroup and per wavefront must be positive", what));
  }
  const uint64_t unit = uint64_t{options.gpus} * kPlanElementBytes;
  if (options.buffer_bytes == 0 || options.buffer_bytes % unit != 0) {
    throw Error(fmt::format("{}: a {}-byte buffer does not split into {} chunks of whole {}-byte elements (use a "
                            "multiple of {} B)",
                            what, options.buffer_bytes, options.gpus, kPlanElementBytes, unit));
  }
  PlanBuilder builder(options, options.buffer_bytes / options.gpus,
                      fmt::format("{} {} ({}, {})", algorithm.name(), options.collective,
                                  transfer_name(options.transfer), protocol_name(options.protocol)));
  algorithm.expand(options, builder);
  return builder.finish();
}

}  // namespace snr::dsim::loadstore
