// Page liveness, fragmentation and the heatmap on an 8-page VMEM (two
// blocks of four 512 B pages), expected values by hand.
#include <gtest/gtest.h>

#include "analyze/analyze.h"
#include "analyze/run_index.h"
#include "analyze/test_run_data.h"
#include "analyze/vmem_usage.h"

namespace snr::analyze {
namespace {

using testing::RunBuilder;

const VmemGeometry kSmall{512, 4, 2};

rundb::RunData with_runs(const std::function<void(RunBuilder&)>& runs, uint64_t total = 40) {
  RunBuilder b;
  b.inst(0, 0x1000, "op", "addi", 0);
  runs(b);
  return b.build(total);
}

TEST(VmemUsage, PageIsUsedFromWriteToLastRead) {
  // Page 3 written 10..12 and read 20..30: used on [10, 31). Samples
  // every 5 cycles of 40: used at 10, 15, 20, 25, 30.
  const rundb::RunData data = with_runs([](RunBuilder& b) {
    b.vmem(0, 3, 3, true, 10, 12);
    b.vmem(0, 3, 3, false, 20, 30);
  });
  const RunIndex index(data);
  const VmemTimeline timeline(index, kSmall);
  const VmemUsage u = timeline.usage(0, 40, 5, 4);
  ASSERT_EQ(u.sample_cycle.size(), 8u);
  const std::vector<double> expected = {1, 1, 7.0 / 8, 7.0 / 8, 7.0 / 8, 7.0 / 8, 7.0 / 8, 1};
  EXPECT_EQ(u.unused_fraction, expected);
  // Heatmap: page 3 is in row 0 (pages 0-3).
  EXPECT_EQ(u.used_pages_per_block[0], (std::vector<uint32_t>{0, 0, 1, 1, 1, 1, 1, 0}));
  EXPECT_EQ(u.used_pages_per_block[1], (std::vector<uint32_t>(8, 0)));
  EXPECT_EQ(u.pages_written_never_read, 0u);
  EXPECT_EQ(u.median_unused_fraction, 7.0 / 8);
}

TEST(VmemUsage, LargestContiguousUnusedRun) {
  // Pages 2 and 3 used over [0, 21): free runs 0-1 and 4-7, the largest 4
  // of 8 pages; afterwards all 8 are free.
  const rundb::RunData data = with_runs([](RunBuilder& b) {
    b.vmem(0, 2, 3, true, 0, 0);
    b.vmem(0, 2, 3, false, 20, 20);
  });
  const RunIndex index(data);
  const VmemTimeline timeline(index, kSmall);
  const VmemUsage u = timeline.usage(0, 40, 10, 4);
  EXPECT_EQ(u.largest_unused_fraction, (std::vector<double>{0.5, 0.5, 0.5, 1.0}));
  EXPECT_EQ(u.unused_fraction, (std::vector<double>{0.75, 0.75, 0.75, 1.0}));
  EXPECT_EQ(u.median_largest_unused_fraction, 0.5);
  EXPECT_EQ(timeline.largest_unused_run(0, 5, 15), 4u);
  EXPECT_EQ(timeline.largest_unused_run(0, 25, 40), 8u);
}

TEST(VmemUsage, WrittenNeverReadIsUnused) {
  // Page 5: written at 10, overwritten at 20 (the first value is dead),
  // read at 30. Page 6: written at 35, not read before the window ends.
  // A read of page 7 with no write in the window keeps it used from 0.
  const rundb::RunData data = with_runs([](RunBuilder& b) {
    b.vmem(0, 5, 5, true, 10, 10);
    b.vmem(0, 5, 5, false, 30, 30);
    b.vmem(0, 6, 6, true, 35, 35);
    b.vmem(0, 7, 7, false, 5, 8);
  });
  // The tracker's runs alternate kinds per page; two writes in a row are
  // two rows here only because the test says so.
  rundb::RunData copy = data;
  copy.vmem_runs.push_back({0, 5, 5, true, 20, 20, 1});
  const RunIndex index(copy);
  const VmemTimeline timeline(index, kSmall);
  const VmemUsage u = timeline.usage(0, 40, 5, 4);
  EXPECT_EQ(u.pages_written_never_read, 1u);
  EXPECT_EQ(u.pages_written_unread_at_end, 1u);
  // Page 7 used at 0 and 5; page 5 used at 20..30 (second value only).
  EXPECT_EQ(u.used_pages_per_block[1], (std::vector<uint32_t>{1, 1, 0, 0, 1, 1, 1, 0}));
}

TEST(VmemUsage, SpanQueriesForSuggestions) {
  // Page 1 is read at 50: a DMA landing on pages 0-1 any time before 50
  // would clobber it; pages 4-5 are never touched.
  const rundb::RunData data = with_runs([](RunBuilder& b) {
    b.vmem(0, 1, 1, true, 10, 10);
    b.vmem(0, 1, 1, false, 50, 50);
  }, 100);
  const RunIndex index(data);
  const VmemTimeline timeline(index, kSmall);
  EXPECT_FALSE(timeline.pages_untouched(0, 0, 1, 0, 60));
  EXPECT_FALSE(timeline.pages_untouched(0, 0, 1, 20, 30));  // live value, no access in the span
  EXPECT_TRUE(timeline.pages_untouched(0, 0, 1, 51, 90));
  EXPECT_TRUE(timeline.pages_untouched(0, 4, 5, 0, 100));
  EXPECT_EQ(timeline.largest_unused_run(0, 0, 100), 6u);  // pages 2-7
}

TEST(VmemUsage, DestinationPagesOfADma) {
  rundb::DmaRecord d;
  d.dst_space = "vmem";
  d.dst_address = 0x1000'0000 + 1024 + 100;  // page 2, offset 100
  d.bytes = 1000;                            // through byte 2123: page 4
  uint64_t first = 0, last = 0;
  ASSERT_TRUE(dma_destination_pages(d, kSmall, first, last));
  EXPECT_EQ(first, 2u);
  EXPECT_EQ(last, 4u);
  d.dst_space = "hbm";
  EXPECT_FALSE(dma_destination_pages(d, kSmall, first, last));
}

TEST(VmemUsage, MedianOfEvenAndOddCounts) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({}), 0);
}

TEST(VmemUsage, HeatmapRowsMergeBlocksBeyondTheLimit) {
  // 2 blocks of 4 pages, at most 1 heatmap row: one row of 8 pages.
  const rundb::RunData data = with_runs([](RunBuilder& b) {
    b.vmem(0, 0, 7, true, 0, 0);
    b.vmem(0, 0, 7, false, 30, 30);
  });
  AnalyzeOptions options;
  options.max_heatmap_rows = 1;
  options.vmem_sample_cycles = 10;
  const Analysis a = analyze(data, options);
  ASSERT_EQ(a.vmem.size(), 1u);
  EXPECT_EQ(a.vmem[0].pages_per_block, 8u);
  ASSERT_EQ(a.vmem[0].used_pages_per_block.size(), 1u);
  EXPECT_EQ(a.vmem[0].used_pages_per_block[0], (std::vector<uint32_t>{8, 8, 8, 8}));
}

}  // namespace
}  // namespace snr::analyze
