// Busy profiles and windowed utilization, expected values by hand.
#include <gtest/gtest.h>

#include "analyze/analyze.h"
#include "analyze/run_index.h"
#include "analyze/test_run_data.h"
#include "analyze/utilization.h"

namespace snr::analyze {
namespace {

using testing::RunBuilder;

TEST(Utilization, WindowsPerUnitAndDmaTransferring) {
  // Matrix busy [0,50) and [100,150) of 200 cycles; a DMA issued at 20
  // moves data from its transfer start at 40 to its end at 70 (busy.h: base
  // latency is not busy). Windows of 50:
  //   matrix 1, 0, 1, 0;  dma 10/50, 20/50, 0, 0.
  RunBuilder b;
  const uint64_t issue = b.inst(0, 0x1000, "op", "dma.issue", 20);
  b.inst(0, 0x1004, "op", "addi", 199);
  b.dma(issue, 64, 20, 40, 40, 70);
  b.busy(0, "matrix", 0, 50);
  b.busy(0, "matrix", 100, 150);
  const rundb::RunData data = b.build(200);
  AnalyzeOptions options;
  options.window_cycles = 50;
  const Analysis a = analyze(data, options);
  const UtilizationSeries* matrix = nullptr;
  const UtilizationSeries* dma = nullptr;
  for (const auto& s : a.utilization) {
    if (s.unit == "matrix") matrix = &s;
    if (s.unit == "dma") dma = &s;
  }
  ASSERT_NE(matrix, nullptr);
  ASSERT_NE(dma, nullptr);
  EXPECT_EQ(matrix->window_cycles, 50u);
  EXPECT_EQ(matrix->busy_fraction, (std::vector<double>{1, 0, 1, 0}));
  EXPECT_EQ(dma->busy_fraction, (std::vector<double>{0.2, 0.4, 0, 0}));
  EXPECT_DOUBLE_EQ(a.summary.unit_utilization.at("matrix"), 0.5);
  // The op spans cycles 20..200: matrix busy 30 + 50 of those 180.
  ASSERT_EQ(a.ops.size(), 1u);
  EXPECT_DOUBLE_EQ(a.ops[0].unit_utilization.at("matrix"), 80.0 / 180.0);
}

TEST(Utilization, WindowChosenFromTargetPoints) {
  // 2000 cycles at 100 points: windows of 20 cycles, 100 of them; the last
  // partial window of a 2010-cycle run is cut at the end, not diluted.
  RunBuilder b;
  b.inst(0, 0x1000, "op", "addi", 2009);
  b.busy(0, "scalar", 2000, 2010);
  const rundb::RunData data = b.build(2010);
  AnalyzeOptions options;
  options.target_points = 100;
  const Analysis a = analyze(data, options);
  for (const auto& s : a.utilization) {
    EXPECT_EQ(s.window_cycles, 21u);  // ceil(2010 / 100)
    EXPECT_EQ(s.busy_fraction.size(), 96u);  // ceil(2010 / 21)
    // The last window is [1995, 2010): busy 2000..2010, 10 of its 15 cycles.
    EXPECT_EQ(s.window_length_cycles(0), 21u);
    EXPECT_EQ(s.window_length_cycles(95), 15u);
    if (s.unit == "scalar") {
      EXPECT_DOUBLE_EQ(s.busy_fraction.back(), 10.0 / 15.0);
    }
  }
}

}  // namespace
}  // namespace snr::analyze
