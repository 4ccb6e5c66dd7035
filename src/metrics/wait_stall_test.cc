// The WAIT stall split of seed 000 Figure 4, by hand.
#include <gtest/gtest.h>

#include <vector>

#include "metrics/wait_stall.h"

namespace snr::metrics {
namespace {

WaitedDma waited(uint64_t id, uint64_t base_done, uint64_t transfer_end, uint64_t wait_start, uint64_t wait_end) {
  WaitedDma d;
  d.dma_id = id;
  d.base_done_cycle = base_done;
  d.transfer_end_cycle = transfer_end;
  d.wait_start_cycle = wait_start;
  d.wait_end_cycle = wait_end;
  return d;
}

TEST(WaitStall, OneDmaSplitsAtItsBaseLatency) {
  // WAIT from 20 to 70; base latency done at 50, transfer ends at 70.
  std::vector<WaitedDma> one = {waited(0, 50, 70, 20, 70)};
  split_wait_stall(one);
  EXPECT_EQ(one[0].base_stall_cycles, 30u);
  EXPECT_EQ(one[0].transfer_stall_cycles, 20u);
  EXPECT_EQ(one[0].slack_cycles, 0u);
}

TEST(WaitStall, SharedWaitIsChargedInCompletionOrderAndAddsUp) {
  // One WAIT [10, 100) consumed three DMAs ending at 40, 100 and 60 (given
  // out of order). Charges: [10,40) to id 0, [40,60) to id 2, [60,100) to
  // id 1 — 90 cycles, the WAIT's whole stall. The elements keep their order.
  std::vector<WaitedDma> three = {waited(0, 30, 40, 10, 100), waited(2, 20, 60, 10, 100), waited(1, 80, 100, 10, 100)};
  split_wait_stall(three);
  ASSERT_EQ(three[0].dma_id, 0u);
  ASSERT_EQ(three[1].dma_id, 2u);
  ASSERT_EQ(three[2].dma_id, 1u);
  EXPECT_EQ(three[0].base_stall_cycles, 20u);  // 10..30
  EXPECT_EQ(three[0].transfer_stall_cycles, 10u);
  EXPECT_EQ(three[1].base_stall_cycles, 0u);   // its base latency was done at 20
  EXPECT_EQ(three[1].transfer_stall_cycles, 20u);
  EXPECT_EQ(three[2].base_stall_cycles, 20u);  // 60..80
  EXPECT_EQ(three[2].transfer_stall_cycles, 20u);
  uint64_t total = 0;
  for (const WaitedDma& d : three) total += d.base_stall_cycles + d.transfer_stall_cycles;
  EXPECT_EQ(total, 90u);
}

TEST(WaitStall, ADmaDoneBeforeItsWaitHasSlackNotStall) {
  std::vector<WaitedDma> early = {waited(4, 10, 30, 45, 45), waited(5, 50, 70, 45, 70)};
  split_wait_stall(early);
  EXPECT_EQ(early[0].slack_cycles, 15u);
  EXPECT_EQ(early[0].base_stall_cycles + early[0].transfer_stall_cycles, 0u);
  EXPECT_EQ(early[1].base_stall_cycles, 5u);
  EXPECT_EQ(early[1].transfer_stall_cycles, 20u);
}

TEST(WaitStall, EqualCompletionsTieByDmaId) {
  std::vector<WaitedDma> tie = {waited(9, 0, 50, 0, 50), waited(3, 0, 50, 0, 50)};
  split_wait_stall(tie);
  EXPECT_EQ(tie[1].dma_id, 3u);
  EXPECT_EQ(tie[1].transfer_stall_cycles, 50u);
  EXPECT_EQ(tie[0].transfer_stall_cycles, 0u);
}

}  // namespace
}  // namespace snr::metrics
