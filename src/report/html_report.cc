#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/error.h"
#include "common/file_io.h"
#include "report/svg.h"

namespace snr::report {

namespace {

using analyze::Analysis;
using analyze::DmaStall;
using analyze::Suggestion;

// Registered before anything else runs so that any script error ends up in
// a DOM attribute (and a visible banner) a headless browser test can read.
constexpr const char* kHeadScript = R"(<script>
window.snrErrors=0;window.onerror=function(m){window.snrErrors++;document.documentElement.setAttribute('data-js-errors',String(window.snrErrors));var b=document.getElementById('js-error');if(b){b.hidden=false;b.textContent='script error: '+m;}};
</script>)";

constexpr const char* kStyle = R"(<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0 24px 40px;color:#222;max-width:1240px}
h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:12px;margin:6px 0}th,td{border:1px solid #ddd;padding:2px 6px;text-align:right;vertical-align:top}
th{background:#f3f3f3;position:sticky;top:0}td.t,th.t{text-align:left}tr:nth-child(even) td{background:#fafafa}
details>summary{cursor:pointer}details table{margin-left:12px}
dl.summary{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:8px 0}dl.summary dt{font-weight:600}dl.summary dd{margin:0}
svg.plot{display:block;margin:8px 0;background:#fff;font:11px system-ui,sans-serif}
svg .axis line{stroke:#333;stroke-width:1}svg .grid{stroke:#e3e3e3!important}svg .title{font-size:14px;font-weight:600}
svg .label{font-size:12px}svg .sep{stroke:#999;stroke-dasharray:3 3}
.note{color:#666;font-size:12px;margin:0}.findings li{margin:2px 0}.bad{color:#b00}.good{color:#070}
.row{display:flex;gap:20px;flex-wrap:wrap}#js-error{background:#fdd;padding:6px;border:1px solid #b00}
</style>)";

// Chip selectors: each <select data-group=G> shows the figure group G's
// member for the chosen chip. Ends by recording how many plots the page has.
constexpr const char* kTailScript = R"(<script>
document.querySelectorAll('select.chip-select').forEach(function(sel){
  function show(){document.querySelectorAll('[data-group="'+sel.dataset.group+'"]').forEach(function(el){
    el.hidden=el.dataset.chip!==sel.value;});}
  sel.addEventListener('change',show);show();});
document.documentElement.setAttribute('data-plots',String(document.querySelectorAll('svg.plot').length));
document.documentElement.setAttribute('data-ready','1');
</script>)";

std::string microseconds(uint64_t cycles, double clock_hz) {
  if (clock_hz <= 0) return "-";
  return fmt::format("{:.2f} µs", static_cast<double>(cycles) / clock_hz * 1e6);
}

std::string share(uint64_t part, uint64_t whole) {
  return whole == 0 ? "-" : format_percent(static_cast<double>(part) / static_cast<double>(whole));
}

std::string kind_name(Suggestion::Kind kind) {
  switch (kind) {
    case Suggestion::Kind::kIssueEarlier: return "issue earlier";
    case Suggestion::Kind::kParallelChainHeads: return "parallel chain heads";
  }
  return "?";
}

std::string note_html(const std::string& note) {
  return note.empty() ? std::string() : fmt::format(R"(<p class="note">{}</p>)", escape_html(note));
}

std::string dma_table(const std::vector<const DmaStall*>& dmas, size_t limit) {
  std::string out =
      "<table><tr><th>DMA</th><th class=t>link</th><th class=t>from → to</th><th>bytes</th><th>issue cycle</th>"
      "<th>base stall</th><th>transfer stall</th><th>slack</th><th>could issue at</th><th>chain</th></tr>";
  for (size_t i = 0; i < std::min(limit, dmas.size()); ++i) {
    const DmaStall& d = *dmas[i];
    out += fmt::format(
        "<tr><td>{}</td><td class=t>{}</td><td class=t>{} → {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>",
        d.dma_id, escape_html(d.link), escape_html(d.src_space), escape_html(d.dst_space), format_count(d.bytes),
        format_count(d.issue_cycle), format_count(d.base_stall_cycles), format_count(d.transfer_stall_cycles),
        format_count(d.slack_cycles), format_count(d.earliest_issue_cycle),
        d.chain ? fmt::format("{} (depth {})", *d.chain, d.chain_depth) : std::string("-"));
  }
  out += "</table>";
  if (dmas.size() > limit) out += fmt::format(R"(<p class="note">{} more DMAs not listed</p>)", dmas.size() - limit);
  return out;
}

std::string summary_section(const Analysis& a) {
  const analyze::Summary& s = a.summary;
  std::string out = R"(<section id="summary"><h2>Summary</h2><dl class="summary">)";
  auto item = [&out](std::string_view key, const std::string& value) {
    out += fmt::format("<dt>{}</dt><dd>{}</dd>", key, value);
  };
  item("source", escape_html(s.source));
  item("hardware", escape_html(s.hw_preset));
  item("clock", s.clock_hz > 0 ? fmt::format("{}Hz", format_si(s.clock_hz)) : "-");
  item("chips", s.chips == s.machine_chips ? std::to_string(s.chips) : s.describe_chips());
  item("window", fmt::format("{} cycles ({})", format_count(s.total_cycles), microseconds(s.total_cycles, s.clock_hz)));
  item("instructions", format_count(s.instructions));
  item("stall cycles (all chips)", format_count(s.stall_cycles));
  item("DMA WAIT stalls", fmt::format("{} cycles: {} base latency ({}), {} transfer ({})", format_count(s.dma_stall_cycles),
                                      format_count(s.dma_base_stall_cycles), share(s.dma_base_stall_cycles, s.dma_stall_cycles),
                                      format_count(s.dma_transfer_stall_cycles),
                                      share(s.dma_transfer_stall_cycles, s.dma_stall_cycles)));
  std::string reasons;
  for (const auto& [reason, cycles] : s.stall_cycles_by_reason) {
    reasons += fmt::format("{}{}: {}", reasons.empty() ? "" : ", ", escape_html(reason), format_count(cycles));
  }
  item("stalls by reason", reasons.empty() ? "-" : reasons);
  std::string units;
  for (const auto& [unit, busy] : s.unit_utilization) {
    units += fmt::format("{}{} {}", units.empty() ? "" : ", ", escape_html(unit), format_percent(busy));
  }
  item("unit utilization (mean over chips)", units.empty() ? "-" : units);
  for (const auto& v : a.vmem) {
    item(fmt::format("VMEM chip {}", v.chip),
         fmt::format("median unused {}, median largest contiguous unused {}; {} pages written and never read",
                     format_percent(v.median_unused_fraction), format_percent(v.median_largest_unused_fraction),
                     format_count(v.pages_written_never_read)));
  }
  item("dependent DMA chains", std::to_string(a.chains.size()));
  out += "</dl><ul class=\"findings\">";
  // Findings: the few lines a reader needs before the details.
  if (!a.stalls_by_op.empty()) {
    const auto top = std::max_element(a.stalls_by_op.begin(), a.stalls_by_op.end(), [](const auto& x, const auto& y) {
      return x.base_stall_cycles + x.transfer_stall_cycles < y.base_stall_cycles + y.transfer_stall_cycles;
    });
    out += fmt::format("<li>Most DMA stall is in <b>{}</b>: {} cycles ({} base latency, {} transfer) over {} DMAs.</li>",
                       escape_html(top->key), format_count(top->base_stall_cycles + top->transfer_stall_cycles),
                       format_count(top->base_stall_cycles), format_count(top->transfer_stall_cycles), top->dmas);
  }
  if (!a.chains.empty()) {
    out += fmt::format("<li>{} chain(s) of dependent DMAs found (each waits for the data the previous one brought).</li>",
                       a.chains.size());
  }
  if (!a.suggestions.empty()) {
    const Suggestion& best = a.suggestions.front();
    out += fmt::format("<li>Top suggestion: {} (predicted saving {} cycles{}).</li>", escape_html(best.text),
                       format_count(best.predicted_saving_cycles),
                       best.verification.attempted && best.verification.legal
                           ? fmt::format(", measured {} cycles", format_count(best.verification.measured_saving_cycles))
                           : std::string());
  } else {
    out += "<li>No suggestions: no stalled DMA can move earlier.</li>";
  }
  out += "</ul></section>";
  return out;
}

std::string ops_section(const Analysis& a, const ReportOptions& options) {
  std::map<std::pair<uint32_t, std::string>, std::vector<const DmaStall*>> dmas_of;
  for (const auto& d : a.dmas) dmas_of[{d.chip, d.op}].push_back(&d);
  std::vector<std::string> units;
  for (const auto& row : a.ops) {
    for (const auto& [unit, busy] : row.unit_utilization) {
      if (std::find(units.begin(), units.end(), unit) == units.end()) units.push_back(unit);
    }
  }
  std::sort(units.begin(), units.end());
  std::string out = R"(<section id="ops"><h2>Ops</h2><p class="note">One row per op and chip, as a coarse profiler shows it, plus what only the replay knows; open an op to see its DMAs.</p><table><tr>)"
                    "<th>chip</th><th class=t>op</th><th>cycles</th><th>time</th><th>% of window</th><th>instructions</th>"
                    "<th>achieved FLOP/s</th><th>HBM GB/s</th><th>stall cycles</th><th>DMA stall</th>";
  for (const auto& unit : units) out += fmt::format("<th>{} util</th>", escape_html(unit));
  out += "</tr>";
  for (const auto& row : a.ops) {
    const auto it = dmas_of.find({row.chip, row.op});
    std::string name = escape_html(row.op.empty() ? "(no op)" : row.op);
    if (it != dmas_of.end()) {
      name = fmt::format("<details><summary>{} ({} DMAs)</summary>{}</details>", name, it->second.size(),
                         dma_table(it->second, options.max_dmas_per_op));
    }
    out += fmt::format("<tr><td>{}</td><td class=t>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                       row.chip, name, format_count(row.cycles), microseconds(row.cycles, a.summary.clock_hz),
                       share(row.cycles, a.summary.total_cycles), format_count(row.instructions),
                       row.flops == 0 ? std::string("-") : format_si(row.achieved_flops_per_s),
                       row.hbm_bytes == 0 ? std::string("-") : fmt::format("{:.1f}", row.hbm_bandwidth_bytes_per_s / 1e9),
                       format_count(row.stall_cycles), format_count(row.dma_stall_cycles));
    for (const auto& unit : units) {
      const auto u = row.unit_utilization.find(unit);
      out += fmt::format("<td>{}</td>", u == row.unit_utilization.end() ? "-" : format_percent(u->second));
    }
    out += "</tr>";
  }
  out += "</table></section>";
  return out;
}

std::string chains_table(const Analysis& a) {
  if (a.chains.empty()) return R"(<p class="note">No dependent DMA chains in this window.</p>)";
  std::string out = "<table><tr><th>chain</th><th>chip</th><th class=t>op</th><th>DMAs (head first)</th><th>stall cycles</th><th>base-latency stall</th></tr>";
  for (size_t i = 0; i < a.chains.size(); ++i) {
    const auto& c = a.chains[i];
    std::string ids;
    for (uint64_t id : c.dma_ids) ids += fmt::format("{}{}", ids.empty() ? "" : " → ", id);
    out += fmt::format("<tr><td>{}</td><td>{}</td><td class=t>{}</td><td class=t>{}</td><td>{}</td><td>{}</td></tr>", i,
                       c.chip, escape_html(c.op), ids, format_count(c.stall_cycles), format_count(c.base_stall_cycles));
  }
  return out + "</table>";
}

std::string dma_section(const Analysis& a, const ReportOptions& options) {
  std::string out = R"(<section id="dmas"><h2>DMA stalls</h2><p class="note">Each DMA: base latency (green) until the engine takes it, queueing (light purple) and transfer (purple); the red line is the WAIT that consumed it, stalling until completion; gray hatch is slack (the WAIT came after completion, so it could move earlier); the thin line to the left is the backtail: how early its inputs allow the ISSUE under the relaxed dependency model.</p>)";
  const Figure timeline = dma_timeline_figure(a, options.limits);
  out += timeline.svg + note_html(timeline.note);
  out += R"(<div class="row">)";
  for (const Figure& f : {stall_bars_figure(a.stalls_by_op, "fig-stalls-by-op", "DMA stall cycles by op", "op", options.limits),
                          stall_bars_figure(a.stalls_by_link, "fig-stalls-by-link", "DMA stall cycles by link", "link",
                                            options.limits)}) {
    out += "<div>" + f.svg + note_html(f.note) + "</div>";
  }
  out += "</div><h3>Dependent DMA chains</h3>" + chains_table(a) + "</section>";
  return out;
}

std::set<uint32_t> chips_of(const Analysis& a) {
  std::set<uint32_t> chips;
  for (const auto& s : a.utilization) chips.insert(s.chip);
  return chips;
}

std::string chip_selector(std::string_view group, const std::vector<uint32_t>& chips) {
  if (chips.size() < 2) return {};
  std::string out = fmt::format(R"(<label>chip <select class="chip-select" data-group="{}">)", group);
  for (uint32_t chip : chips) out += fmt::format(R"(<option value="{0}">{0}</option>)", chip);
  return out + "</select></label>";
}

std::string utilization_section(const Analysis& a, const ReportOptions& options) {
  const std::set<uint32_t> chip_set = chips_of(a);
  const std::vector<uint32_t> chips(chip_set.begin(), chip_set.end());
  std::string out = R"(<section id="utilization"><h2>Unit utilization</h2><p class="note">Busy share of each unit per window; orange ticks on the matrix panel are DMA completions, so gaps that end at a completion show the matrix unit waiting for data.</p>)";
  out += chip_selector("util", chips);
  for (uint32_t chip : chips) {
    const Figure f = utilization_figure(a, chip, options.limits);
    out += fmt::format(R"(<div data-group="util" data-chip="{}">{}{}</div>)", chip, f.svg, note_html(f.note));
  }
  if (chips.empty()) out += R"(<p class="note">No utilization data.</p>)";
  return out + "</section>";
}

std::string vmem_section(const Analysis& a, const ReportOptions& options) {
  std::vector<uint32_t> chips;
  for (const auto& v : a.vmem) chips.push_back(v.chip);
  std::string out = R"(<section id="vmem"><h2>VMEM use and fragmentation</h2><p class="note">A page is used while it holds data that is read later; pages written and never read count as unused. The largest contiguous unused region bounds how big a prefetch can be.</p>)";
  if (!a.vmem.empty()) {
    out += "<table><tr><th>chip</th><th>pages</th><th>page bytes</th><th>median unused</th><th>median largest contiguous unused</th><th>pages written, never read</th></tr>";
    for (const auto& v : a.vmem) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", v.chip,
                         format_count(v.pages), format_count(v.page_bytes), format_percent(v.median_unused_fraction),
                         format_percent(v.median_largest_unused_fraction), format_count(v.pages_written_never_read));
    }
    out += "</table>";
  }
  out += chip_selector("vmem", chips);
  for (const auto& v : a.vmem) {
    const Figure usage = vmem_usage_figure(v, options.limits);
    const Figure heat = vmem_heatmap_figure(v, options.limits);
    out += fmt::format(R"(<div data-group="vmem" data-chip="{}">{}{}{}{}</div>)", v.chip, usage.svg, note_html(usage.note),
                       heat.svg, note_html(heat.note));
  }
  if (a.vmem.empty()) out += R"(<p class="note">No VMEM data.</p>)";
  return out + "</section>";
}

std::string verification_cell(const analyze::Verification& v) {
  if (!v.attempted) return "not verified";
  if (!v.legal) return fmt::format(R"(<span class="bad">illegal: {}</span>)", escape_html(v.illegal_reason));
  return fmt::format(R"(<span class="{}">{} cycles</span> ({} → {} cycles; target stalls {} → {}; end state {}))",
                     v.measured_saving_cycles > 0 ? "good" : "bad", v.measured_saving_cycles,
                     format_count(v.baseline_cycles), format_count(v.rewritten_cycles),
                     format_count(v.target_stall_cycles_before), format_count(v.target_stall_cycles_after),
                     v.final_state_matched ? "matches" : R"(<span class="bad">differs</span>)");
}

std::string suggestions_section(const Analysis& a) {
  std::string out = R"(<section id="suggestions"><h2>Suggestions</h2><p class="note">Algorithm 2: a stalled DMA whose dependencies let its ISSUE move at least as far as it stalls, with enough contiguous free VMEM over the moved span. The predicted saving re-times the chip's stream with the moves applied, each link serving one transfer at a time; verified suggestions were applied to the snapshot's instruction stream and replayed, and come first, ranked by verified saving.</p>)";
  if (a.suggestions.empty()) return out + R"(<p class="note">No suggestions for this window.</p></section>)";
  out += "<table><tr><th>#</th><th class=t>kind</th><th>chip</th><th class=t>op</th><th class=t>suggestion</th><th class=t>DMAs</th>"
         "<th>stall cycles</th><th>push limit</th><th>VMEM room</th><th>predicted saving</th><th class=t>verified saving</th><th>cross-op</th></tr>";
  for (size_t i = 0; i < a.suggestions.size(); ++i) {
    const Suggestion& s = a.suggestions[i];
    std::string ids;
    for (uint64_t id : s.dma_ids) ids += fmt::format("{}{}", ids.empty() ? "" : ", ", id);
    out += fmt::format("<tr><td>{}</td><td class=t>{}</td><td>{}</td><td class=t>{}</td><td class=t>{}</td><td class=t>{}</td>"
                       "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=t>{}</td><td>{}</td></tr>",
                       i + 1, kind_name(s.kind), s.chip, escape_html(s.op), escape_html(s.text), ids,
                       format_count(s.stall_cycles), format_count(s.push_limit_cycles),
                       s.memory_available ? "yes" : "no", format_count(s.predicted_saving_cycles),
                       verification_cell(s.verification), s.cross_op ? "yes (Q1)" : "no");
  }
  return out + "</table></section>";
}

}  // namespace

std::string render_report_html(const Analysis& analysis, const ReportOptions& options) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  out += fmt::format("<title>{}</title>", escape_html(options.title));
  out += kHeadScript;
  out += kStyle;
  out += "</head><body><div id=\"js-error\" hidden></div>";
  out += fmt::format("<h1>{}</h1>", escape_html(options.title));
  out += R"(<p class="note">Sections: <a href="#summary">summary</a> · <a href="#ops">ops</a> · <a href="#dmas">DMA stalls</a> · <a href="#utilization">utilization</a> · <a href="#vmem">VMEM</a> · <a href="#suggestions">suggestions</a>)";
  if (!options.files.empty()) out += R"( · <a href="#files">files</a>)";
  out += "</p>\n";
  out += summary_section(analysis) + "\n";
  out += ops_section(analysis, options) + "\n";
  out += dma_section(analysis, options) + "\n";
  out += utilization_section(analysis, options) + "\n";
  out += vmem_section(analysis, options) + "\n";
  out += suggestions_section(analysis) + "\n";
  if (!options.files.empty()) {
    out += R"(<section id="files"><h2>Files</h2><ul>)";
    for (const auto& [label, path] : options.files) {
      out += fmt::format(R"(<li><a href="{}">{}</a></li>)", escape_html(path), escape_html(label));
    }
    out += "</ul></section>\n";
  }
  out += kTailScript;
  out += "</body></html>\n";
  return out;
}

std::filesystem::path write_report(const Analysis& analysis, const std::filesystem::path& directory,
                                   const ReportOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) throw Error(fmt::format("{}: cannot create the report directory: {}", directory.string(), ec.message()));
  const std::filesystem::path path = directory / "index.html";
  write_file_atomic(path, render_report_html(analysis, options));
  return path;
}

}  // namespace snr::report
