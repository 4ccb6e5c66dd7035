#include "formats/rundb/load.h"

#include <fmt/format.h>
#include <mutex>
#include <sqlite3.h>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/error.h"
#include "formats/rundb/reader.h"
#include "formats/rundb/sqlite_handle.h"
#include "isa/isa.h"

namespace snr::rundb {
namespace {

// Text that must outlive every RunData: one copy per distinct value for
// the life of the process (a handful of mnemonics, reasons and kinds).
std::string_view intern(std::string_view text) {
  static std::mutex mutex;
  static std::unordered_set<std::string>* pool = new std::unordered_set<std::string>();
  std::lock_guard<std::mutex> lock(mutex);
  return *pool->emplace(text).first;
}

std::string_view column_view(sqlite3_stmt* stmt, int column) {
  const unsigned char* text = sqlite3_column_text(stmt, column);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(stmt, column))};
}

uint64_t column_u64(sqlite3_stmt* stmt, int column) { return static_cast<uint64_t>(sqlite3_column_int64(stmt, column)); }
uint32_t column_u32(sqlite3_stmt* stmt, int column) { return static_cast<uint32_t>(sqlite3_column_int64(stmt, column)); }

// A prepared query stepped with the raw API, so hot loops read columns
// without a std::string per cell.
class Query {
 public:
  Query(Database& db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
      db.fail(fmt::format("preparing '{}'", sql));
    }
  }
  ~Query() { sqlite3_finalize(stmt_); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;
  bool next() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) db_.fail("reading rows");
    return false;
  }
  [[nodiscard]] sqlite3_stmt* get() const { return stmt_; }

 private:
  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const { return std::hash<std::string_view>()(text); }
};

// Maps text to a static view. Columns such as mnemonics and stall reasons
// repeat in runs, so the last lookup is answered without hashing.
class StaticText {
 public:
  explicit StaticText(bool prefer_isa) : prefer_isa_(prefer_isa) {}
  std::string_view operator()(std::string_view text) {
    if (has_last_ && text == last_text_) return last_result_;
    auto it = cache_.find(text);
    if (it == cache_.end()) {
      std::string_view result;
      if (prefer_isa_) {
        if (const isa::InstructionRow* row = isa::find_row(text)) result = row->mnemonic;
      }
      if (result.empty()) result = intern(text);
      it = cache_.emplace(std::string(text), result).first;
    }
    last_text_.assign(text);
    last_result_ = it->second;
    has_last_ = true;
    return last_result_;
  }

 private:
  bool prefer_isa_;
  std::unordered_map<std::string, std::string_view, StringHash, std::equal_to<>> cache_;
  bool has_last_ = false;
  std::string last_text_;
  std::string_view last_result_;
};

void load_instructions(Database& db, RunData& data, bool details) {
  StaticText mnemonics(true);
  StaticText reasons(false);
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> op_index;
  data.op_names = {""};
  op_index.emplace("", 0);
  // The first five columns are the same in both forms.
  Query q(db, details ? "SELECT step, chip, op, mnemonic, issue_cycle, chip_index, pc, complete_cycle, stall_cycles, "
                        "stall_reason FROM instructions ORDER BY step"
                      : "SELECT step, chip, op, mnemonic, issue_cycle FROM instructions ORDER BY step");
  sqlite3_stmt* s = q.get();
  while (q.next()) {
    InstructionRecord r;
    r.step = column_u64(s, 0);
    if (!data.instructions.empty() && data.instructions.back().step == r.step) {
      throw Error(fmt::format("instructions: step {} appears twice", r.step));
    }
    r.chip = column_u32(s, 1);
    const std::string_view op = column_view(s, 2);
    auto it = op_index.find(op);
    if (it == op_index.end()) {
      it = op_index.emplace(std::string(op), static_cast<uint32_t>(data.op_names.size())).first;
      data.op_names.emplace_back(op);
    }
    r.op = it->second;
    r.mnemonic = mnemonics(column_view(s, 3));
    r.issue_cycle = column_u64(s, 4);
    if (details) {
      r.chip_index = column_u64(s, 5);
      r.pc = column_u64(s, 6);
      r.complete_cycle = column_u64(s, 7);
      r.stall_cycles = column_u64(s, 8);
      r.stall_reason = reasons(column_view(s, 9));
    }
    data.instructions.push_back(r);
  }
}

void load_dependencies(Database& db, RunData& data) {
  StaticText kinds(false);
  // Table order is the tracker's publication order; keep it (the
  // analyzer does not depend on it, determinism of dumps does).
  Query q(db, "SELECT producer_step, consumer_step, kind, chip, first, last FROM dependencies ORDER BY rowid");
  sqlite3_stmt* s = q.get();
  while (q.next()) {
    DependencyRecord r;
    r.producer_step = column_u64(s, 0);
    r.consumer_step = column_u64(s, 1);
    r.kind = kinds(column_view(s, 2));
    r.chip = column_u32(s, 3);
    r.first = column_u64(s, 4);
    r.last = column_u64(s, 5);
    data.dependencies.push_back(r);
  }
}

void load_rest(RunDbReader& reader, RunData& data, const LoadOptions& options) {
  Database& db = reader.db();
  for (const auto& [key, value] : reader.meta()) {
    if (key == "format" || key == "schema_version" || key == "total_cycles") continue;
    data.meta.emplace_back(key, value);
  }
  data.total_cycles = reader.meta_integer("total_cycles");
  {
    Query q(db, "SELECT yaml FROM hw_config");
    if (q.next()) data.hw_config_yaml = std::string(column_view(q.get(), 0));
  }
  {
    Query q(db, "SELECT chip, instructions, first_cycle, last_cycle, stall_cycles FROM chips ORDER BY chip");
    sqlite3_stmt* s = q.get();
    while (q.next()) {
      data.chips.push_back({column_u32(s, 0), column_u64(s, 1), column_u64(s, 2), column_u64(s, 3), column_u64(s, 4)});
    }
  }
  if (options.unit_busy) {
    Query q(db, "SELECT chip, unit, start_cycle, end_cycle, first_step, instructions FROM unit_busy ORDER BY rowid");
    sqlite3_stmt* s = q.get();
    while (q.next()) {
      data.unit_busy.push_back({column_u32(s, 0), std::string(column_view(s, 1)), column_u64(s, 2), column_u64(s, 3),
                                column_u64(s, 4), column_u64(s, 5)});
    }
  }
  {
    Query q(db,
            "SELECT dma_id, chip, issue_step, pc, src_chip, src_space, src_address, dst_chip, dst_space, dst_address, "
            "bytes, link, semaphore, issue_cycle, base_done_cycle, transfer_start_cycle, transfer_end_cycle, "
            "wait_chip, wait_step, wait_start_cycle, wait_end_cycle FROM dmas ORDER BY dma_id");
    sqlite3_stmt* s = q.get();
    while (q.next()) {
      DmaRecord r;
      r.dma_id = column_u64(s, 0);
      r.chip = column_u32(s, 1);
      r.issue_step = column_u64(s, 2);
      r.pc = column_u64(s, 3);
      r.src_chip = column_u32(s, 4);
      r.src_space = std::string(column_view(s, 5));
      r.src_address = column_u64(s, 6);
      r.dst_chip = column_u32(s, 7);
      r.dst_space = std::string(column_view(s, 8));
      r.dst_address = column_u64(s, 9);
      r.bytes = column_u64(s, 10);
      r.link = std::string(column_view(s, 11));
      r.semaphore = column_u32(s, 12);
      r.issue_cycle = column_u64(s, 13);
      r.base_done_cycle = column_u64(s, 14);
      r.transfer_start_cycle = column_u64(s, 15);
      r.transfer_end_cycle = column_u64(s, 16);
      r.waited = sqlite3_column_type(s, 20) != SQLITE_NULL;
      if (r.waited) {
        r.wait_chip = column_u32(s, 17);
        r.wait_step = column_u64(s, 18);
        r.wait_start_cycle = column_u64(s, 19);
        r.wait_end_cycle = column_u64(s, 20);
      }
      data.dmas.push_back(std::move(r));
    }
  }
  if (options.vmem_runs) {
    Query q(db, "SELECT chip, first_page, last_page, is_write, first_cycle, last_cycle, accesses FROM vmem_runs ORDER BY rowid");
    sqlite3_stmt* s = q.get();
    while (q.next()) {
      data.vmem_runs.push_back({column_u32(s, 0), column_u64(s, 1), column_u64(s, 2), sqlite3_column_int64(s, 3) != 0,
                                column_u64(s, 4), column_u64(s, 5), column_u64(s, 6)});
    }
  }
  if (options.semaphores) {
    Query q(db,
            "SELECT sequence, chip, semaphore, op, cycle, amount, value_after, from_chip FROM semaphore_events "
            "ORDER BY sequence");
    sqlite3_stmt* s = q.get();
    while (q.next()) {
      data.semaphores.push_back({column_u64(s, 0), column_u32(s, 1), column_u32(s, 2), std::string(column_view(s, 3)),
                                 column_u64(s, 4), sqlite3_column_int64(s, 5), column_u32(s, 6), column_u32(s, 7)});
    }
  }
}

}  // namespace

RunData load_run_data(const std::string& path, const LoadOptions& options) {
  RunDbReader reader(path);
  RunData data;
  try {
    load_rest(reader, data, options);
    load_instructions(reader.db(), data, options.instruction_details);
    if (options.dependencies) load_dependencies(reader.db(), data);
  } catch (const Error& e) {
    throw e.with_context(fmt::format("loading {}", path));
  }
  return data;
}

}  // namespace snr::rundb
