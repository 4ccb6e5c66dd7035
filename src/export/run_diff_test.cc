// snr diff's DMA WAIT stall, in total and per DMA, is the one the analyzer
// reports (the stall charged to DMAs), not the whole stall of every WAIT;
// its per-DMA rows pair each chip's DMAs in issue order.
#include <filesystem>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "export/run_diff.h"
#include "formats/rundb/writer.h"

namespace snr::exporter {
namespace {

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("run_diff_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

// Chip 0 issues a DMA at cycle 0 (transfer ends at `transfer_end`), then
// WAITs from cycle 50 to 150: the semaphore also needs a signal that comes
// later, so only the stall up to the transfer's end is the DMA's.
rundb::RunData run_with_wait(uint64_t transfer_end) {
  rundb::RunData data;
  data.meta = {{"source", "w.snr"}, {"chips", "1"}};
  data.total_cycles = 200;
  data.chips = {{0, 2, 0, 151, 100}};
  data.op_names = {""};
  data.instructions = {{0, 0, 0, 0x1000, 0, "dma.issue", 0, 1, 0, "none"},
                       {1, 0, 1, 0x1004, 0, "sem.wait", 150, 151, 100, "semaphore-wait"}};
  rundb::DmaRecord dma;
  dma.issue_step = 0;
  dma.src_space = "hbm";
  dma.dst_space = "vmem";
  dma.bytes = 4096;
  dma.link = "chip0.hbm->chip0.vmem";
  dma.base_done_cycle = 20;
  dma.transfer_start_cycle = 20;
  dma.transfer_end_cycle = transfer_end;
  dma.waited = true;
  dma.wait_step = 1;
  dma.wait_start_cycle = 50;
  dma.wait_end_cycle = 150;
  data.dmas = {dma};
  return data;
}

TEST(RunDiff, DmaWaitStallIsTheStallChargedToDmas) {
  const auto a = scratch("a.db"), b = scratch("b.db");
  rundb::write_run_db(a.string(), run_with_wait(100));
  rundb::write_run_db(b.string(), run_with_wait(130));
  rundb::RunDbReader reader_a(a.string()), reader_b(b.string());
  const RunDiff diff = diff_runs(reader_a, reader_b);
  bool found = false;
  for (const DiffRow& row : diff.totals) {
    if (row.name != "dma_wait_stall_cycles") continue;
    found = true;
    EXPECT_EQ(row.a, 50);  // 50 .. 100, not the WAIT's 100 cycles
    EXPECT_EQ(row.b, 80);
  }
  EXPECT_TRUE(found);
  std::filesystem::remove_all(a.parent_path());
}

// Chip 0 issues two DMAs (transfers end at 100 and `second_end`) and one
// WAIT from cycle 50 to `second_end` consumes both.
rundb::RunData one_wait_two_dmas(uint64_t second_end) {
  rundb::RunData data = run_with_wait(100);
  data.instructions = {{0, 0, 0, 0x1000, 0, "dma.issue", 0, 1, 0, "none"},
                       {1, 0, 1, 0x1004, 0, "dma.issue", 1, 2, 0, "none"},
                       {2, 0, 2, 0x1008, 0, "sem.wait", second_end, second_end + 1, second_end - 2, "semaphore-wait"}};
  data.chips = {{0, 3, 0, second_end + 1, second_end - 2}};
  rundb::DmaRecord first = data.dmas[0];
  first.wait_step = 2;
  first.wait_end_cycle = second_end;
  rundb::DmaRecord second = first;
  second.dma_id = 1;
  second.issue_step = 1;
  second.issue_cycle = 1;
  second.base_done_cycle = second.transfer_start_cycle = 21;
  second.transfer_end_cycle = second_end;
  data.dmas = {first, second};
  return data;
}

// A WAIT that consumes two DMAs stalls once: each DMA's row is its share
// (the analyzer's per-DMA figure), not the whole stall twice, and the rows
// add up to the total (they used to be 100 and 100 beside a total of 100).
TEST(RunDiff, DmaRowsShareTheirWaitsStall) {
  const auto a = scratch("a.db"), b = scratch("b.db");
  rundb::write_run_db(a.string(), one_wait_two_dmas(150));
  rundb::write_run_db(b.string(), one_wait_two_dmas(180));
  rundb::RunDbReader reader_a(a.string()), reader_b(b.string());
  const RunDiff diff = diff_runs(reader_a, reader_b);
  ASSERT_EQ(diff.dma_stalls.size(), 2u);
  EXPECT_EQ(diff.dma_stalls[0].name, "chip 0 dma 000000 chip0.hbm->chip0.vmem");
  EXPECT_EQ(diff.dma_stalls[0].a, 50);  // 50 .. 100
  EXPECT_EQ(diff.dma_stalls[0].b, 50);
  EXPECT_EQ(diff.dma_stalls[1].name, "chip 0 dma 000001 chip0.hbm->chip0.vmem");
  EXPECT_EQ(diff.dma_stalls[1].a, 50);  // 100 .. 150
  EXPECT_EQ(diff.dma_stalls[1].b, 80);  // 100 .. 180
  for (const DiffRow& row : diff.totals) {
    if (row.name != "dma_wait_stall_cycles") continue;
    EXPECT_EQ(row.a, diff.dma_stalls[0].a + diff.dma_stalls[1].a);
    EXPECT_EQ(row.b, diff.dma_stalls[0].b + diff.dma_stalls[1].b);
  }
  std::filesystem::remove_all(a.parent_path());
}

// Two chips each issue one DMA and WAIT for it; `chip1_first` decides which
// issues first, and so which gets dma_id 0 (a what-if can reorder them).
rundb::RunData two_chips(bool chip1_first) {
  rundb::RunData data;
  data.meta = {{"source", "w.snr"}, {"chips", "2"}};
  data.total_cycles = 200;
  data.chips = {{0, 2, 0, 151, 100}, {1, 2, 0, 151, 100}};
  data.op_names = {""};
  const uint32_t first = chip1_first ? 1 : 0, second = 1 - first;
  data.instructions = {{0, first, 0, 0x1000, 0, "dma.issue", 0, 1, 0, "none"},
                       {1, second, 0, 0x1000, 0, "dma.issue", 0, 1, 0, "none"},
                       {2, first, 1, 0x1004, 0, "sem.wait", 150, 151, 100, "semaphore-wait"},
                       {3, second, 1, 0x1004, 0, "sem.wait", 150, 151, 100, "semaphore-wait"}};
  for (uint32_t id = 0; id < 2; ++id) {
    rundb::DmaRecord dma;
    dma.dma_id = id;
    dma.chip = dma.src_chip = dma.dst_chip = dma.wait_chip = id == 0 ? first : second;
    dma.issue_step = id;
    dma.src_space = "hbm";
    dma.dst_space = "vmem";
    dma.bytes = 4096;
    dma.link = fmt::format("chip{0}.hbm->chip{0}.vmem", dma.chip);
    dma.base_done_cycle = dma.transfer_start_cycle = 20;
    dma.transfer_end_cycle = 150;
    dma.waited = true;
    dma.wait_step = 2 + id;
    dma.wait_start_cycle = 50 + 10 * dma.chip;  // chip 0 stalls 100 cycles, chip 1 90
    dma.wait_end_cycle = 150;
    data.dmas.push_back(dma);
  }
  return data;
}

TEST(RunDiff, DmasPairByChipAndIssueOrderNotById) {
  const auto a = scratch("a.db"), b = scratch("b.db");
  rundb::write_run_db(a.string(), two_chips(false));
  rundb::write_run_db(b.string(), two_chips(true));
  rundb::RunDbReader reader_a(a.string()), reader_b(b.string());
  const RunDiff diff = diff_runs(reader_a, reader_b);
  ASSERT_EQ(diff.dma_stalls.size(), 2u);
  EXPECT_EQ(diff.dma_stalls[0].name, "chip 0 dma 000000 chip0.hbm->chip0.vmem");
  EXPECT_EQ(diff.dma_stalls[0].a, 100);
  EXPECT_EQ(diff.dma_stalls[0].b, 100);
  EXPECT_EQ(diff.dma_stalls[1].name, "chip 1 dma 000000 chip1.hbm->chip1.vmem");
  EXPECT_EQ(diff.dma_stalls[1].a, 90);
  EXPECT_EQ(diff.dma_stalls[1].b, 90);
  std::filesystem::remove_all(a.parent_path());
}

TEST(RunDiff, RunsOnDifferentClocksAreComparedByTime) {
  const auto a = scratch("a.db"), b = scratch("b.db");
  rundb::RunData fast_clock = run_with_wait(100), slow_clock = run_with_wait(100);
  fast_clock.total_cycles = 300;
  fast_clock.meta.emplace_back("clock_hz", "3000000000");  // 300 cycles = 100 ns
  slow_clock.meta.emplace_back("clock_hz", "1000000000");  // 200 cycles = 200 ns
  rundb::write_run_db(a.string(), fast_clock);
  rundb::write_run_db(b.string(), slow_clock);
  rundb::RunDbReader reader_a(a.string()), reader_b(b.string());
  const RunDiff diff = diff_runs(reader_a, reader_b);
  bool found = false;
  for (const DiffRow& row : diff.totals) {
    if (row.name != "total_time_ns") continue;
    found = true;
    EXPECT_EQ(row.a, 100);
    EXPECT_EQ(row.b, 200);
  }
  EXPECT_TRUE(found);
  ASSERT_EQ(diff.notes.size(), 1u);
  EXPECT_EQ(diff.notes[0], "the clocks differ (3000000000 Hz vs 1000000000 Hz): compare total_time_ns, not cycles");
  std::filesystem::remove_all(a.parent_path());
}

}  // namespace
}  // namespace snr::exporter
