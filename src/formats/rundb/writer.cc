#include "formats/rundb/writer.h"

#include <filesystem>
#include <fmt/format.h>

#include "common/error.h"
#include "formats/rundb/schema.h"
#include "formats/rundb/sqlite_handle.h"

namespace snr::rundb {
namespace {

void insert_all(Database& db, const RunData& data) {
  Statement meta(db, "INSERT INTO meta (key, value) VALUES (?, ?)");
  meta.bind(1, std::string_view("format")).bind(2, kFormatName).run();
  meta.bind(1, std::string_view("schema_version")).bind(2, std::to_string(kSchemaVersion)).run();
  meta.bind(1, std::string_view("total_cycles")).bind(2, std::to_string(data.total_cycles)).run();
  for (const auto& [key, value] : data.meta) meta.bind(1, key).bind(2, value).run();

  Statement(db, "INSERT INTO hw_config (yaml) VALUES (?)").bind(1, data.hw_config_yaml).run();

  Statement chip(db, "INSERT INTO chips VALUES (?, ?, ?, ?, ?)");
  for (const ChipSummary& c : data.chips) {
    chip.bind(1, c.chip).bind(2, c.instructions).bind(3, c.first_cycle).bind(4, c.last_cycle).bind(5, c.stall_cycles).run();
  }
  Statement inst(db, "INSERT INTO instructions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const InstructionRecord& r : data.instructions) {
    if (r.op >= data.op_names.size()) throw Error(fmt::format("instruction step {} names op {} of {}", r.step, r.op, data.op_names.size()));
    inst.bind(1, r.step).bind(2, r.chip).bind(3, r.chip_index).bind(4, r.pc).bind(5, data.op_names[r.op]).bind(6, r.mnemonic);
    inst.bind(7, r.issue_cycle).bind(8, r.complete_cycle).bind(9, r.stall_cycles).bind(10, r.stall_reason).run();
  }
  Statement busy(db, "INSERT INTO unit_busy VALUES (?, ?, ?, ?, ?, ?)");
  for (const UnitBusyRecord& r : data.unit_busy) {
    busy.bind(1, r.chip).bind(2, r.unit).bind(3, r.start_cycle).bind(4, r.end_cycle).bind(5, r.first_step);
    busy.bind(6, r.instructions).run();
  }
  Statement dma(db, "INSERT INTO dmas VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const DmaRecord& r : data.dmas) {
    dma.bind(1, r.dma_id).bind(2, r.chip).bind(3, r.issue_step).bind(4, r.pc).bind(5, r.src_chip).bind(6, r.src_space);
    dma.bind(7, r.src_address).bind(8, r.dst_chip).bind(9, r.dst_space).bind(10, r.dst_address).bind(11, r.bytes);
    dma.bind(12, r.link).bind(13, r.semaphore).bind(14, r.issue_cycle).bind(15, r.base_done_cycle);
    dma.bind(16, r.transfer_start_cycle).bind(17, r.transfer_end_cycle);
    if (r.waited) {
      dma.bind(18, r.wait_chip).bind(19, r.wait_step).bind(20, r.wait_start_cycle).bind(21, r.wait_end_cycle);
    } else {
      dma.bind_null(18).bind_null(19).bind_null(20).bind_null(21);
    }
    dma.run();
  }
  Statement vmem(db, "INSERT INTO vmem_runs VALUES (?, ?, ?, ?, ?, ?, ?)");
  for (const VmemRunRecord& r : data.vmem_runs) {
    vmem.bind(1, r.chip).bind(2, r.page).bind(3, r.last_page).bind(4, int64_t{r.is_write ? 1 : 0}).bind(5, r.first_cycle);
    vmem.bind(6, r.last_cycle).bind(7, r.accesses).run();
  }
  Statement sem(db, "INSERT INTO semaphore_events VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  for (const SemaphoreRecord& r : data.semaphores) {
    sem.bind(1, r.sequence).bind(2, r.chip).bind(3, r.semaphore).bind(4, r.op).bind(5, r.cycle).bind(6, r.amount);
    sem.bind(7, r.value_after).bind(8, r.from_chip).run();
  }
  Statement dep(db, "INSERT INTO dependencies VALUES (?, ?, ?, ?, ?, ?)");
  for (const DependencyRecord& r : data.dependencies) {
    dep.bind(1, r.producer_step).bind(2, r.consumer_step).bind(3, r.kind).bind(4, r.chip).bind(5, r.first);
    dep.bind(6, r.last).run();
  }
}

}  // namespace

void write_run_db(const std::string& path, const RunData& data) {
  const std::filesystem::path target(path);
  std::filesystem::path temp = target;
  temp += ".partial";
  std::error_code ignored;
  std::filesystem::remove(temp, ignored);
  try {
    {
      Database db(temp.string(), Database::Mode::kCreate);
      // A crash mid-write leaves only the .partial file, which is discarded,
      // so durability during the bulk load buys nothing.
      db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; "
              "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536;");
      db.exec("BEGIN");
      db.exec(schema_tables_ddl());
      insert_all(db, data);
      db.exec(schema_indexes_ddl());
      db.exec(fmt::format("PRAGMA user_version={}", kSchemaVersion));
      db.exec("COMMIT");
    }
    std::filesystem::rename(temp, target);
  } catch (const std::exception& e) {
    std::filesystem::remove(temp, ignored);
    throw Error(fmt::format("writing run database {}: {}", path, e.what()));
  }
}

}  // namespace snr::rundb
