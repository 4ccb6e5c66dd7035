#include "dsim/system/load_store/plan_source.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "common/error.h"
#include "dsim/loadstore/generated/nccl_tuning.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::load_store {
namespace {

namespace ls = loadstore;

// MSCCL++ launches its kernels with this many threads per block; snr
// collective uses the same default.
constexpr uint32_t kDefaultThreads = 1024;
constexpr uint32_t kDefaultWorkgroups = 32;
constexpr uint32_t kWavefrontThreads = 32;

// §3.2's alpha and B for one GPU, as snr collective computes them.
ls::AlphaBetaLink scale_up_link(const noc::NocConfig& network) {
  constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
  return {network.io_ports() * network.scale_up_link.bandwidth_gib_per_s * kBytesPerGiB,
          network.scale_up_link.latency_ns * 1e-9};
}

}  // namespace

std::string plan_collective_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return std::string(ls::kAllReduce);
    case CollectiveKind::kAllGather: return std::string(ls::kAllGather);
    case CollectiveKind::kReduceScatter: return std::string(ls::kReduceScatter);
    case CollectiveKind::kAllToAll: return std::string(ls::kAllToAll);
    default: break;
  }
  throw Error(fmt::format("{} has no load-store plan", collective_name(kind)));
}

PlanSource::PlanSource(Settings settings, const gpu::GpuConfig& gpu, const noc::NocConfig& network)
    : settings_(std::move(settings)), gpu_(gpu), network_(network) {}

const PhasePlanProgram& PlanSource::plan(CollectiveKind kind, uint32_t gpus, uint64_t input_bytes) {
  const auto key = std::make_tuple(kind, gpus, input_bytes);
  if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
  const auto file = settings_.plan_files.find(collective_name(kind));
  PhasePlanProgram made = with_error_context(
      fmt::format("load-store {} over {} GPUs of {} B each", collective_name(kind), gpus, input_bytes), [&] {
        return file != settings_.plan_files.end() ? from_file(file->second, kind, gpus, input_bytes)
                                                  : generated(kind, gpus, input_bytes);
      });
  return cache_.emplace(key, std::move(made)).first->second;
}

PhasePlanProgram PlanSource::from_file(const std::string& path, CollectiveKind kind, uint32_t gpus,
                                       uint64_t input_bytes) {
  auto& plan = files_[path];
  if (!plan) plan = std::make_unique<ls::CollectivePlan>(ls::load_collective_plan(path));
  if (plan->gpus != gpus) {
    throw Error(fmt::format("plan {} is for {} GPUs, the phase has {}", path, plan->gpus, gpus));
  }
  PhasePlanProgram out;
  out.program = plan->lower(input_bytes, kWavefrontThreads);
  out.description = fmt::format("{} ({}), {} GPUs, {} B input", path, plan_collective_name(kind), gpus, input_bytes);
  return out;
}

// The same choices as snr collective's built-in verbs
// (src/cli/cmd_collective_builtin.cc): tests/e2e/test_sim_load_store.sh
// checks that a phase takes the time that command reports.
PhasePlanProgram PlanSource::generated(CollectiveKind kind, uint32_t gpus, uint64_t input_bytes) {
  const std::string collective = plan_collective_name(kind);
  // The plans' buffer is the larger of input and output (an all-gather's
  // output); the system layer hands an all-gather phase one rank's block.
  const uint64_t buffer_bytes = kind == CollectiveKind::kAllGather ? input_bytes * gpus : input_bytes;
  std::optional<ls::Protocol> fixed;
  if (settings_.protocol != "auto") fixed = ls::parse_protocol(settings_.protocol);
  const ls::NcclSystem* nccl = ls::find_nccl_system(settings_.system);
  const bool tuned = nccl != nullptr && collective != ls::kAllToAll;
  std::string name = settings_.algorithm;
  if (tuned && (name == "ring" || name == "tree")) name = "nccl-" + name;
  const bool nccl_named = name == "nccl-ring" || name == "nccl-tree";
  const ls::PlanAlgorithm* algorithm = nullptr;
  std::optional<ls::Protocol> protocol = fixed;
  std::optional<ls::NcclChoice> choice;
  if (tuned && (name == "auto" || nccl_named)) {
    choice = ls::nccl_choose(*nccl, collective, gpus, buffer_bytes, name, fixed);
    algorithm = &ls::find_plan_algorithm(choice->estimate.algorithm);
    protocol = choice->estimate.protocol;
  } else {
    algorithm = name == "auto" ? &ls::default_plan_algorithm(collective) : &ls::find_plan_algorithm(name);
  }
  const bool nccl_plan = algorithm->name().starts_with("nccl-");
  ls::GeneratedPlanOptions options;
  options.collective = collective;
  options.gpus = gpus;
  options.workgroups = settings_.workgroups != 0 ? settings_.workgroups : choice ? choice->channels : kDefaultWorkgroups;
  options.buffer_bytes = buffer_bytes;
  options.transfer = ls::parse_transfer(settings_.transfer);
  options.threads_per_workgroup = choice ? choice->threads : kDefaultThreads;
  options.wavefront_threads = kWavefrontThreads;
  const double kernel_start_ns = nccl_plan ? ls::kNcclKernelStartNs : 0.0;
  options.prologue_cycles = static_cast<uint32_t>(std::llround(kernel_start_ns * gpu_.clock_ghz));
  options.protocol = protocol ? *protocol : ls::choose_protocol(*algorithm, options, scale_up_link(network_));
  PhasePlanProgram out;
  // NCCL's kernels keep their own lines in flight per protocol and pay a
  // flag check per received LL / LL128 line (nccl_tuning.h).
  if (nccl_plan) out.tuning.unroll = ls::nccl_lines_in_flight_per_warp(options.protocol, gpu_.cache_line_bytes);
  if (nccl_plan && options.protocol != ls::Protocol::kSimple) {
    out.tuning.reduce_cycles_per_line = ls::kNcclPacketLineCycles;
    out.tuning.reduce_cycles_given = true;
  }
  out.program = ls::generate_collective_plan(*algorithm, options);
  out.description = fmt::format("{} {} ({}, {}), {} GPUs, {} B buffer", algorithm->name(), collective,
                                ls::transfer_name(options.transfer), ls::protocol_name(options.protocol), gpus,
                                buffer_bytes);
  return out;
}

}  // namespace snr::dsim::load_store
