// The saving model on hand-built streams: a move whose DMA still queues on
// a link busy with other traffic, a prefetch whose hidden stall reappears
// at the next WAIT, and the recorded order predicting no change.
#include "analyze/saving_model.h"

#include <gtest/gtest.h>

#include "analyze/analyze.h"
#include "analyze/run_index.h"
#include "analyze/test_run_data.h"

namespace snr::analyze {
namespace {

using testing::RunBuilder;

// Chip 0: ten instructions at cycles 0, 100, ..., 900 (positions 0-9),
// then `lui` at 1590 (position 10), the ISSUE at 1600 (11) and its WAIT
// from 1601 to 2100 (12). The DMA: base latency done at 1700, transfer
// 1700..2100 (400 cycles) on chip0.hbm->chip0.vmem.
rundb::RunData prefetch_window(bool busy_link, uint64_t other_transfer_cycles) {
  RunBuilder b;
  for (int i = 0; i < 10; ++i) b.inst(0, 0x1000 + 4 * i, "a", "vadd.f32", 100 * i);
  const uint64_t lui = b.inst(0, 0x1028, "b", "lui", 1590);
  const uint64_t issue = b.inst(0, 0x102c, "b", "dma.issue", 1600);
  const uint64_t wait = b.inst(0, 0x1030, "b", "sem.wait", 2100, 499);
  b.reg(lui, issue, 5);
  b.dma(issue, 4096, 1600, 1700, 1700, 2100);
  b.waited(0, wait, 1601, 2100);
  if (busy_link) {
    // Another chip's transfer on the same link, queued from cycle 1000.
    const uint64_t other = b.inst(1, 0x1000, "a", "dma.issue", 500);
    rundb::DmaRecord& d = b.dma(other, 4096, 500, 1000, 1000, 1000 + other_transfer_cycles);
    d.link = "chip0.hbm->chip0.vmem";
  }
  return b.build();
}

int64_t predict(const rundb::RunData& data, const std::vector<PositionMove>& moves) {
  const RunIndex index(data);
  return SavingModel(index, 0, 64).predicted_saving_cycles(moves);
}

TEST(SavingModel, TheRecordedOrderSavesNothing) {
  EXPECT_EQ(predict(prefetch_window(false, 0), {}), 0);
  EXPECT_EQ(predict(prefetch_window(true, 300), {}), 0);
}

TEST(SavingModel, AnIdleLinkHidesTheWholeStall) {
  // Issued at cycle 900 (before position 9): done at 900 + 100 + 400 =
  // 1400, before the WAIT starts at 1601.
  EXPECT_EQ(predict(prefetch_window(false, 0), {{{10, 11}, 9}}), 499);
}

TEST(SavingModel, TheMovedDmaQueuesBehindOtherTrafficOnItsLink) {
  // Arrives at 1000 on a link another transfer holds until 1300 (it came
  // first): moves 1300..1700, the WAIT stalls 1601..1700 → saves 400.
  EXPECT_EQ(predict(prefetch_window(true, 300), {{{10, 11}, 9}}), 400);
  // Held until 1700: the transfer cannot start earlier than it did.
  EXPECT_EQ(predict(prefetch_window(true, 700), {{{10, 11}, 9}}), 0);
}

TEST(SavingModel, AHiddenStallReappearsAtTheNextWait) {
  // A prefetch pipeline: DMA A (issued at 1000) is waited at once, B
  // (issued at 1001) right after; each has 490 cycles of base latency and
  // 10 of transfer, B queued behind A on the link. Moving A's ISSUE to
  // cycle 0 hides A's 498-cycle stall, but the program then reaches B's
  // WAIT ~500 cycles earlier, and B, issued where it was, is not done any
  // sooner: of the 507 recorded stall cycles 498 remain, at B's WAIT.
  RunBuilder b;
  b.inst(0, 0x1000, "op", "vadd.f32", 0);
  const uint64_t a = b.inst(0, 0x1004, "op", "dma.issue", 1000);
  const uint64_t bb = b.inst(0, 0x1008, "op", "dma.issue", 1001);
  const uint64_t wait_a = b.inst(0, 0x100c, "op", "sem.wait", 1500, 498);
  const uint64_t wait_b = b.inst(0, 0x1010, "op", "sem.wait", 1511, 9);
  b.dma(a, 64, 1000, 1490, 1490, 1500);
  b.dma(bb, 64, 1001, 1491, 1500, 1510);
  b.waited(0, wait_a, 1002, 1500);
  b.waited(1, wait_b, 1502, 1511);
  const rundb::RunData data = b.build();
  EXPECT_EQ(predict(data, {}), 0);
  // B now has the link to itself (1491..1501) and its WAIT ends one cycle
  // after (the recorded semaphore visibility).
  EXPECT_EQ(predict(data, {{{1}, 0}}), 9);
}

TEST(SavingModel, ASuggestionTheModelSeesNoSavingInIsDropped) {
  // The link stays busy until the recorded transfer start: nothing to gain.
  const Analysis a = analyze(prefetch_window(true, 700), {});
  EXPECT_TRUE(a.suggestions.empty());
  const Analysis idle = analyze(prefetch_window(false, 0), {});
  ASSERT_EQ(idle.suggestions.size(), 1u);
  EXPECT_EQ(idle.suggestions[0].hidden_stall_cycles, 499u);
  EXPECT_EQ(idle.suggestions[0].predicted_saving_cycles, 499u);
}

}  // namespace
}  // namespace snr::analyze
