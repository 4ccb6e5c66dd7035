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

// A recording of chips 1 and 3 of four: the unrecorded chips ran nothing,
// so the mean utilization is over the two that did (both 50% busy), not 25%.
TEST(RunMetrics, MeanUtilizationIsOverTheRecordedChips) {
  rundb::RunData data;
  data.total_cycles = 8;
  for (uint32_t chip = 0; chip < 4; ++chip) data.chips.push_back({chip, 0, 0, 0, 0});
  for (uint32_t chip : {1u, 3u}) {
    data.instructions.push_back({chip, chip, 0, 0x1000, 0, "add", 0, 1, 0, "none"});
    data.unit_busy.push_back({chip, "scalar", 0, 4, chip, 1});
  }
  EXPECT_DOUBLE_EQ(metrics_of(data, 1).mean_utilization(BusyUnit::kScalar), 0.25);
  rundb::set_recorded_chips(data, {1, 3});
  const RunMetrics metrics = metrics_of(data, 1);
  EXPECT_EQ(metrics.recorded_chip_count(), 2u);
  EXPECT_FALSE(metrics.chips[0].recorded);
  EXPECT_TRUE(metrics.chips[3].recorded);
  EXPECT_DOUBLE_EQ(metrics.mean_utilization(BusyUnit::kScalar), 0.5);

  // An instruction on a chip the list leaves out contradicts it.
  data.instructions.push_back({2, 2, 0, 0x1000, 0, "add", 1, 2, 0, "none"});
  try {
    (void)metrics_of(data, 1);
    ADD_FAILURE() << "an instruction on an unrecorded chip was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "run data: instruction step 2 ran on chip 2, which meta.recorded_chips leaves out");
  }
}

TEST(RunMetrics, RecordedChipsListIsChecked) {
  rundb::RunData data;
  EXPECT_FALSE(rundb::recorded_chips(data, 4).has_value());
  rundb::set_recorded_chips(data, {0, 2});
  EXPECT_EQ(rundb::recorded_chips(data, 4), (std::vector<uint32_t>{0, 2}));
  for (const char* bad : {"2 0", "1 1", "0 4", "x", "1,2", "-1", ""}) {
    data.meta.back().second = bad;
    EXPECT_THROW((void)rundb::recorded_chips(data, 4), Error) << bad;
  }
}

}  // namespace
}  // namespace snr::metrics
