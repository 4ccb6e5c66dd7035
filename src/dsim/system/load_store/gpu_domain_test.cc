// The ns / ps bridge of the load-store GPU domain (gpu_domain.h), on the
// fixed-latency network: 1 GHz clock, local one-way 5.25 ns, so that a
// one-line local copy launched at a whole ns t ends at t + 21.5 ns (load at
// t, back at t + 10.5, store at the next cycle t + 11, acknowledged at
// t + 21.5): a completion between two ns.
#include "dsim/system/load_store/gpu_domain.h"

#include <gtest/gtest.h>

#include <functional>

#include "dsim/core/actions_at_for_tests.h"
#include "dsim/gpu/fixed_latency_network.h"
#include "dsim/gpu/one_line_copy_for_tests.h"

namespace snr::dsim::load_store {
namespace {

namespace ls = loadstore;

constexpr gpu::TimePs kNs = 1000;
constexpr gpu::TimePs kLocalPs = 5250;

gpu::GpuConfig one_cu_config() {
  gpu::GpuConfig c;
  c.compute_units = 1;
  c.workgroups_per_cu = 1;
  c.clock_ghz = 1.0;
  c.unroll = 1;
  return c;
}

GpuDomain::NetworkFactory fixed_latency() {
  return [](EventLoop& ps_loop) { return std::make_unique<gpu::FixedLatencyNetwork>(ps_loop, kLocalPs, 500 * kNs); };
}

TEST(GpuDomain, ReportsCompletionAtTheNextWholeNanosecond) {
  EXPECT_EQ(GpuDomain::report_ns(0), 0u);
  EXPECT_EQ(GpuDomain::report_ns(1), 1u);
  EXPECT_EQ(GpuDomain::report_ns(1000), 1u);
  EXPECT_EQ(GpuDomain::report_ns(1001), 2u);
  EXPECT_EQ(GpuDomain::report_ns(24500), 25u);
}

struct Completion {
  TimeNs reported_ns = 0;  // what the domain said
  TimeNs seen_ns = 0;      // when the ns loop ran the event scheduled for it
};

// Two copies on one GPU launched at ns 3 and 4 from the ns side: the
// second waits for the one CU slot.
std::vector<Completion> run_two_copies(uint64_t* wakeups = nullptr, uint64_t* ps_events = nullptr) {
  EventLoop ns_loop;
  GpuDomain domain(ns_loop, 1, one_cu_config(), fixed_latency());
  ActionsAt side(ns_loop, "test system layer");  // the ns side, as the system layer's events are
  const ls::Program copy = gpu::one_line_copy();
  std::vector<Completion> done(2);
  for (uint32_t i = 0; i < 2; ++i) {
    side.at(3 + i, [&, i] {
      const uint32_t k = domain.add_program(copy, {0});
      domain.launch(k, [&, i](TimeNs report_ns) {
        done[i].reported_ns = report_ns;
        side.at(report_ns, [&, i] { done[i].seen_ns = ns_loop.now(); });
      });
    });
  }
  ns_loop.run();
  if (wakeups != nullptr) *wakeups = domain.wakeups();
  if (ps_events != nullptr) *ps_events = domain.ps_events();
  return done;
}

TEST(GpuDomain, LaunchesAtNsTimesAndReportsRoundedUp) {
  uint64_t wakeups = 0;
  const std::vector<Completion> done = run_two_copies(&wakeups);
  // First: 3 ns -> 24.5 ns, reported at 25. Second: placed when the first
  // retires (24.5), its load at the next cycle 25, back at 35.5, store at
  // 36, acknowledged at 46.5, reported at 47.
  EXPECT_EQ(done[0].reported_ns, 25u);
  EXPECT_EQ(done[0].seen_ns, 25u);
  EXPECT_EQ(done[1].reported_ns, 47u);
  EXPECT_EQ(done[1].seen_ns, 47u);
  // The ns loop woke the GPU side only when it had events due, never more
  // often than once per ns instant with work.
  EXPECT_GT(wakeups, 0u);
  EXPECT_LE(wakeups, 47u);
}

TEST(GpuDomain, SameInputsSameRunEventForEvent) {
  uint64_t wakeups_a = 0, wakeups_b = 0, events_a = 0, events_b = 0;
  const auto a = run_two_copies(&wakeups_a, &events_a);
  const auto b = run_two_copies(&wakeups_b, &events_b);
  EXPECT_EQ(a[0].reported_ns, b[0].reported_ns);
  EXPECT_EQ(a[1].reported_ns, b[1].reported_ns);
  EXPECT_EQ(wakeups_a, wakeups_b);
  EXPECT_EQ(events_a, events_b);
}

// Launches a kernel at a ps time (a run without the bridge).
struct Launcher final : EventHandler {
  struct Which {
    static constexpr uint8_t kKind = 1;
    uint32_t k;
  };
  std::function<void(uint32_t)> go;
  void handle(const Event& e) override { go(e.get<Which>().k); }
};

TEST(GpuDomain, MatchesTheModelRunAloneInPicoseconds) {
  // The same two launches directly on a ps loop (3000 and 4000 ps): the
  // bridge adds nothing but the final rounding.
  EventLoop loop;
  gpu::FixedLatencyNetwork network(loop, kLocalPs, 500 * kNs);
  gpu::GpuModel model(1, one_cu_config(), loop, network);
  const ls::Program copy = gpu::one_line_copy();
  const uint32_t k0 = model.add_program(copy, {0});
  const uint32_t k1 = model.add_program(copy, {0});
  gpu::TimePs end0 = 0, end1 = 0;
  Launcher launcher;
  launcher.go = [&](uint32_t k) {
    model.launch(k, [&, k](uint32_t) { (k == k0 ? end0 : end1) = loop.now(); });
  };
  const HandlerId id = loop.add_handler("launcher", launcher);
  loop.schedule(3000, id, Launcher::Which{k0});
  loop.schedule(4000, id, Launcher::Which{k1});
  loop.run();
  const auto bridged = run_two_copies();
  EXPECT_EQ(bridged[0].reported_ns, GpuDomain::report_ns(end0));
  EXPECT_EQ(bridged[1].reported_ns, GpuDomain::report_ns(end1));
  EXPECT_EQ(end0, 24500u);
}

}  // namespace
}  // namespace snr::dsim::load_store
