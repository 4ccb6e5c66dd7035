#include <filesystem>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "common/error.h"
#include "common/file_io.h"
#include "common/scratch_dir.h"
#include "formats/rundb/reader.h"
#include "formats/rundb/schema.h"
#include "formats/rundb/writer.h"

namespace snr::rundb {
namespace {

std::filesystem::path scratch(const std::string& name) { return snr::testing::scratch_path(name); }

RunData sample() {
  RunData data;
  data.meta = {{"snapshot", "abc"}, {"replay_wall_ns", "123"}};
  data.hw_config_yaml = "clock: 1GHz\n";
  data.total_cycles = 500;
  data.chips = {{0, 2, 0, 300, 10}};
  data.op_names = {"", "matmul"};
  data.instructions = {{0, 0, 0, 0x1000, 1, "addi", 0, 1, 0, "none"},
                       {1, 0, 1, 0x1004, 1, "dma.issue", 11, 12, 10, "data_hazard"}};
  data.unit_busy = {{0, "scalar", 0, 1, 0, 1}};
  DmaRecord dma;
  dma.dma_id = 0;
  dma.issue_cycle = 11;
  dma.base_done_cycle = 111;
  dma.transfer_start_cycle = 120;
  dma.transfer_end_cycle = 200;
  dma.waited = true;
  dma.wait_start_cycle = 150;
  dma.wait_end_cycle = 200;
  data.dmas = {dma};
  data.vmem_runs = {{0, 3, 5, true, 200, 200, 1}};
  data.semaphores = {{0, 0, 1, "signal", 200, 1, 1, 0}};
  data.dependencies = {{0, 1, "x", 0, 5, 5}, {0, 1, "vmem", 2, 4, 7}};
  return data;
}

TEST(RunDb, WritesAndReadsBackWithViews) {
  const auto path = scratch("run.db");
  write_run_db(path.string(), sample());
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".partial"));
  RunDbReader reader(path.string());
  EXPECT_EQ(reader.meta_value("snapshot"), "abc");
  EXPECT_EQ(reader.meta_integer("total_cycles"), 500u);
  Statement op(reader.db(), "SELECT op, instructions, cycles, stall_cycles FROM op_summary");
  ASSERT_TRUE(op.next());
  EXPECT_EQ(op.text(0), "matmul");
  EXPECT_EQ(op.integer(1), 2);
  EXPECT_EQ(op.integer(2), 12);  // (0 + 1) + (10 + 1)
  EXPECT_EQ(op.integer(3), 10);
  Statement stall(reader.db(),
                  "SELECT base_latency_cycles, queue_cycles, transfer_cycles, wait_stall_cycles, slack_cycles FROM dma_stalls");
  ASSERT_TRUE(stall.next());
  EXPECT_EQ(stall.integer(0), 100);
  EXPECT_EQ(stall.integer(1), 9);
  EXPECT_EQ(stall.integer(2), 80);
  EXPECT_EQ(stall.integer(3), 50);
  EXPECT_EQ(stall.integer(4), 0);
  Statement edges(reader.db(), "SELECT kind, via FROM dependency_edges ORDER BY via");
  ASSERT_TRUE(edges.next());
  EXPECT_EQ(edges.text(0), "vmem");
  EXPECT_EQ(edges.text(1), "chip 2 vmem pages 4-7");
  ASSERT_TRUE(edges.next());
  EXPECT_EQ(edges.text(0), "register");
  EXPECT_EQ(edges.text(1), "x5");
}

TEST(RunDb, DumpIsCanonicalAndSkipsWallClock) {
  const auto a = scratch("a.db"), b = scratch("b.db");
  RunData first = sample();
  write_run_db(a.string(), first);
  first.meta[1].second = "999";
  write_run_db(b.string(), first);
  RunDbReader ra(a.string()), rb(b.string());
  EXPECT_EQ(dump_tables(ra, {"replay_wall_ns"}), dump_tables(rb, {"replay_wall_ns"}));
  EXPECT_NE(dump_tables(ra, {}), dump_tables(rb, {}));
}

TEST(RunDb, FailedWriteLeavesNothing) {
  const auto path = scratch("missing_dir") / "sub" / "run.db";
  EXPECT_THROW(write_run_db(path.string(), sample()), Error);
  EXPECT_FALSE(std::filesystem::exists(path));
}

void expect_rejected(const std::filesystem::path& path, const std::string& needle) {
  try {
    RunDbReader reader(path.string());
    FAIL() << "accepted " << path;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
}

TEST(RunDb, RejectsForeignFilesClearly) {
  const auto text = scratch("text.db");
  write_file_atomic(text, "this is not a database, just text that is long enough to have a header");
  expect_rejected(text, "not a run database");
  expect_rejected(scratch("absent.db"), "no such run database");

  const auto other = scratch("other.db");
  std::filesystem::remove(other);
  {
    Database db(other.string(), Database::Mode::kCreate);
    db.exec("CREATE TABLE t (x INTEGER)");
  }
  expect_rejected(other, "no meta table");

  const auto old_version = scratch("old.db");
  write_run_db(old_version.string(), sample());
  {
    Database db(old_version.string(), Database::Mode::kCreate);
    db.exec("PRAGMA user_version=7");
  }
  expect_rejected(old_version, "schema version 7");

  const auto missing = scratch("missing.db");
  write_run_db(missing.string(), sample());
  {
    Database db(missing.string(), Database::Mode::kCreate);
    db.exec("DROP VIEW dma_stalls; DROP TABLE dmas");
  }
  expect_rejected(missing, "lacks table 'dmas'");
}

}  // namespace
}  // namespace snr::rundb
