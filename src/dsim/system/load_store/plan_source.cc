#include "dsim/system/load_store/plan_source.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "common/error.h"
#include "dsim/loadstore/generated/builtin_plan_choice.h"
#include "dsim/loadstore/generated/nccl_tuning.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::load_store {
namespace {

namespace ls = loadstore;

// What snr collective runs with by default (its --wavefront-threads).
constexpr uint32_t kWavefrontThreads = 32;

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
  for (const ls::GpuTraffic& t : ls::traffic(made.program)) {
    made.bytes_sent_per_gpu.push_back(t.remote_store_bytes + t.multicast_store_bytes + t.proxy_bytes +
                                      t.served_load_bytes);
  }
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

// The plan snr collective's built-in verbs run (builtin_plan_choice.h):
// tests/e2e/test_sim_load_store.sh checks a phase takes the time that
// command reports.
PhasePlanProgram PlanSource::generated(CollectiveKind kind, uint32_t gpus, uint64_t input_bytes) {
  const std::string collective = plan_collective_name(kind);
  // The plans' buffer is the larger of input and output (an all-gather's
  // output); the system layer hands an all-gather phase one rank's block.
  const uint64_t buffer_bytes = kind == CollectiveKind::kAllGather ? input_bytes * gpus : input_bytes;
  ls::BuiltinPlanRequest request;
  request.collective = collective;
  request.gpus = gpus;
  request.buffer_bytes = buffer_bytes;
  request.system = settings_.system;
  request.algorithm = settings_.algorithm;
  request.protocol = settings_.protocol;
  request.transfer = settings_.transfer;
  request.workgroups = settings_.workgroups;
  request.wavefront_threads = kWavefrontThreads;
  request.clock_ghz = gpu_.clock_ghz;
  request.scale_up = noc::scale_up_alpha_beta(network_);
  const ls::BuiltinPlanChoice chosen = ls::choose_builtin_plan(request);
  const ls::PlanAlgorithm* algorithm = chosen.algorithm;
  const ls::GeneratedPlanOptions& options = chosen.options;
  const bool nccl_plan = chosen.nccl_plan;
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
