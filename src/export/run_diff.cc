#include "export/run_diff.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "formats/rundb/load.h"
#include "metrics/run_metrics.h"

namespace snr::exporter {
namespace {

using rundb::Statement;

std::map<std::string, int64_t> named_values(rundb::RunDbReader& run, const std::string& sql) {
  std::map<std::string, int64_t> values;
  Statement rows(run.db(), sql);
  while (rows.next()) values[rows.text(0)] = rows.integer(1);
  return values;
}

// Each DMA's charge of the WAIT that consumed it (metrics::
// charged_wait_stall_cycles), so `snr diff` and `snr analyze` report one
// number per DMA (the analyzer's dmas table, stall_cycles) and in total
// (its dma_stall_cycles).
struct DmaCharges {
  // A DMA is named by its chip and its place in that chip's issue order:
  // each chip runs the same instructions under any hardware, while dma_id
  // (the system-wide issue order) changes whenever the chips' timing
  // interleaves differently, which would pair one chip's DMA with
  // another's.
  std::map<std::string, int64_t> by_dma;
  int64_t total_cycles = 0;
};

DmaCharges dma_charges(const std::vector<rundb::DmaRecord>& dmas) {
  const std::vector<uint64_t> charged = metrics::charged_wait_stall_cycles(dmas);
  std::map<uint32_t, uint64_t> issued_by_chip;
  DmaCharges out;
  for (size_t i = 0; i < dmas.size(); ++i) {  // in dma_id order, as loaded
    const rundb::DmaRecord& dma = dmas[i];
    const auto cycles = static_cast<int64_t>(charged[i]);
    out.by_dma[fmt::format("chip {} dma {:06} {}", dma.chip, issued_by_chip[dma.chip]++, dma.link)] = cycles;
    out.total_cycles += cycles;
  }
  return out;
}

std::map<std::string, int64_t> totals_of(rundb::RunDbReader& run, const DmaCharges& charges) {
  std::map<std::string, int64_t> totals;
  totals["total_cycles"] = static_cast<int64_t>(run.meta_integer("total_cycles"));
  auto scalar = [&](const char* name, const char* sql) {
    Statement row(run.db(), sql);
    totals[name] = row.next() ? row.integer(0) : 0;
  };
  scalar("instructions", "SELECT COUNT(*) FROM instructions");
  scalar("stall_cycles", "SELECT COALESCE(SUM(stall_cycles), 0) FROM instructions");
  scalar("dmas", "SELECT COUNT(*) FROM dmas");
  scalar("dma_bytes", "SELECT COALESCE(SUM(bytes), 0) FROM dmas");
  totals["dma_wait_stall_cycles"] = charges.total_cycles;
  // Two runs on different clocks (tpu-v4-like at 1.05 GHz, tpu-v5e-like at
  // 1.5 GHz) are compared by time: more cycles can be less time.
  const uint64_t clock_hz = run.meta_value("clock_hz").empty() ? 0 : run.meta_integer("clock_hz");
  if (clock_hz > 0) {
    totals["total_time_ns"] = static_cast<int64_t>(
        std::llround(static_cast<double>(totals["total_cycles"]) * 1e9 / static_cast<double>(clock_hz)));
  }
  return totals;
}

std::vector<DiffRow> join(const std::map<std::string, int64_t>& a, const std::map<std::string, int64_t>& b) {
  std::map<std::string, DiffRow> rows;
  for (const auto& [name, value] : a) rows[name] = {name, value, 0};
  for (const auto& [name, value] : b) {
    DiffRow& row = rows[name];
    row.name = name;
    row.b = value;
  }
  std::vector<DiffRow> out;
  for (auto& [name, row] : rows) out.push_back(row);
  return out;
}

std::string percent(const DiffRow& row) {
  if (row.a == 0) return row.b == 0 ? "0.0%" : "new";
  return fmt::format("{:+.1f}%", 100.0 * static_cast<double>(row.delta()) / static_cast<double>(row.a));
}

void append_section(std::string& out, const std::string& title, const std::vector<DiffRow>& rows) {
  size_t width = title.size();
  for (const DiffRow& row : rows) width = std::max(width, row.name.size());
  out += fmt::format("{:<{}}  {:>14}  {:>14}  {:>14}  {:>8}\n", title, width, "a", "b", "b - a", "change");
  for (const DiffRow& row : rows) {
    out += fmt::format("{:<{}}  {:>14}  {:>14}  {:>+14}  {:>8}\n", row.name, width, row.a, row.b, row.delta(), percent(row));
  }
  out += '\n';
}

nlohmann::json rows_json(const std::vector<DiffRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const DiffRow& row : rows) out.push_back({{"name", row.name}, {"a", row.a}, {"b", row.b}, {"delta", row.delta()}});
  return out;
}

}  // namespace

RunDiff diff_runs(rundb::RunDbReader& a, rundb::RunDbReader& b) {
  const rundb::RunData checked_a = rundb::check_run_db(a.path());
  const rundb::RunData checked_b = rundb::check_run_db(b.path());
  RunDiff diff;
  diff.a_source = a.meta_value("source");
  diff.b_source = b.meta_value("source");
  diff.a_hw = a.meta_value("hw_preset") + (a.meta_value("hw_overrides").empty() ? "" : " " + a.meta_value("hw_overrides"));
  diff.b_hw = b.meta_value("hw_preset") + (b.meta_value("hw_overrides").empty() ? "" : " " + b.meta_value("hw_overrides"));
  if (diff.a_source != diff.b_source) diff.notes.push_back("the runs replay different sources; per-op rows may not align");
  if (a.meta_value("clock_hz") != b.meta_value("clock_hz")) {
    diff.notes.push_back(fmt::format("the clocks differ ({} Hz vs {} Hz): compare total_time_ns, not cycles",
                                     a.meta_value("clock_hz"), b.meta_value("clock_hz")));
  }
  const DmaCharges charges_a = dma_charges(checked_a.dmas), charges_b = dma_charges(checked_b.dmas);
  const std::map<std::string, int64_t> totals_a = totals_of(a, charges_a), totals_b = totals_of(b, charges_b);
  diff.totals = join(totals_a, totals_b);
  const std::string op_sql =
      "SELECT CASE WHEN op = '' THEN '(no op)' ELSE op END AS name, SUM(cycles) FROM op_summary GROUP BY name";
  diff.op_cycles = join(named_values(a, op_sql), named_values(b, op_sql));
  diff.dma_stalls = join(charges_a.by_dma, charges_b.by_dma);
  if (totals_a.at("dmas") != totals_b.at("dmas")) {
    diff.notes.push_back(fmt::format("DMA counts differ ({} vs {}); per-DMA rows pair by each chip's issue order",
                                     totals_a.at("dmas"), totals_b.at("dmas")));
  }
  return diff;
}

std::string render_diff_table(const RunDiff& diff) {
  std::string out = fmt::format("a: {} [{}]\nb: {} [{}]\n\n", diff.a_source, diff.a_hw, diff.b_source, diff.b_hw);
  // A multi-chip window's op cycles add up to chips x its length: the
  // headers say which figures are summed over chips.
  append_section(out, "totals (total_cycles, total_time_ns: the window; the rest: all chips)", diff.totals);
  append_section(out, "op cycles (all chips)", diff.op_cycles);
  append_section(out, "dma wait stall cycles charged (as snr analyze)", diff.dma_stalls);
  for (const std::string& note : diff.notes) out += "note: " + note + "\n";
  return out;
}

std::string render_diff_json(const RunDiff& diff) {
  nlohmann::ordered_json out;
  out["a"] = {{"source", diff.a_source}, {"hw", diff.a_hw}};
  out["b"] = {{"source", diff.b_source}, {"hw", diff.b_hw}};
  out["totals"] = rows_json(diff.totals);
  out["op_cycles"] = rows_json(diff.op_cycles);
  out["dma_wait_stall_cycles"] = rows_json(diff.dma_stalls);
  out["notes"] = diff.notes;
  return out.dump(2) + "\n";
}

}  // namespace snr::exporter
