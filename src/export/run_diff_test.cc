// snr diff's totals: the DMA WAIT stall is the one the analyzer reports
// (the stall charged to DMAs), not the whole stall of every WAIT.
#include <filesystem>
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

}  // namespace
}  // namespace snr::exporter
