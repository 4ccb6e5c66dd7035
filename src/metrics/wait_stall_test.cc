// The WAIT stall split of seed 000 Figure 4, by hand, and the run data's
// dma_stalls view, which must split the same way.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "formats/rundb/reader.h"
#include "formats/rundb/writer.h"
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

// Random WAITs of one to four DMAs (ties in completion included) and DMAs
// no WAIT consumed: the view's charged columns are this split's.
TEST(WaitStall, TheRunDataViewChargesAsThisSplits) {
  std::mt19937_64 random(7);
  auto below = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(random); };
  rundb::RunData data;
  data.hw_config_yaml = "clock: 1GHz\n";
  data.chips = {{0, 0, 0, 0, 0}};
  std::vector<WaitedDma> expected;
  for (uint64_t wait = 0; wait < 300; ++wait) {
    const uint64_t start = 1000 * wait + below(100);
    std::vector<WaitedDma> consumed;
    uint64_t last_end = 0;
    for (uint64_t n = 1 + below(4); n-- > 0;) {
      rundb::DmaRecord d;
      d.dma_id = data.dmas.size();
      d.issue_cycle = start + below(200);
      d.base_done_cycle = d.issue_cycle + below(60);
      d.transfer_start_cycle = d.base_done_cycle + below(20);
      d.transfer_end_cycle = d.transfer_start_cycle + below(4) * 10;  // ties between DMAs
      d.waited = true;
      d.wait_step = wait;
      d.wait_start_cycle = start + 120;
      last_end = std::max(last_end, d.transfer_end_cycle);
      data.dmas.push_back(d);
      consumed.push_back({d.dma_id, d.base_done_cycle, d.transfer_end_cycle, d.wait_start_cycle, 0, 0, 0, 0});
    }
    // The WAIT ends at its last DMA's end or, waiting for a signal too, later.
    const uint64_t end = std::max(last_end, start + 120) + (below(2) ? below(50) : 0);
    for (size_t i = 0; i < consumed.size(); ++i) {
      data.dmas[data.dmas.size() - consumed.size() + i].wait_end_cycle = end;
      consumed[i].wait_end_cycle = end;
    }
    split_wait_stall(consumed);
    expected.insert(expected.end(), consumed.begin(), consumed.end());
    if (below(3) == 0) {  // a DMA nothing waited for
      rundb::DmaRecord unwaited;
      unwaited.dma_id = data.dmas.size();
      data.dmas.push_back(unwaited);
      expected.push_back(WaitedDma{unwaited.dma_id});
    }
  }
  const auto dir = std::filesystem::temp_directory_path() / ("wait_stall_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "run.db").string();
  rundb::write_run_db(path, data);
  rundb::RunDbReader reader(path);
  rundb::Statement rows(reader.db(),
                        "SELECT dma_id, charged_stall_cycles, charged_base_stall_cycles, charged_transfer_stall_cycles, "
                        "wait_stall_cycles FROM dma_stalls ORDER BY dma_id");
  size_t checked = 0, shared = 0;
  for (const WaitedDma& want : expected) {
    ASSERT_TRUE(rows.next());
    const rundb::DmaRecord& d = data.dmas.at(want.dma_id);
    ASSERT_EQ(static_cast<uint64_t>(rows.integer(0)), want.dma_id);
    if (!d.waited) {
      EXPECT_TRUE(rows.is_null(1)) << want.dma_id;
      continue;
    }
    EXPECT_EQ(static_cast<uint64_t>(rows.integer(2)), want.base_stall_cycles) << want.dma_id;
    EXPECT_EQ(static_cast<uint64_t>(rows.integer(3)), want.transfer_stall_cycles) << want.dma_id;
    EXPECT_EQ(static_cast<uint64_t>(rows.integer(1)), want.base_stall_cycles + want.transfer_stall_cycles);
    if (want.base_stall_cycles + want.transfer_stall_cycles < static_cast<uint64_t>(rows.integer(4))) ++shared;
    ++checked;
  }
  EXPECT_FALSE(rows.next());
  EXPECT_GT(checked, 500u);
  EXPECT_GT(shared, 200u);  // DMAs charged part of their WAIT's stall, not all of it
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace snr::metrics
