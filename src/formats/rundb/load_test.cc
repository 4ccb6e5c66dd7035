// run.db -> RunData: every table comes back as written, text columns map
// to static views, kinds a newer writer adds are kept, bad files are named.
#include <filesystem>
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/file_io.h"
#include "common/scratch_dir.h"
#include "formats/rundb/load.h"
#include "formats/rundb/sqlite_handle.h"
#include "formats/rundb/writer.h"

namespace snr::rundb {
namespace {

std::filesystem::path scratch(const std::string& name) { return snr::testing::scratch_path(name); }

RunData sample() {
  RunData data;
  data.meta = {{"clock_hz", "1000000000"}, {"source", "snap.snr fnv1a64:0123"}};
  data.hw_config_yaml = "clock: 1GHz\n";
  data.total_cycles = 500;
  data.chips = {{0, 3, 0, 300, 10}, {1, 1, 0, 20, 0}};
  data.op_names = {"", "matmul", "attention"};
  data.instructions = {{0, 0, 0, 0x1000, 1, "lui", 0, 1, 0, "none"},
                       {1, 1, 0, 0x1000, 1, "lui", 0, 1, 0, "none"},
                       {2, 0, 1, 0x1004, 1, "dma.issue", 11, 12, 10, "data-hazard"},
                       {3, 0, 2, 0x1008, 2, "sem.wait", 200, 201, 188, "semaphore-wait"}};
  data.unit_busy = {{0, "scalar", 0, 1, 0, 1}, {0, "dma", 11, 12, 2, 1}};
  DmaRecord dma;
  dma.dma_id = 0;
  dma.issue_step = 2;
  dma.pc = 0x1004;
  dma.src_space = "hbm";
  dma.src_address = 0x1'0000'0000;
  dma.dst_space = "vmem";
  dma.dst_address = 0x1000'0000;
  dma.bytes = 4096;
  dma.link = "chip0.hbm->chip0.vmem";
  dma.semaphore = 3;
  dma.issue_cycle = 11;
  dma.base_done_cycle = 111;
  dma.transfer_start_cycle = 120;
  dma.transfer_end_cycle = 200;
  dma.waited = true;
  dma.wait_step = 3;
  dma.wait_start_cycle = 12;
  dma.wait_end_cycle = 200;
  DmaRecord unwaited = dma;
  unwaited.dma_id = 1;
  unwaited.waited = false;
  data.dmas = {dma, unwaited};
  data.vmem_runs = {{0, 0, 7, true, 200, 200, 1}, {0, 0, 7, false, 250, 260, 3}};
  data.semaphores = {{0, 0, 3, "signal", 200, 1, 1, 0}, {1, 0, 3, "wait_end", 200, -1, 0, 0}};
  data.dependencies = {{0, 2, "x", 0, 7, 7}, {2, 3, "dma", 0, 0, 0}, {2, 3, "smem", 0, 64, 71}};
  return data;
}

TEST(LoadRunData, RoundTripsEveryTable) {
  const RunData written = sample();
  const auto path = scratch("round_trip.db");
  write_run_db(path.string(), written);
  const RunData read = load_run_data(path.string());
  EXPECT_EQ(read.total_cycles, 500u);
  EXPECT_EQ(read.hw_config_yaml, written.hw_config_yaml);
  ASSERT_EQ(read.meta.size(), 2u);  // format, schema_version and total_cycles are not user meta
  EXPECT_EQ(read.meta[0].first, "clock_hz");
  ASSERT_EQ(read.chips.size(), 2u);
  EXPECT_EQ(read.chips[0].stall_cycles, 10u);
  ASSERT_EQ(read.instructions.size(), 4u);
  for (size_t i = 0; i < read.instructions.size(); ++i) {
    const auto& a = read.instructions[i];
    const auto& b = written.instructions[i];
    EXPECT_EQ(a.step, b.step);
    EXPECT_EQ(a.chip, b.chip);
    EXPECT_EQ(a.chip_index, b.chip_index);
    EXPECT_EQ(a.pc, b.pc);
    EXPECT_EQ(read.op_names[a.op], written.op_names[b.op]);
    EXPECT_EQ(a.mnemonic, b.mnemonic);
    EXPECT_EQ(a.issue_cycle, b.issue_cycle);
    EXPECT_EQ(a.complete_cycle, b.complete_cycle);
    EXPECT_EQ(a.stall_cycles, b.stall_cycles);
    EXPECT_EQ(a.stall_reason, b.stall_reason);
  }
  EXPECT_EQ(read.op_names[0], "");
  ASSERT_EQ(read.unit_busy.size(), 2u);
  EXPECT_EQ(read.unit_busy[1].unit, "dma");
  ASSERT_EQ(read.dmas.size(), 2u);
  EXPECT_TRUE(read.dmas[0].waited);
  EXPECT_EQ(read.dmas[0].wait_step, 3u);
  EXPECT_EQ(read.dmas[0].wait_end_cycle, 200u);
  EXPECT_EQ(read.dmas[0].link, "chip0.hbm->chip0.vmem");
  EXPECT_EQ(read.dmas[0].dst_address, 0x1000'0000u);
  EXPECT_FALSE(read.dmas[1].waited);
  ASSERT_EQ(read.vmem_runs.size(), 2u);
  EXPECT_EQ(read.vmem_runs[1].last_page, 7u);
  EXPECT_FALSE(read.vmem_runs[1].is_write);
  EXPECT_EQ(read.vmem_runs[1].accesses, 3u);
  ASSERT_EQ(read.semaphores.size(), 2u);
  EXPECT_EQ(read.semaphores[1].amount, -1);
  ASSERT_EQ(read.dependencies.size(), 3u);
  EXPECT_EQ(read.dependencies[2].kind, "smem");  // a kind the analyzer reads when present
  EXPECT_EQ(read.dependencies[2].last, 71u);
}

TEST(LoadRunData, MnemonicsAreTheIsaTablesText) {
  const auto path = scratch("views.db");
  write_run_db(path.string(), sample());
  const RunData a = load_run_data(path.string());
  const RunData b = load_run_data(path.string());
  // Static storage: the same text object across loads, alive after both.
  EXPECT_EQ(a.instructions[2].mnemonic.data(), b.instructions[2].mnemonic.data());
  EXPECT_EQ(a.dependencies[1].kind.data(), b.dependencies[1].kind.data());
  EXPECT_EQ(a.instructions[3].stall_reason.data(), b.instructions[3].stall_reason.data());
}

TEST(LoadRunData, RejectsFilesThatAreNotRunDatabases) {
  const auto path = scratch("not.db");
  write_file_atomic(path, "plain text");
  try {
    (void)load_run_data(path.string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)load_run_data(scratch("missing.db").string()), Error);
}

TEST(LoadRunData, DuplicateStepIsAnError) {
  RunData data = sample();
  const auto path = scratch("dup.db");
  write_run_db(path.string(), data);
  {
    Database db(path.string(), Database::Mode::kCreate);
    db.exec("DROP TABLE instructions");
    db.exec("CREATE TABLE instructions (step INTEGER, chip INTEGER, chip_index INTEGER, pc INTEGER, op TEXT, "
            "mnemonic TEXT, issue_cycle INTEGER, complete_cycle INTEGER, stall_cycles INTEGER, stall_reason TEXT)");
    db.exec("INSERT INTO instructions VALUES (0, 0, 0, 4096, '', 'lui', 0, 1, 0, 'none'), "
            "(0, 0, 1, 4100, '', 'lui', 1, 2, 0, 'none')");
  }
  try {
    (void)load_run_data(path.string());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("step 0 appears twice"), std::string::npos) << e.what();
  }
}

// What an edited or damaged file looks like: each change below breaks one
// relation the replayer's data keeps, and the load names it instead of
// handing the analyzer a negative cycle (a wrapped 2^64) or a dangling step.
TEST(LoadRunData, InconsistentRowsAreNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"UPDATE meta SET value = '0' WHERE key = 'total_cycles'", "step 0 issues at cycle 0, not before"},
      {"UPDATE instructions SET issue_cycle = -5 WHERE step = 1", "instructions: row 2: issue_cycle is -5"},
      {"UPDATE instructions SET complete_cycle = 501 WHERE step = 3", "step 3 completes at cycle 501"},
      {"UPDATE instructions SET chip = 4294967296 WHERE step = 1", "chip is 4294967296, expected an integer from 0"},
      {"UPDATE dmas SET wait_step = 9 WHERE dma_id = 0", "DMA 0 is waited for at step 9, which is no instruction"},
      {"UPDATE dmas SET issue_step = 1 WHERE dma_id = 1", "DMA 1 is issued at step 1, which is no instruction of"},
      {"UPDATE dmas SET transfer_end_cycle = 900 WHERE dma_id = 1", "DMA 1 has a phase"},
      {"UPDATE dmas SET base_done_cycle = 3 WHERE dma_id = 0", "DMA 0 has a phase"},
      {"UPDATE dmas SET transfer_end_cycle = 119 WHERE dma_id = 0", "(base done 111, transfer 120 .. 119) out of order"},
      {"UPDATE dmas SET transfer_start_cycle = 110 WHERE dma_id = 0", "(base done 111, transfer 110 .. 200) out of"},
      {"UPDATE instructions SET stall_cycles = 12 WHERE step = 2", "step 2 stalls 12 cycles before issuing at 11"},
      {"UPDATE dmas SET wait_start_cycle = 300 WHERE dma_id = 0", "DMA 0 is waited for from cycle 300 to 200"},
      {"UPDATE dmas SET dst_chip = 2 WHERE dma_id = 0", "dmas: DMA 0 names chip 2, but meta.chips is 2"},
      {"UPDATE unit_busy SET end_cycle = 700 WHERE unit = 'dma'", "unit_busy: chip 0 dma busy 11 .. 700"},
      {"UPDATE vmem_runs SET accesses = -1", "vmem_runs: row 1: accesses is -1"},
      {"UPDATE meta SET value = 'two' WHERE key = 'chips'", "meta.chips is 'two'"},
      // The replay's hardware and its meta give the chip count twice.
      {"UPDATE hw_config SET yaml = '{clock: 1GHz, chips: 4}'", "hw_config gives chips: 4, but meta.chips is 2"},
      {"UPDATE hw_config SET yaml = 'chips: 0'", "hw_config:1: hardware key 'chips': chips = 0 is out of range"},
      // Every time in ns divides by the clock (it was refused only by the
      // timeline's writer, naming neither the file nor the field).
      {"UPDATE meta SET value = '0' WHERE key = 'clock_hz'", "meta.clock_hz is '0', expected a clock in whole hertz"},
      {"UPDATE meta SET value = '1e9' WHERE key = 'clock_hz'", "meta.clock_hz is '1e9'"},
  };
  RunData data = sample();
  data.meta.emplace_back("chips", "2");
  const auto path = scratch("inconsistent.db");
  for (const auto& [sql, message] : cases) {
    write_run_db(path.string(), data);
    {
      Database db(path.string(), Database::Mode::kCreate);
      db.exec(sql);
    }
    try {
      (void)load_run_data(path.string());
      ADD_FAILURE() << "accepted after: " << sql;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << sql << "\n" << e.what();
    }
  }
  // The message names the file; a config that does not give the count (a
  // hand-made file: the preset's) and one that agrees load.
  write_run_db(path.string(), data);
  {
    Database db(path.string(), Database::Mode::kCreate);
    db.exec("UPDATE hw_config SET yaml = 'chips: 8'");
  }
  try {
    (void)load_run_data(path.string());
    ADD_FAILURE() << "a hw_config of 8 chips beside meta.chips 2 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("loading " + path.string()), std::string::npos) << e.what();
  }
  data.hw_config_yaml = "clock: 1GHz\nchips: 2\n";
  write_run_db(path.string(), data);
  EXPECT_EQ(load_run_data(path.string()).hw_config_yaml, data.hw_config_yaml);
  // Without meta.chips the hardware's count bounds the rows (it bounded
  // nothing, so a DMA to chip 2 of a 2-chip run loaded).
  {
    Database db(path.string(), Database::Mode::kCreate);
    db.exec("DELETE FROM meta WHERE key = 'chips'");
    db.exec("UPDATE dmas SET dst_chip = 2 WHERE dma_id = 0");
  }
  try {
    (void)load_run_data(path.string());
    ADD_FAILURE() << "a DMA to chip 2 of a 2-chip hw_config without meta.chips was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dmas: DMA 0 names chip 2, but hw_config's chips is 2"), std::string::npos)
        << e.what();
  }
  write_run_db(path.string(), data);
  // Untouched, and with a remote address of chip 128 (top bit set, stored
  // negative), the file loads.
  data.dmas[0].dst_address = 0x8080'0000'1000'0000;
  write_run_db(path.string(), data);
  EXPECT_EQ(load_run_data(path.string()).dmas[0].dst_address, 0x8080'0000'1000'0000u);
}

}  // namespace
}  // namespace snr::rundb
