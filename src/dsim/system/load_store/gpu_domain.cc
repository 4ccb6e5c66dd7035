#include "dsim/system/load_store/gpu_domain.h"

#include <fmt/format.h>

#include "common/error.h"

namespace snr::dsim::load_store {
namespace {

struct Wakeup {
  static constexpr uint8_t kKind = 1;
};
struct LaunchCollected {
  static constexpr uint8_t kKind = 2;
};
struct ClockMark {
  static constexpr uint8_t kKind = 1;
};

}  // namespace

GpuDomain::GpuDomain(EventLoop& ns_loop, uint32_t gpus, const gpu::GpuConfig& config,
                     const NetworkFactory& make_network)
    : ns_loop_(ns_loop) {
  ns_handler_ = ns_loop.add_handler("load-store gpu domain", *this);
  clock_handler_ = ps_loop_.add_handler("load-store gpu clock", clock_);
  network_ = make_network(ps_loop_);
  model_ = std::make_unique<gpu::GpuModel>(gpus, config, ps_loop_, *network_);
}

GpuDomain::~GpuDomain() = default;

void GpuDomain::sync() {
  const gpu::TimePs target = ns_loop_.now() * 1000;
  if (ps_loop_.now() > target) {
    throw Error(fmt::format("load-store gpu domain: the GPU clock ({} ps) is past the system's ({} ns)",
                            ps_loop_.now(), ns_loop_.now()));
  }
  // The marker goes after every event already at `target`, so the clock
  // ends exactly there even when nothing else is due.
  if (ps_loop_.now() < target) ps_loop_.schedule(target, clock_handler_, ClockMark{});
  ps_loop_.run_until(target);
  arm();
}

void GpuDomain::arm() {
  if (ps_loop_.queue().empty()) return;
  const TimeNs at = report_ns(ps_loop_.queue().next_time());
  if (wakeup_ns_ != kNoWakeup && wakeup_ns_ <= at) return;
  wakeup_ns_ = at;
  ns_loop_.schedule(at, ns_handler_, Wakeup{});
}

void GpuDomain::handle(const Event& event) {
  if (event.kind == LaunchCollected::kKind) {
    launch_collected();
    return;
  }
  if (event.kind != Wakeup::kKind) throw_unknown_event("load-store gpu domain", event);
  if (event.time_ns != wakeup_ns_) return;  // superseded by an earlier one
  wakeup_ns_ = kNoWakeup;
  ++wakeups_;
  sync();
}

uint32_t GpuDomain::add_program(const loadstore::Program& fragment, const std::vector<uint32_t>& gpu_of,
                                gpu::GpuModel::KernelTuning tuning) {
  // Only appends: a GPU side that has not caught up yet at most keeps
  // finished programs' state a little longer.
  return model_->add_program(fragment, gpu_of, tuning);
}

void GpuDomain::launch(uint32_t kernel, std::function<void(TimeNs report_ns)> done) {
  if (launches_.empty()) ns_loop_.schedule(ns_loop_.now(), ns_handler_, LaunchCollected{});
  launches_.push_back(Launch{kernel, std::move(done)});
}

void GpuDomain::launch_collected() {
  sync();
  std::vector<Launch> launches;
  launches.swap(launches_);
  for (Launch& l : launches) {
    model_->launch(l.kernel, [this, done = std::move(l.done)](uint32_t) { done(report_ns(ps_loop_.now())); });
  }
  arm();
}

}  // namespace snr::dsim::load_store
