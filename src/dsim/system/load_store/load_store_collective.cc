#include "dsim/system/load_store/load_store_collective.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <tuple>

#include "common/error.h"
#include "dsim/config/network_config.h"
#include "dsim/noc/noc_network.h"
#include "dsim/system/collective_engine.h"
#include "dsim/system/load_store/gpu_compute.h"
#include "dsim/system/load_store/gpu_domain.h"
#include "dsim/system/load_store/load_store_config.h"
#include "dsim/system/load_store/plan_source.h"

namespace snr::dsim::load_store {
namespace {

// One collective's phase over a set of NPUs, whichever NPU started it.
struct InstanceKey {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  uint64_t input_bytes = 0;
  std::vector<uint32_t> members;  // NPU of each ring position
  auto operator<=>(const InstanceKey&) const = default;
};

class LoadStoreRun final : public AlgorithmRun {
 public:
  LoadStoreRun(const AlgorithmRunContext& context, const Settings& settings, const gpu::GpuConfig& gpu,
               const noc::NocConfig& network)
      : loop_(context.loop),
        engine_handler_(context.engine_handler),
        bytes_sent_per_npu_(context.bytes_sent_per_npu),
        plans_(settings, gpu, network),
        domain_(context.loop, static_cast<uint32_t>(context.network.npus_count()), gpu,
                [&network, gpus = static_cast<uint32_t>(context.network.npus_count())](EventLoop& ps_loop) {
                  return std::make_unique<noc::NocNetwork>(network, gpus, ps_loop);
                }) {
    if (settings.compute == "gpu") {
      compute_ = std::make_unique<GpuCompute>(domain_, gpu, settings.compute_workgroups, settings.compute_slice_cycles);
    }
  }

  ComputeDevice* compute_device() override { return compute_.get(); }

  // Phases some members never started, then what the GPU model's
  // unfinished workgroups wait for (a plan that deadlocks).
  std::string stall_report() const override {
    std::vector<std::string> parts;
    size_t listed = 0;
    for (const auto& [id, instance] : instances_) {
      if (instance.members_left == 0) continue;
      if (++listed > 4) {
        parts.push_back("...");
        break;
      }
      std::vector<NpuId> missing;
      for (size_t p = 0; p < instance.streams.size(); ++p) {
        if (instance.streams[p] == kNoStream) missing.push_back(id.first.members[p]);
      }
      parts.push_back(fmt::format("load-store {} of {} bytes over NPUs {}: NPUs {} never started it",
                                  collective_name(id.first.kind), id.first.input_bytes,
                                  fmt::join(id.first.members, ","), fmt::join(missing, ",")));
    }
    if (std::string gpu = domain_.model().stall_description(); !gpu.empty()) {
      parts.push_back("load-store GPU model: " + gpu);
    }
    return fmt::format("{}", fmt::join(parts, "; "));
  }

  // Makes (or finds) the phase's plan, so that a collective, GPU count or
  // size no plan supports fails when the phase is created.
  void check(const InstanceKey& key) {
    (void)plans_.plan(key.kind, static_cast<uint32_t>(key.members.size()), key.input_bytes);
  }

  // NPU `key.members[position]` starts its phase (engine stream `stream`).
  void join(const InstanceKey& key, uint32_t position, uint32_t stream) {
    const NpuId npu = key.members[position];
    const uint64_t occurrence = joined_[{key, npu}]++;
    auto [it, fresh] = instances_.try_emplace({key, occurrence});
    Instance& instance = it->second;
    if (fresh) {
      const PhasePlanProgram& plan = plans_.plan(key.kind, static_cast<uint32_t>(key.members.size()), key.input_bytes);
      instance.first_kernel = domain_.add_program(plan.program, key.members, plan.tuning);
      instance.kernels_of.resize(key.members.size());
      for (uint32_t k = 0; k < plan.program.kernels.size(); ++k) {
        instance.kernels_of[plan.program.kernels[k].gpu].push_back(k);
      }
      instance.kernels_left = static_cast<uint32_t>(plan.program.kernels.size());
      if (bytes_sent_per_npu_ != nullptr) {
        for (size_t p = 0; p < key.members.size(); ++p) {
          (*bytes_sent_per_npu_)[key.members[p]] += plan.bytes_sent_per_gpu[p];
        }
      }
      instance.streams.assign(key.members.size(), kNoStream);
      instance.members_left = static_cast<uint32_t>(key.members.size());
    }
    if (instance.streams[position] != kNoStream) {
      throw Error(fmt::format("load-store {}: NPU {} started the same phase twice", collective_name(key.kind), npu));
    }
    instance.streams[position] = stream;
    --instance.members_left;
    const auto id = std::make_pair(key, occurrence);
    // Launches are placed by the domain at this instant's end (gpu_domain.h),
    // so no callback runs (and erases the instance) inside this loop.
    for (uint32_t k : instance.kernels_of[position]) {
      domain_.launch(instance.first_kernel + k, [this, id](TimeNs report_ns) { kernel_done(id, report_ns); });
    }
    maybe_finish(id);
  }

 private:
  static constexpr uint32_t kNoStream = UINT32_MAX;
  using InstanceId = std::pair<InstanceKey, uint64_t>;
  struct Instance {
    uint32_t first_kernel = 0;
    std::vector<std::vector<uint32_t>> kernels_of;  // by ring position: the plan's kernels
    std::vector<uint32_t> streams;                  // by ring position: the member's engine stream
    uint32_t kernels_left = 0, members_left = 0;
    TimeNs done_ns = 0;
  };

  void kernel_done(const InstanceId& id, TimeNs report_ns) {
    Instance& instance = instances_.at(id);
    instance.done_ns = std::max(instance.done_ns, report_ns);
    --instance.kernels_left;
    maybe_finish(id);
  }

  // Every member started and every kernel finished: the phase ends on
  // every member, in ring order, through the engine's own step event.
  void maybe_finish(const InstanceId& id) {
    const auto it = instances_.find(id);
    if (it == instances_.end() || it->second.kernels_left != 0 || it->second.members_left != 0) return;
    const TimeNs at = std::max(it->second.done_ns, loop_.now());
    for (uint32_t stream : it->second.streams) {
      loop_.schedule(at, engine_handler_, CollectiveEngine::CustomStepDone{stream, 0});
    }
    instances_.erase(it);
  }

  EventLoop& loop_;
  HandlerId engine_handler_;
  std::vector<uint64_t>* bytes_sent_per_npu_;  // the run's traffic counters, or nullptr
  PlanSource plans_;
  GpuDomain domain_;
  std::unique_ptr<GpuCompute> compute_;  // load-store-compute: gpu
  std::map<std::pair<InstanceKey, NpuId>, uint64_t> joined_;  // phases started per (collective, NPU)
  std::map<InstanceId, Instance> instances_;                   // started and not finished
};

class LoadStorePhase final : public CollectivePhase {
 public:
  LoadStorePhase(const PhaseContext& context, LoadStoreRun& run) : run_(run) {
    const PhasePlan& plan = context.plan;
    key_.kind = plan.kind;
    key_.input_bytes = plan.input_bytes;
    key_.members.reserve(plan.ring.size);
    for (uint32_t i = 0; i < plan.ring.size; ++i) key_.members.push_back(plan.ring.member(i));
    position_ = plan.ring.my_position;
    run.check(key_);
  }
  void start(uint32_t stream, PhaseActions&) override { run_.join(key_, position_, stream); }
  void on_step_done(uint32_t stream, uint32_t, PhaseActions& actions) override { actions.phase_finished(stream); }
  void on_packet_ready(uint32_t stream, PhaseActions&) override { unexpected(stream); }
  void on_packet_received(uint32_t stream, PhaseActions&) override { unexpected(stream); }

 private:
  [[noreturn]] static void unexpected(uint32_t stream) {
    throw Error(fmt::format("stream {}: a system-layer message reached a load-store phase", stream));
  }
  LoadStoreRun& run_;
  InstanceKey key_;
  uint32_t position_ = 0;
};

}  // namespace

CollectiveAlgorithmSpec load_store_algorithm_spec() {
  CollectiveAlgorithmSpec spec;
  spec.name = "load-store";
  spec.summary = "the collective as a load-store plan on the GPU model and NoC (load-store-* keys)";
  spec.implements = {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                     CollectiveKind::kAllToAll};
  spec.config_keys = config_keys();
  spec.parse_key = parse_key;
  spec.check_config = check_config;
  spec.create_run = [](const AlgorithmRunContext& context) -> std::unique_ptr<AlgorithmRun> {
    const Settings settings = settings_of(context.system);
    return with_error_context("collective algorithm 'load-store'", [&] {
      const gpu::GpuConfig gpu = gpu::load_gpu_config(settings.gpu.empty() ? settings.system : settings.gpu);
      const noc::NocConfig network =
          noc::load_noc_config(settings.network.empty() ? settings.system : settings.network);
      return std::make_unique<LoadStoreRun>(context, settings, gpu, network);
    });
  };
  spec.create = [](const PhaseContext& context) -> Phase {
    auto* run = dynamic_cast<LoadStoreRun*>(context.run);
    if (run == nullptr) throw Error("load-store phase without its run state");
    if (context.plan.ring.size < 2) {
      throw Error(fmt::format("load-store {} over {} NPU: a plan needs at least 2 GPUs",
                              collective_name(context.plan.kind), context.plan.ring.size));
    }
    return PluginPhase(std::make_unique<LoadStorePhase>(context, *run));
  };
  return spec;
}

void register_load_store_algorithm() {
  static std::once_flag once;
  std::call_once(once, [] { register_collective_algorithm(load_store_algorithm_spec()); });
}

}  // namespace snr::dsim::load_store
