// The GPU domain of a `snr sim` run with load-store collectives: one GPU
// model (all NPUs of the run as its GPUs, so concurrent collectives contend
// for CUs and links) and its memory network on an event loop of their own
// in picoseconds, co-simulated under the run's loop in nanoseconds.
//
// Time: the ns loop is the master. Whenever it reaches t_ns and something
// touches the domain (a launch, or the domain's wake-up), the ps loop runs
// every event up to t_ns * 1000 ps and stops there. While the GPUs have
// work, exactly one live wake-up sits in the ns loop, at
// ceil(next ps event / 1000): so a ps event at p always runs while the ns
// loop is at ceil(p / 1000), and a kernel that completes at p is reported
// at ceil(p / 1000) ns — at most 1 ns (999 ps) late, never early, and
// never before something the ns side did at an earlier ns time. A launch
// at t_ns starts at exactly t_ns * 1000 ps; the launches of one ns instant
// are collected and placed together, in the order they were asked for,
// after the GPU side caught up with that instant, so that a collective
// whose members all start at t_ns begins exactly as `snr collective`
// begins it (every kernel placed before any of them issues).
//
// Determinism: both loops order events by (time, scheduling order), the ps
// loop only runs inside ns events, and the points where it runs (the
// wake-ups and launches) are themselves ns events; the same inputs give
// the same interleaving, event for event. Superseded wake-ups (a launch
// asked for an earlier one) stay queued and do nothing when they fire.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "dsim/core/event_loop.h"
#include "dsim/gpu/gpu_config.h"
#include "dsim/gpu/gpu_model.h"
#include "dsim/gpu/memory_network.h"

namespace snr::dsim::load_store {

class GpuDomain final : public EventHandler {
 public:
  // Builds the memory network on the domain's ps loop.
  using NetworkFactory = std::function<std::unique_ptr<gpu::MemoryNetwork>(EventLoop& ps_loop)>;
  // Registers the domain's wake-up handler on `ns_loop`, which must
  // outlive it.
  GpuDomain(EventLoop& ns_loop, uint32_t gpus, const gpu::GpuConfig& config, const NetworkFactory& make_network);
  ~GpuDomain() override;
  GpuDomain(const GpuDomain&) = delete;
  GpuDomain& operator=(const GpuDomain&) = delete;

  // The ns time a ps instant is reported at: the next whole ns.
  static TimeNs report_ns(gpu::TimePs ps) { return (ps + 999) / 1000; }

  // gpu::GpuModel::add_program (no GPU time passes).
  uint32_t add_program(const loadstore::Program& fragment, const std::vector<uint32_t>& gpu_of,
                       gpu::GpuModel::KernelTuning tuning = {});
  // Launches `kernel` at the ns loop's now (now * 1000 ps); `done` gets the
  // ns time its completion is reported at (report_ns, >= the ns loop's now
  // when it runs) and may schedule ns events but not launch.
  void launch(uint32_t kernel, std::function<void(TimeNs report_ns)> done);

  // The ns events: wake-ups and the launches of an instant.
  void handle(const Event& event) override;

  [[nodiscard]] const gpu::GpuModel& model() const { return *model_; }
  [[nodiscard]] gpu::TimePs gpu_now_ps() const { return ps_loop_.now(); }
  [[nodiscard]] uint64_t wakeups() const { return wakeups_; }
  [[nodiscard]] uint64_t ps_events() const { return ps_loop_.events_processed(); }

 private:
  // The ps loop's own marker, which moves its clock to a target instant.
  class Clock final : public EventHandler {
   public:
    void handle(const Event&) override {}
  };
  // Runs the ps loop up to the ns loop's now, then keeps one wake-up.
  void sync();
  void arm();
  void launch_collected();

  EventLoop& ns_loop_;
  HandlerId ns_handler_ = 0;
  EventLoop ps_loop_;
  Clock clock_;
  HandlerId clock_handler_ = 0;
  std::unique_ptr<gpu::MemoryNetwork> network_;
  std::unique_ptr<gpu::GpuModel> model_;
  static constexpr TimeNs kNoWakeup = UINT64_MAX;
  TimeNs wakeup_ns_ = kNoWakeup;  // the live wake-up
  struct Launch {
    uint32_t kernel;
    std::function<void(TimeNs)> done;
  };
  std::vector<Launch> launches_;  // asked for at the ns loop's now, not yet placed
  uint64_t wakeups_ = 0;
};

}  // namespace snr::dsim::load_store
