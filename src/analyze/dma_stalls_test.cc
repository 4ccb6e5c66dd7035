// Figure 4's three cases, a WAIT shared by two DMAs, and the groupings,
// with every expected number worked out by hand in the comments.
#include <gtest/gtest.h>

#include "analyze/analyze.h"
#include "common/error.h"
#include "analyze/dma_stalls.h"
#include "analyze/run_index.h"
#include "analyze/test_run_data.h"

namespace snr::analyze {
namespace {

using testing::RunBuilder;

// One DMA issued at cycle 0: base latency done at 100, transfer 100..150.
// Its WAIT starts at `wait_start` and ends at max(wait_start, 150).
DmaStall one_dma(uint64_t wait_start) {
  RunBuilder b;
  const uint64_t issue = b.inst(0, 0x1000, "op", "dma.issue", 0);
  const uint64_t wait_end = std::max<uint64_t>(wait_start, 150);
  const uint64_t wait = b.inst(0, 0x1004, "op", "sem.wait", wait_end, wait_end - wait_start);
  b.dma(issue, 4096, 0, 100, 100, 150);
  b.waited(0, wait, wait_start, wait_end);
  const rundb::RunData data = b.build();
  const RunIndex index(data);
  return dma_stalls(index).at(0);
}

TEST(DmaStalls, WaitBeforeBaseLatencyStallsOnBothParts) {
  // Figure 4 case 1: WAIT at 20 < base done 100: base part 100-20 = 80,
  // transfer part 150-100 = 50.
  const DmaStall s = one_dma(20);
  EXPECT_EQ(s.base_stall_cycles, 80u);
  EXPECT_EQ(s.transfer_stall_cycles, 50u);
  EXPECT_EQ(s.slack_cycles, 0u);
  EXPECT_EQ(s.stall_cycles(), 130u);
}

TEST(DmaStalls, WaitAfterBaseLatencyStallsOnTransferOnly) {
  // Case 2: WAIT at 120, between base done (100) and transfer end (150).
  const DmaStall s = one_dma(120);
  EXPECT_EQ(s.base_stall_cycles, 0u);
  EXPECT_EQ(s.transfer_stall_cycles, 30u);
  EXPECT_EQ(s.slack_cycles, 0u);
}

TEST(DmaStalls, WaitAfterCompletionLeavesSlack) {
  // Case 3: WAIT at 200, 50 cycles after the transfer ended at 150.
  const DmaStall s = one_dma(200);
  EXPECT_EQ(s.stall_cycles(), 0u);
  EXPECT_EQ(s.slack_cycles, 50u);
  ASSERT_TRUE(s.wait_start_cycle.has_value());
  EXPECT_EQ(*s.wait_start_cycle, 200u);
}

TEST(DmaStalls, SharedWaitIsChargedInCompletionOrder) {
  // Two DMAs on one WAIT (20..180). The first ends at 150: it owns 20..150
  // (base 100-20 = 80, transfer 50). The second ends at 180 and owns
  // 150..180; its base was done at 110 < 150, so all 30 is transfer.
  RunBuilder b;
  const uint64_t i0 = b.inst(0, 0x1000, "op", "dma.issue", 0);
  const uint64_t i1 = b.inst(0, 0x1004, "op", "dma.issue", 10);
  const uint64_t wait = b.inst(0, 0x1008, "op", "sem.wait", 180, 160);
  b.dma(i0, 64, 0, 100, 100, 150);
  b.dma(i1, 64, 10, 110, 150, 180);
  b.waited(0, wait, 20, 180);
  b.waited(1, wait, 20, 180);
  const rundb::RunData data = b.build();
  const RunIndex index(data);
  const auto stalls = dma_stalls(index);
  EXPECT_EQ(stalls[0].base_stall_cycles, 80u);
  EXPECT_EQ(stalls[0].transfer_stall_cycles, 50u);
  EXPECT_EQ(stalls[1].base_stall_cycles, 0u);
  EXPECT_EQ(stalls[1].transfer_stall_cycles, 30u);
  // The charges add up to the WAIT's stall.
  EXPECT_EQ(stalls[0].stall_cycles() + stalls[1].stall_cycles(), 160u);
}

TEST(DmaStalls, UnwaitedDmaHasNoStallAndNoWait) {
  RunBuilder b;
  const uint64_t i0 = b.inst(0, 0x1000, "op", "dma.issue", 0);
  b.dma(i0, 64, 0, 100, 100, 150);
  const rundb::RunData data = b.build();
  const RunIndex index(data);
  const DmaStall s = dma_stalls(index).at(0);
  EXPECT_FALSE(s.wait_step.has_value());
  EXPECT_EQ(s.stall_cycles(), 0u);
  EXPECT_EQ(s.slack_cycles, 0u);
}

TEST(DmaStalls, GroupsByLinkAndOpSortedByStall) {
  // Link A: one DMA stalling 130 (case 1). Link B: two DMAs, one stalling
  // 30 (case 2), one with slack 50 (case 3).
  RunBuilder b;
  const uint64_t a = b.inst(0, 0x1000, "alpha", "dma.issue", 0);
  const uint64_t c = b.inst(0, 0x1004, "beta", "dma.issue", 0);
  const uint64_t d = b.inst(0, 0x1008, "beta", "dma.issue", 0);
  const uint64_t w1 = b.inst(0, 0x100c, "beta", "sem.wait", 150, 130);
  const uint64_t w2 = b.inst(0, 0x1010, "beta", "sem.wait", 300);
  b.dma(a, 100, 0, 100, 100, 150).link = "A";
  b.dma(c, 200, 0, 100, 100, 150).link = "B";
  b.dma(d, 300, 0, 100, 100, 150).link = "B";
  b.waited(0, w1, 20, 150);
  b.waited(1, w1, 20, 150);
  b.waited(2, w2, 200, 200);
  const rundb::RunData data = b.build();
  const Analysis analysis = analyze(data, {});
  ASSERT_EQ(analysis.stalls_by_link.size(), 2u);
  // DMA 0 and 1 share WAIT w1 (20..150) and both end at 150: DMA 0 is
  // charged 20..150 (base 80 + transfer 50), DMA 1 nothing left.
  EXPECT_EQ(analysis.stalls_by_link[0].key, "A");
  EXPECT_EQ(analysis.stalls_by_link[0].base_stall_cycles, 80u);
  EXPECT_EQ(analysis.stalls_by_link[0].transfer_stall_cycles, 50u);
  EXPECT_EQ(analysis.stalls_by_link[1].key, "B");
  EXPECT_EQ(analysis.stalls_by_link[1].dmas, 2u);
  EXPECT_EQ(analysis.stalls_by_link[1].bytes, 500u);
  EXPECT_EQ(analysis.stalls_by_link[1].slack_cycles, 50u);
  ASSERT_EQ(analysis.stalls_by_op.size(), 2u);
  EXPECT_EQ(analysis.stalls_by_op[0].key, "chip0:alpha");
  EXPECT_EQ(analysis.summary.dma_stall_cycles, 130u);
  EXPECT_EQ(analysis.summary.dma_base_stall_cycles, 80u);
}

TEST(DmaStalls, MissingIssueStepIsAnError) {
  RunBuilder b;
  const uint64_t i0 = b.inst(0, 0x1000, "op", "dma.issue", 0);
  b.dma(i0, 64, 0, 100, 100, 150);
  rundb::RunData data = b.build();
  data.dmas[0].issue_step = 99;
  const RunIndex index(data);
  EXPECT_THROW(dma_stalls(index), Error);
}

}  // namespace
}  // namespace snr::analyze
