#include "formats/rundb/load.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <mutex>
#include <sqlite3.h>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "common/error.h"
#include "common/units.h"
#include "formats/rundb/reader.h"
#include "formats/rundb/sqlite_handle.h"
#include "hw/config.h"
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

// A prepared query over one table stepped with the raw API, so hot loops
// read columns without a std::string per cell. Integer columns are counts,
// cycles, ids and addresses: a negative value (or a chip number beyond 32
// bits) is damage, refused with the table, column and row rather than
// wrapped into a huge unsigned number.
class Query {
 public:
  Query(Database& db, std::string_view table, const std::string& sql) : db_(db), table_(table) {
    if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
      db.fail(fmt::format("preparing '{}'", sql));
    }
  }
  ~Query() { sqlite3_finalize(stmt_); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;
  bool next() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) {
      ++row_;
      return true;
    }
    if (rc != SQLITE_DONE) db_.fail("reading rows");
    return false;
  }
  [[nodiscard]] sqlite3_stmt* get() const { return stmt_; }

  uint64_t u64(int column) const {
    const int64_t value = sqlite3_column_int64(stmt_, column);
    if (value < 0) out_of_range(column, value, "a non-negative integer");
    return static_cast<uint64_t>(value);
  }
  uint32_t u32(int column) const {
    const int64_t value = sqlite3_column_int64(stmt_, column);
    if (value < 0 || value > UINT32_MAX) out_of_range(column, value, "an integer from 0 to 4294967295");
    return static_cast<uint32_t>(value);
  }
  // A 64-bit pattern (pcs, addresses): a remote global address of chip 128
  // or above has the top bit set and is stored as a negative integer.
  uint64_t bits64(int column) const { return static_cast<uint64_t>(sqlite3_column_int64(stmt_, column)); }

 private:
  [[noreturn]] void out_of_range(int column, int64_t value, std::string_view expected) const {
    throw Error(fmt::format("{}: row {}: {} is {}, expected {}", table_, row_, sqlite3_column_name(stmt_, column),
                            value, expected));
  }

  Database& db_;
  std::string_view table_;
  sqlite3_stmt* stmt_ = nullptr;
  uint64_t row_ = 0;
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
  Query q(db, "instructions",
          details ? "SELECT step, chip, op, mnemonic, issue_cycle, chip_index, pc, complete_cycle, stall_cycles, "
                    "stall_reason FROM instructions ORDER BY step"
                  : "SELECT step, chip, op, mnemonic, issue_cycle FROM instructions ORDER BY step");
  sqlite3_stmt* s = q.get();
  while (q.next()) {
    InstructionRecord r;
    r.step = q.u64(0);
    if (!data.instructions.empty() && data.instructions.back().step == r.step) {
      throw Error(fmt::format("instructions: step {} appears twice", r.step));
    }
    r.chip = q.u32(1);
    const std::string_view op = column_view(s, 2);
    auto it = op_index.find(op);
    if (it == op_index.end()) {
      it = op_index.emplace(std::string(op), static_cast<uint32_t>(data.op_names.size())).first;
      data.op_names.emplace_back(op);
    }
    r.op = it->second;
    r.mnemonic = mnemonics(column_view(s, 3));
    r.issue_cycle = q.u64(4);
    if (details) {
      r.chip_index = q.u64(5);
      r.pc = q.bits64(6);
      r.complete_cycle = q.u64(7);
      r.stall_cycles = q.u64(8);
      r.stall_reason = reasons(column_view(s, 9));
    }
    data.instructions.push_back(r);
  }
}

void load_dependencies(Database& db, RunData& data) {
  StaticText kinds(false);
  // Table order is the tracker's publication order; keep it (the
  // analyzer does not depend on it, determinism of dumps does).
  Query q(db, "dependencies",
          "SELECT producer_step, consumer_step, kind, chip, first, last FROM dependencies ORDER BY rowid");
  sqlite3_stmt* s = q.get();
  while (q.next()) {
    DependencyRecord r;
    r.producer_step = q.u64(0);
    r.consumer_step = q.u64(1);
    r.kind = kinds(column_view(s, 2));
    r.chip = q.u32(3);
    r.first = q.bits64(4);
    r.last = q.bits64(5);
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
    Query q(db, "hw_config", "SELECT yaml FROM hw_config");
    if (q.next()) data.hw_config_yaml = std::string(column_view(q.get(), 0));
  }
  {
    Query q(db, "chips", "SELECT chip, instructions, first_cycle, last_cycle, stall_cycles FROM chips ORDER BY chip");
    while (q.next()) {
      data.chips.push_back({q.u32(0), q.u64(1), q.u64(2), q.u64(3), q.u64(4)});
    }
  }
  if (options.unit_busy) {
    Query q(db, "unit_busy",
            "SELECT chip, unit, start_cycle, end_cycle, first_step, instructions FROM unit_busy ORDER BY rowid");
    sqlite3_stmt* s = q.get();
    while (q.next()) {
      data.unit_busy.push_back({q.u32(0), std::string(column_view(s, 1)), q.u64(2), q.u64(3),
                                q.u64(4), q.u64(5)});
    }
  }
  {
    Query q(db, "dmas",
            "SELECT dma_id, chip, issue_step, pc, src_chip, src_space, src_address, dst_chip, dst_space, dst_address, "
            "bytes, link, semaphore, issue_cycle, base_done_cycle, transfer_start_cycle, transfer_end_cycle, "
            "wait_chip, wait_step, wait_start_cycle, wait_end_cycle FROM dmas ORDER BY dma_id");
    sqlite3_stmt* s = q.get();
    while (q.next()) {
      DmaRecord r;
      r.dma_id = q.u64(0);
      r.chip = q.u32(1);
      r.issue_step = q.u64(2);
      r.pc = q.bits64(3);
      r.src_chip = q.u32(4);
      r.src_space = std::string(column_view(s, 5));
      r.src_address = q.bits64(6);
      r.dst_chip = q.u32(7);
      r.dst_space = std::string(column_view(s, 8));
      r.dst_address = q.bits64(9);
      r.bytes = q.u64(10);
      r.link = std::string(column_view(s, 11));
      r.semaphore = q.u32(12);
      r.issue_cycle = q.u64(13);
      r.base_done_cycle = q.u64(14);
      r.transfer_start_cycle = q.u64(15);
      r.transfer_end_cycle = q.u64(16);
      r.waited = sqlite3_column_type(s, 20) != SQLITE_NULL;
      if (r.waited) {
        r.wait_chip = q.u32(17);
        r.wait_step = q.u64(18);
        r.wait_start_cycle = q.u64(19);
        r.wait_end_cycle = q.u64(20);
      }
      data.dmas.push_back(std::move(r));
    }
  }
  if (options.vmem_runs) {
    Query q(db, "vmem_runs",
            "SELECT chip, first_page, last_page, is_write, first_cycle, last_cycle, accesses FROM vmem_runs "
            "ORDER BY rowid");
    sqlite3_stmt* s = q.get();
    while (q.next()) {
      data.vmem_runs.push_back({q.u32(0), q.u64(1), q.u64(2), sqlite3_column_int64(s, 3) != 0,
                                q.u64(4), q.u64(5), q.u64(6)});
    }
  }
  if (options.semaphores) {
    Query q(db, "semaphore_events",
            "SELECT sequence, chip, semaphore, op, cycle, amount, value_after, from_chip FROM semaphore_events "
            "ORDER BY sequence");
    sqlite3_stmt* s = q.get();
    while (q.next()) {
      data.semaphores.push_back({q.u64(0), q.u32(1), q.u32(2), std::string(column_view(s, 3)),
                                 q.u64(4), sqlite3_column_int64(s, 5), q.u32(6), q.u32(7)});
    }
  }
}

// The chip count of meta.chips, or 0 when the key is absent (hand-made
// files); chip numbers are then checked against nothing.
uint32_t meta_chips(const RunData& data) {
  for (const auto& [key, value] : data.meta) {
    if (key != "chips") continue;
    uint32_t chips = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), chips);
    if (ec != std::errc() || end != value.data() + value.size() || chips == 0) {
      throw Error(fmt::format("meta.chips is '{}', expected a chip count from 1", value));
    }
    return chips;
  }
  return 0;
}

// The hardware the run was replayed on gives the chip count as well
// (hw_config's `chips`): a file where it and meta.chips disagree was edited
// or put together from two runs, and which count a reader believed would
// decide its chip listings, averages and routes. Returns that count, 0 when
// the config does not give one.
uint32_t check_hw_config_chips(const RunData& data, uint32_t meta_chip_count) {
  if (data.hw_config_yaml.empty()) return 0;
  const hw::LoadedHardware hardware = hw::parse_hardware_yaml(data.hw_config_yaml, "hw_config");
  if (!hardware.gives_chips) return 0;
  if (meta_chip_count != 0 && hardware.config.chip_count != meta_chip_count) {
    throw Error(fmt::format("hw_config gives chips: {}, but meta.chips is {}", hardware.config.chip_count,
                            meta_chip_count));
  }
  return hardware.config.chip_count;
}

// meta.clock_hz, when present: the replayed clock in whole hertz, inside the
// hardware schema's clock range. Every time in ns the exports and diffs
// print divides by it.
void check_meta_clock(const RunData& data) {
  const hw::ClockRange range = hw::clock_range();
  for (const auto& [key, value] : data.meta) {
    if (key != "clock_hz") continue;
    uint64_t hertz = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), hertz);
    const auto in_range = [&] {
      return static_cast<double>(hertz) >= range.min.hertz && static_cast<double>(hertz) <= range.max.hertz;
    };
    if (ec != std::errc() || end != value.data() + value.size() || !in_range()) {
      throw Error(fmt::format("meta.clock_hz is '{}', expected a clock in whole hertz from {:.0f} ({}) to {:.0f} ({})",
                              value, range.min.hertz, format_frequency(range.min), range.max.hertz,
                              format_frequency(range.max)));
    }
  }
}

// Relations every replay's run data keeps (the tracker's total_cycles covers
// every issue, completion, transfer end and wait end; a WAIT is an
// instruction of the waiting chip): a file that breaks one was edited or
// damaged, and the analyses of it would be wrong rather than merely odd.
void check_consistency(const RunData& data, const LoadOptions& options) {
  const uint64_t total = data.total_cycles;
  check_meta_clock(data);
  const uint32_t meta_chip_count = meta_chips(data);
  const uint32_t hw_chip_count = check_hw_config_chips(data, meta_chip_count);
  // Without meta.chips (a hand-made file) the hardware's count bounds the
  // rows as well; with neither, nothing does.
  const uint32_t chips = meta_chip_count != 0 ? meta_chip_count : hw_chip_count;
  const std::string_view chips_from = meta_chip_count != 0 ? "meta.chips" : "hw_config's chips";
  const auto check_chip = [chips, chips_from](std::string_view table, std::string_view what, uint64_t key,
                                              uint32_t chip) {
    if (chips != 0 && chip >= chips) {
      throw Error(fmt::format("{}: {} {} names chip {}, but {} is {}", table, what, key, chip, chips_from, chips));
    }
  };
  for (const ChipSummary& chip : data.chips) check_chip("chips", "row of chip", chip.chip, chip.chip);
  const auto instruction_at = [&data](uint64_t step) -> const InstructionRecord* {
    const auto it = std::lower_bound(data.instructions.begin(), data.instructions.end(), step,
                                     [](const InstructionRecord& r, uint64_t s) { return r.step < s; });
    return it != data.instructions.end() && it->step == step ? &*it : nullptr;
  };
  for (const InstructionRecord& r : data.instructions) {
    check_chip("instructions", "step", r.step, r.chip);
    if (r.issue_cycle >= total) {
      throw Error(fmt::format("instructions: step {} issues at cycle {}, not before meta.total_cycles {}", r.step,
                              r.issue_cycle, total));
    }
    // The stall is cycles before the issue, inside the run.
    if (r.stall_cycles > r.issue_cycle) {
      throw Error(fmt::format("instructions: step {} stalls {} cycles before issuing at {}", r.step,
                              r.stall_cycles, r.issue_cycle));
    }
    if (options.instruction_details && (r.complete_cycle < r.issue_cycle || r.complete_cycle > total)) {
      throw Error(fmt::format("instructions: step {} completes at cycle {}, outside its issue cycle {} .. "
                              "meta.total_cycles {}", r.step, r.complete_cycle, r.issue_cycle, total));
    }
  }
  for (const UnitBusyRecord& r : data.unit_busy) {
    check_chip("unit_busy", "interval from cycle", r.start_cycle, r.chip);
    if (r.start_cycle > r.end_cycle || r.end_cycle > total) {
      throw Error(fmt::format("unit_busy: chip {} {} busy {} .. {}, outside 0 .. meta.total_cycles {}", r.chip, r.unit,
                              r.start_cycle, r.end_cycle, total));
    }
  }
  for (const DmaRecord& r : data.dmas) {
    check_chip("dmas", "DMA", r.dma_id, r.chip);
    check_chip("dmas", "DMA", r.dma_id, r.src_chip);
    check_chip("dmas", "DMA", r.dma_id, r.dst_chip);
    // The phases follow each other (a transfer starts once its base latency
    // is over); out of order, stall and busy times would be negative.
    if (r.base_done_cycle < r.issue_cycle || r.transfer_start_cycle < r.base_done_cycle ||
        r.transfer_end_cycle < r.transfer_start_cycle || r.transfer_end_cycle > total) {
      throw Error(fmt::format("dmas: DMA {} has a phase (base done {}, transfer {} .. {}) out of order or outside its "
                              "issue cycle {} .. meta.total_cycles {}", r.dma_id, r.base_done_cycle,
                              r.transfer_start_cycle, r.transfer_end_cycle, r.issue_cycle, total));
    }
    const InstructionRecord* issue = instruction_at(r.issue_step);
    if (!data.instructions.empty() && (issue == nullptr || issue->chip != r.chip)) {
      throw Error(fmt::format("dmas: DMA {} is issued at step {}, which is no instruction of chip {}", r.dma_id,
                              r.issue_step, r.chip));
    }
    if (!r.waited) continue;
    check_chip("dmas", "DMA", r.dma_id, r.wait_chip);
    if (r.wait_start_cycle > r.wait_end_cycle || r.wait_end_cycle > total) {
      throw Error(fmt::format("dmas: DMA {} is waited for from cycle {} to {}, outside 0 .. meta.total_cycles {}",
                              r.dma_id, r.wait_start_cycle, r.wait_end_cycle, total));
    }
    const InstructionRecord* wait = instruction_at(r.wait_step);
    if (!data.instructions.empty() && (wait == nullptr || wait->chip != r.wait_chip)) {
      throw Error(fmt::format("dmas: DMA {} is waited for at step {}, which is no instruction of chip {}", r.dma_id,
                              r.wait_step, r.wait_chip));
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
    check_consistency(data, options);
  } catch (const Error& e) {
    throw e.with_context(fmt::format("loading {}", path));
  }
  return data;
}

RunData check_run_db(const std::string& path) {
  return load_run_data(path, {.dependencies = false, .vmem_runs = false, .semaphores = false});
}

}  // namespace snr::rundb
