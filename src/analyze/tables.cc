// write_tables(): every table of an Analysis as CSV and JSON with one
// column order (docs/analyzer.md). Each table is built once as rows of
// ordered JSON objects; the CSV is derived from the same rows.
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyze/analyze.h"
#include "common/error.h"
#include "common/file_io.h"

namespace snr::analyze {
namespace {

using Json = nlohmann::ordered_json;

Json moves_json(const std::vector<CodeMove>& moves) {
  Json out = Json::array();
  for (const CodeMove& m : moves) out.push_back(Json{{"pcs", m.pcs}, {"before_pc", m.before_pc}});
  return out;
}

std::string csv_cell(const Json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    // Moves: "pc pc>before_pc;..."; plain lists: space separated.
    std::string out;
    for (const Json& item : value) {
      if (item.is_object()) {
        if (!out.empty()) out += ';';
        std::string pcs;
        for (const Json& pc : item["pcs"]) pcs += (pcs.empty() ? "" : " ") + pc.dump();
        out += pcs + ">" + item["before_pc"].dump();
      } else {
        out += (out.empty() ? "" : " ") + csv_cell(item);
      }
    }
    return out;
  }
  return value.dump();
}

std::string csv_escape(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_header(const std::vector<std::string>& columns) {
  std::string csv;
  for (size_t c = 0; c < columns.size(); ++c) csv += (c ? "," : "") + columns[c];
  return csv + '\n';
}

void write_table(const std::filesystem::path& dir, const std::string& name, const std::vector<std::string>& columns,
                 const Json& rows) {
  std::string csv = csv_header(columns);
  for (const Json& row : rows) {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c) csv += ',';
      csv += csv_escape(csv_cell(row.at(columns[c])));
    }
    csv += '\n';
  }
  write_file_atomic(dir / (name + ".csv"), csv);
  write_file_atomic(dir / (name + ".json"), rows.dump(1) + "\n");
}

Json opt(const std::optional<uint64_t>& v) { return v ? Json(*v) : Json(nullptr); }

std::vector<std::string> columns(const Json& prototype) {
  std::vector<std::string> keys;
  for (auto it = prototype.begin(); it != prototype.end(); ++it) keys.push_back(it.key());
  return keys;
}

Json op_row(const OpRow& o) {
  Json r{{"chip", o.chip}, {"op", o.op}, {"instructions", o.instructions}, {"first_cycle", o.first_cycle},
         {"last_cycle", o.last_cycle}, {"cycles", o.cycles}, {"stall_cycles", o.stall_cycles},
         {"dma_stall_cycles", o.dma_stall_cycles}, {"hbm_bytes", o.hbm_bytes},
         {"hbm_bandwidth_bytes_per_s", o.hbm_bandwidth_bytes_per_s}, {"flops", o.flops},
         {"achieved_flops_per_s", o.achieved_flops_per_s}};
  for (const char* unit : {"matrix", "vector", "scalar", "dma"}) {
    auto it = o.unit_utilization.find(unit);
    r[std::string("utilization_") + unit] = it == o.unit_utilization.end() ? 0.0 : it->second;
  }
  return r;
}

Json dma_row(const DmaStall& d) {
  return Json{{"dma_id", d.dma_id}, {"chip", d.chip}, {"op", d.op}, {"link", d.link}, {"src_space", d.src_space},
              {"dst_space", d.dst_space}, {"bytes", d.bytes}, {"issue_step", d.issue_step}, {"issue_pc", d.issue_pc},
              {"issue_cycle", d.issue_cycle}, {"base_done_cycle", d.base_done_cycle},
              {"transfer_start_cycle", d.transfer_start_cycle}, {"transfer_end_cycle", d.transfer_end_cycle},
              {"wait_step", opt(d.wait_step)}, {"wait_start_cycle", opt(d.wait_start_cycle)},
              {"wait_end_cycle", opt(d.wait_end_cycle)}, {"base_stall_cycles", d.base_stall_cycles},
              {"transfer_stall_cycles", d.transfer_stall_cycles}, {"stall_cycles", d.stall_cycles()},
              {"slack_cycles", d.slack_cycles}, {"earliest_issue_step", d.earliest_issue_step},
              {"earliest_issue_cycle", d.earliest_issue_cycle}, {"conservative_ready_step", d.conservative_ready_step},
              {"conservative_ready_cycle", d.conservative_ready_cycle},
              {"chain", d.chain ? Json(*d.chain) : Json(nullptr)}, {"chain_depth", d.chain_depth},
              {"slice_pcs", d.slice_pcs}, {"producer_dmas", d.producer_dmas}};
}

Json group_row(const StallGroup& g) {
  return Json{{"key", g.key}, {"dmas", g.dmas}, {"bytes", g.bytes}, {"base_stall_cycles", g.base_stall_cycles},
              {"transfer_stall_cycles", g.transfer_stall_cycles},
              {"stall_cycles", g.base_stall_cycles + g.transfer_stall_cycles}, {"slack_cycles", g.slack_cycles}};
}

Json chain_row(size_t index, const DmaChain& c) {
  return Json{{"chain", index}, {"chip", c.chip}, {"op", c.op}, {"length", c.dma_ids.size()}, {"dma_ids", c.dma_ids},
              {"stall_cycles", c.stall_cycles}, {"base_stall_cycles", c.base_stall_cycles}};
}

Json dependency_row(const DmaDependency& d) {
  return Json{{"producer_dma", d.producer_dma}, {"consumer_dma", d.consumer_dma}, {"via", d.via}};
}

Json utilization_row(const UtilizationSeries& s, size_t w) {
  return Json{{"chip", s.chip}, {"unit", s.unit}, {"window", w}, {"start_cycle", w * s.window_cycles},
              {"window_cycles", s.window_length_cycles(w)},
              {"busy_fraction", w < s.busy_fraction.size() ? s.busy_fraction[w] : 0.0}};
}

Json vmem_summary_row(const VmemUsage& v) {
  return Json{{"chip", v.chip}, {"page_bytes", v.page_bytes}, {"pages", v.pages}, {"sample_cycles", v.sample_cycles},
              {"samples", v.sample_cycle.size()}, {"pages_per_block", v.pages_per_block},
              {"blocks", v.used_pages_per_block.size()}, {"median_unused_fraction", v.median_unused_fraction},
              {"median_largest_unused_fraction", v.median_largest_unused_fraction},
              {"pages_written_never_read", v.pages_written_never_read},
              {"pages_written_unread_at_end", v.pages_written_unread_at_end}};
}

Json suggestion_row(size_t index, const Suggestion& s) {
  const Verification& v = s.verification;
  return Json{{"rank", index + 1}, {"kind", suggestion_kind_name(s.kind)}, {"chip", s.chip}, {"op", s.op},
              {"cross_op", s.cross_op}, {"dma_ids", s.dma_ids}, {"stall_cycles", s.stall_cycles},
              {"push_limit_cycles", s.push_limit_cycles}, {"dma_bytes", s.dma_bytes},
              {"memory_available", s.memory_available}, {"needs_reallocation", s.needs_reallocation},
              {"predicted_saving_cycles", s.predicted_saving_cycles}, {"text", s.text}, {"moves", moves_json(s.moves)},
              {"fallback_moves", moves_json(s.fallback_moves)}, {"verification_attempted", v.attempted},
              {"verification_legal", v.legal}, {"illegal_reason", v.illegal_reason},
              {"baseline_cycles", v.baseline_cycles}, {"rewritten_cycles", v.rewritten_cycles},
              {"measured_saving_cycles", v.measured_saving_cycles},
              {"target_stall_cycles_before", v.target_stall_cycles_before},
              {"target_stall_cycles_after", v.target_stall_cycles_after},
              {"final_state_matched", v.final_state_matched}, {"hidden_stall_cycles", s.hidden_stall_cycles}};
}

// Each table: its rows and its columns (also when it has no rows).
struct Table {
  std::string name;
  Json rows = Json::array();
  std::vector<std::string> columns;
};

// The heatmap is large (chips x blocks x samples): its CSV is written row
// by row and its JSON is one matrix per chip instead of an object per cell.
void write_heatmap(const std::filesystem::path& dir, const std::vector<VmemUsage>& vmem) {
  std::string csv = csv_header({"chip", "block", "sample", "cycle", "used_pages"});
  Json json = Json::array();
  for (const VmemUsage& v : vmem) {
    for (size_t b = 0; b < v.used_pages_per_block.size(); ++b) {
      for (size_t s = 0; s < v.used_pages_per_block[b].size(); ++s) {
        csv += fmt::format("{},{},{},{},{}\n", v.chip, b, s, s < v.sample_cycle.size() ? v.sample_cycle[s] : 0,
                           v.used_pages_per_block[b][s]);
      }
    }
    json.push_back(Json{{"chip", v.chip}, {"pages_per_block", v.pages_per_block}, {"sample_cycle", v.sample_cycle},
                        {"used_pages", v.used_pages_per_block}});
  }
  write_file_atomic(dir / "vmem_heatmap.csv", csv);
  write_file_atomic(dir / "vmem_heatmap.json", json.dump() + "\n");
}

template <typename Items, typename RowFn>
Table table_of(std::string name, const Items& items, RowFn row, const Json& prototype) {
  Table t{std::move(name), Json::array(), columns(prototype)};
  for (const auto& item : items) t.rows.push_back(row(item));
  return t;
}

Table summary_table(const Analysis& a) {
  const Summary& s = a.summary;
  Table t{"summary", Json::array(), {"key", "value"}};
  auto add = [&](const std::string& key, const Json& value) { t.rows.push_back(Json{{"key", key}, {"value", value}}); };
  add("source", s.source);
  add("hw_preset", s.hw_preset);
  add("clock_hz", s.clock_hz);
  add("chips", s.chips);
  add("machine_chips", s.machine_chips);
  add("recorded_chips", s.recorded_chips);
  add("total_cycles", s.total_cycles);
  add("instructions", s.instructions);
  add("stall_cycles", s.stall_cycles);
  add("dma_stall_cycles", s.dma_stall_cycles);
  add("dma_base_stall_cycles", s.dma_base_stall_cycles);
  add("dma_transfer_stall_cycles", s.dma_transfer_stall_cycles);
  for (const auto& [reason, cycles] : s.stall_cycles_by_reason) add("stall_cycles." + reason, cycles);
  for (const auto& [unit, f] : s.unit_utilization) add("utilization." + unit, f);
  add("chains", a.chains.size());
  add("suggestions", a.suggestions.size());
  return t;
}

std::vector<Table> build_tables(const Analysis& a) {
  std::vector<Table> t;
  t.push_back(summary_table(a));
  t.push_back(table_of("ops", a.ops, op_row, op_row(OpRow{})));
  t.push_back(table_of("dmas", a.dmas, dma_row, dma_row(DmaStall{})));
  t.push_back(table_of("stalls_by_op", a.stalls_by_op, group_row, group_row(StallGroup{})));
  t.push_back(table_of("stalls_by_link", a.stalls_by_link, group_row, group_row(StallGroup{})));
  {
    Table chains{"chains", Json::array(), columns(chain_row(0, DmaChain{}))};
    for (size_t i = 0; i < a.chains.size(); ++i) chains.rows.push_back(chain_row(i, a.chains[i]));
    t.push_back(std::move(chains));
  }
  t.push_back(table_of("dma_dependencies", a.dma_dependencies, dependency_row, dependency_row(DmaDependency{})));
  {
    Table util{"utilization", Json::array(), columns(utilization_row(UtilizationSeries{}, 0))};
    for (const UtilizationSeries& s : a.utilization) {
      for (size_t w = 0; w < s.busy_fraction.size(); ++w) util.rows.push_back(utilization_row(s, w));
    }
    t.push_back(std::move(util));
  }
  t.push_back(table_of("vmem_summary", a.vmem, vmem_summary_row, vmem_summary_row(VmemUsage{})));
  {
    Table series{"vmem_series", Json::array(), {"chip", "sample", "cycle", "unused_fraction", "largest_unused_fraction"}};
    for (const VmemUsage& v : a.vmem) {
      for (size_t s = 0; s < v.sample_cycle.size(); ++s) {
        series.rows.push_back(Json{{"chip", v.chip}, {"sample", s}, {"cycle", v.sample_cycle[s]},
                                   {"unused_fraction", v.unused_fraction[s]},
                                   {"largest_unused_fraction", v.largest_unused_fraction[s]}});
      }
    }
    t.push_back(std::move(series));
  }
  {
    Table suggestions{"suggestions", Json::array(), columns(suggestion_row(0, Suggestion{}))};
    for (size_t i = 0; i < a.suggestions.size(); ++i) suggestions.rows.push_back(suggestion_row(i, a.suggestions[i]));
    t.push_back(std::move(suggestions));
  }
  return t;
}

}  // namespace

void write_tables(const Analysis& analysis, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("creating {}: {}", dir, ec.message()));
  for (const Table& table : build_tables(analysis)) {
    write_table(dir, table.name, table.columns, table.rows);
  }
  write_heatmap(dir, analysis.vmem);
}

}  // namespace snr::analyze
