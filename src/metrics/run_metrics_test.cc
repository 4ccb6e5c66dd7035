// The metrics of a live run (the collector `snr run` uses) equal the
// metrics of the run data the replayer's tracker writes for the same run:
// both listen to one run of the built-in demo (DMAs, remote DMAs, matrix
// and vector work, semaphore waits on two chips).
#include <gtest/gtest.h>

#include "hw/config.h"
#include "metrics/collector.h"
#include "metrics/run_metrics.h"
#include "sim/demo_program.h"
#include "sim/system.h"
#include "sim/timing.h"
#include "tracker/tracker.h"

namespace snr::metrics {
namespace {

TEST(RunMetrics, LiveCollectorAndRunDataAgreeOnTheDemo) {
  hw::HwConfig config = hw::preset("tpu-v4-like");
  config.set("chips", "2");
  sim::EventBus bus;
  MetricsCollector collector(bus, 2, config.mxu_count);
  tracker::PerformanceTracker tracker(bus, 2, tracker::TrackerHooks{});
  sim::System system(config, &bus);
  system.load(sim::demo::build_program());
  sim::demo::seed_inputs(system);
  const sim::RunOutcome outcome = sim::TimingSimulator(system).run(10'000'000);
  const rundb::RunData data = tracker.finish();
  ASSERT_EQ(data.total_cycles, outcome.cycles);

  const RunMetrics live = collector.finish(outcome.cycles);
  const RunMetrics replayed = metrics_of(data, config.mxu_count);
  ASSERT_EQ(live.chips.size(), 2u);
  ASSERT_EQ(replayed.chips.size(), 2u);
  uint64_t waited_stall = 0;
  for (uint32_t c = 0; c < 2; ++c) {
    const ChipMetrics& a = live.chips[c];
    const ChipMetrics& b = replayed.chips[c];
    EXPECT_EQ(a.instructions, outcome.chips[c].instructions) << c;
    EXPECT_EQ(a.instructions, b.instructions) << c;
    EXPECT_EQ(a.stall_cycles, b.stall_cycles) << c;
    EXPECT_EQ(a.stall_cycles, outcome.chips[c].stall_cycles) << c;
    EXPECT_EQ(a.dma_transfers, outcome.chips[c].dma_count) << c;
    EXPECT_EQ(a.dma_transfers, b.dma_transfers) << c;
    EXPECT_EQ(a.dma_bytes, b.dma_bytes) << c;
    EXPECT_EQ(a.dma_base_stall_cycles, b.dma_base_stall_cycles) << c;
    EXPECT_EQ(a.dma_transfer_stall_cycles, b.dma_transfer_stall_cycles) << c;
    waited_stall += a.dma_base_stall_cycles + a.dma_transfer_stall_cycles;
    for (BusyUnit unit : kBusyUnits) {
      EXPECT_EQ(a.profile(unit).busy_cycles(0, outcome.cycles), b.profile(unit).busy_cycles(0, outcome.cycles))
          << c << " " << busy_unit_name(unit);
      EXPECT_GT(a.profile(unit).busy_cycles(0, outcome.cycles), 0u) << c << " " << busy_unit_name(unit);
      EXPECT_DOUBLE_EQ(live.utilization(c, unit), replayed.utilization(c, unit));
    }
  }
  // The demo's WAITs stall on DMAs, and every such cycle is charged.
  EXPECT_GT(waited_stall, 0u);
  uint64_t semaphore_wait = 0;
  for (const auto& chip : outcome.chips) semaphore_wait += chip.stall_cycles[static_cast<size_t>(sim::StallReason::kSemaphoreWait)];
  EXPECT_LE(waited_stall, semaphore_wait);
  ASSERT_EQ(live.waited_dmas.size(), replayed.waited_dmas.size());
  for (size_t i = 0; i < live.waited_dmas.size(); ++i) {
    EXPECT_EQ(live.waited_dmas[i].dma_id, replayed.waited_dmas[i].dma_id);
    EXPECT_EQ(live.waited_dmas[i].base_stall_cycles, replayed.waited_dmas[i].base_stall_cycles);
    EXPECT_EQ(live.waited_dmas[i].transfer_stall_cycles, replayed.waited_dmas[i].transfer_stall_cycles);
  }
}

TEST(RunMetrics, RunDataWithAnUnknownStallReasonOrUnitIsAnError) {
  rundb::RunData data;
  data.instructions.push_back({0, 0, 0, 0x1000, 0, "addi", 0, 1, 3, "bank-conflict"});
  try {
    (void)metrics_of(data, 1);
    ADD_FAILURE() << "an unknown stall reason was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "run data: instruction step 0: unknown stall reason 'bank-conflict'");
  }
  data.instructions.back().stall_reason = "data-hazard";
  EXPECT_NO_THROW(metrics_of(data, 1));
  data.unit_busy.push_back({0, "tensor-core", 0, 4, 0, 1});
  EXPECT_THROW(metrics_of(data, 1), Error);
}

}  // namespace
}  // namespace snr::metrics
