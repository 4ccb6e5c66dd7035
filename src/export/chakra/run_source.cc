#include "export/chakra/run_source.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"
#include "common/hash.h"
#include "compiler/artifacts.h"
#include "compiler/runner.h"
#include "formats/rundb/reader.h"
#include "isa/isa.h"
#include "sim/timing.h"
#include "tracker/tracker.h"

namespace snr::exporter {
namespace {

std::string_view column_view(sqlite3_stmt* stmt, int column) {
  const unsigned char* text = sqlite3_column_text(stmt, column);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(stmt, column))};
}

uint64_t u64(sqlite3_stmt* stmt, int column) { return static_cast<uint64_t>(sqlite3_column_int64(stmt, column)); }
uint32_t u32(sqlite3_stmt* stmt, int column) { return static_cast<uint32_t>(sqlite3_column_int64(stmt, column)); }

class Query {
 public:
  Query(rundb::Database& db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db.handle(), sql, -1, &stmt_, nullptr) != SQLITE_OK) db.fail(fmt::format("preparing '{}'", sql));
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
  rundb::Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Mnemonics as the ISA table's static text (RunData keeps views).
std::string_view static_mnemonic(std::string_view text) {
  if (const isa::InstructionRow* row = isa::find_row(text)) return row->mnemonic;
  return "?";
}

void load_instructions(rundb::Database& db, rundb::RunData& data) {
  data.op_names = {""};
  std::unordered_map<std::string, uint32_t> op_index{{"", 0}};
  std::string last_op;
  uint32_t last_op_index = 0;
  std::string last_mnemonic;
  std::string_view last_static;
  Query q(db, "SELECT step, chip, op, mnemonic, issue_cycle FROM instructions ORDER BY step");
  sqlite3_stmt* s = q.get();
  while (q.next()) {
    rundb::InstructionRecord r;
    r.step = u64(s, 0);
    r.chip = u32(s, 1);
    const std::string_view op = column_view(s, 2);
    if (op != last_op) {
      last_op.assign(op);
      auto [it, inserted] = op_index.emplace(last_op, static_cast<uint32_t>(data.op_names.size()));
      if (inserted) data.op_names.push_back(last_op);
      last_op_index = it->second;
    }
    r.op = last_op_index;
    const std::string_view mnemonic = column_view(s, 3);
    if (mnemonic != last_mnemonic || last_static.empty()) {
      last_mnemonic.assign(mnemonic);
      last_static = static_mnemonic(mnemonic);
    }
    r.mnemonic = last_static;
    r.issue_cycle = u64(s, 4);
    data.instructions.push_back(r);
  }
}

void load_dmas(rundb::Database& db, rundb::RunData& data) {
  Query q(db,
          "SELECT dma_id, chip, issue_step, src_chip, src_space, src_address, dst_chip, dst_space, bytes, "
          "issue_cycle, transfer_end_cycle, wait_end_cycle FROM dmas ORDER BY dma_id");
  sqlite3_stmt* s = q.get();
  while (q.next()) {
    rundb::DmaRecord r;
    r.dma_id = u64(s, 0);
    r.chip = u32(s, 1);
    r.issue_step = u64(s, 2);
    r.src_chip = u32(s, 3);
    r.src_space = std::string(column_view(s, 4));
    r.src_address = u64(s, 5);
    r.dst_chip = u32(s, 6);
    r.dst_space = std::string(column_view(s, 7));
    r.bytes = u64(s, 8);
    r.issue_cycle = u64(s, 9);
    r.transfer_end_cycle = u64(s, 10);
    r.waited = sqlite3_column_type(s, 11) != SQLITE_NULL;
    if (r.waited) r.wait_end_cycle = u64(s, 11);
    data.dmas.push_back(std::move(r));
  }
}

}  // namespace

ExportSource load_run_db_for_export(const std::string& path) {
  rundb::RunDbReader reader(path);
  ExportSource source;
  rundb::RunData& data = source.data;
  try {
    for (const auto& [key, value] : reader.meta()) data.meta.emplace_back(key, value);
    data.total_cycles = reader.meta_integer("total_cycles");
    Query chips(reader.db(), "SELECT chip, instructions, first_cycle, last_cycle, stall_cycles FROM chips ORDER BY chip");
    while (chips.next()) {
      sqlite3_stmt* s = chips.get();
      data.chips.push_back({u32(s, 0), u64(s, 1), u64(s, 2), u64(s, 3), u64(s, 4)});
    }
    load_instructions(reader.db(), data);
    load_dmas(reader.db(), data);
  } catch (const Error& e) {
    throw e.with_context(fmt::format("loading {}", path));
  }
  source.provenance = {
      {"source", "snr replay run.db"},
      {"run_db_source", reader.meta_value("source")},
      {"hw_preset", reader.meta_value("hw_preset")},
      {"hw_overrides", reader.meta_value("hw_overrides")},
      {"window", fmt::format("recorded window: {} chips, {} instructions, {} cycles", data.chips.size(),
                             data.instructions.size(), data.total_cycles)},
      {"clock_hz", reader.meta_value("clock_hz")},
  };
  return source;
}

ExportSource run_compiled_model_for_export(const std::string& directory, const std::vector<std::string>& overrides,
                                           uint64_t max_cycles) {
  compiler::ModelImage image = compiler::read_compiled_model(directory);
  hw::apply_overrides(image.hw, overrides);
  sim::System system(compiler::system_config(image));
  compiler::install(image, system);
  sim::TimingSimulator timing(system);
  tracker::TrackerHooks hooks;
  hooks.op_of_pc = [&image](uint64_t pc) {
    const int op = image.op_at(pc);
    return op < 0 ? std::string() : image.ops[static_cast<size_t>(op)].name;
  };
  hooks.link_name = [&timing](uint32_t link) { return timing.dma().link_name(link); };
  hooks.vmem_page_bytes = system.config().vmem_page_bytes.count;
  tracker::PerformanceTracker tracker(system.bus(), system.chip_count(), hooks);
  const sim::RunOutcome outcome = timing.run(max_cycles);
  for (uint32_t c = 0; c < system.chip_count(); ++c) {
    if (system.chip(c).exit_code != 0) {
      throw Error(fmt::format("{}: chip {} exited with code {}", directory, c, system.chip(c).exit_code));
    }
  }
  ExportSource source;
  source.data = tracker.finish();
  const double clock_hz = system.config().clock.hertz;
  source.data.meta.emplace_back("clock_hz", fmt::format("{:.0f}", clock_hz));
  // The spec text in the manifest identifies the model (same spec, same bytes).
  const auto manifest_path = std::filesystem::path(directory) / "manifest.json";
  const auto manifest = parse_json_input(read_file(manifest_path), manifest_path.string());
  const std::string spec = manifest.contains("spec") ? manifest["spec"].dump() : std::string();
  std::string overrides_text;
  for (const auto& o : overrides) overrides_text += (overrides_text.empty() ? "" : " ") + o;
  source.provenance = {
      {"source", "snr run compiled model"},
      {"model", image.name},
      {"model_spec_fnv1a64", fmt::format("{:016x}", fnv1a64(spec))},
      {"hw_preset", system.config().preset_name},
      {"hw_overrides", overrides_text},
      {"window", fmt::format("whole step: {} chips, {} cycles", system.chip_count(), outcome.cycles)},
      {"clock_hz", fmt::format("{:.0f}", clock_hz)},
  };
  return source;
}

}  // namespace snr::exporter
