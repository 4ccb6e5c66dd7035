#include "sweep/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "common/file_io.h"
#include "common/output.h"
#include "report/svg.h"
#include "sweep/charts.h"
#include "sweep/quantity.h"

namespace snr::sweep {
namespace {

using report::escape_html;

constexpr size_t kMaxSeries = 8;
constexpr size_t kMaxBars = 40;
constexpr size_t kMaxCauseBars = 20;
constexpr size_t kBestRows = 20;
constexpr size_t kFailedRows = 20;

std::string cell_text(const nlohmann::json& cell) {
  if (cell.is_null()) return "";
  if (cell.is_string()) return cell.get<std::string>();
  if (cell.is_number_integer()) return std::to_string(cell.get<int64_t>());
  return fmt::format("{}", cell.get<double>());
}

// One parameter over the rows a figure uses.
struct Parameter {
  std::string name;
  int column = -1;
  bool numeric = false;
  std::string unit;                 // base unit of a quantity parameter
  std::vector<std::string> labels;  // distinct values, first appearance first
  std::vector<size_t> label_of;     // per used row
  std::vector<double> x_of;         // per used row, when numeric
};

// What the report looks at: the objective of the rows that count.
struct View {
  const ResultTable* table = nullptr;
  int objective = -1;
  std::vector<size_t> rows;  // "ok", feasible when any is, objective a number
  std::vector<Parameter> parameters;
  bool feasible_filtered = false;

  [[nodiscard]] double value(size_t used) const { return table->rows[rows[used]][objective].get<double>(); }
};

Parameter describe(const ResultTable& table, const std::string& name, const std::vector<size_t>& rows) {
  Parameter p;
  p.name = name;
  p.column = table.column(name);
  std::map<std::string, size_t> index;
  bool numbers = true, quantities = true;
  const QuantityKind* kind = nullptr;
  for (size_t r : rows) {
    const nlohmann::json& cell = table.rows[r][p.column];
    const std::string text = cell_text(cell);
    auto [it, added] = index.emplace(text, p.labels.size());
    if (added) p.labels.push_back(text);
    p.label_of.push_back(it->second);
    if (cell.is_number()) {
      quantities = false;
      p.x_of.push_back(cell.get<double>());
      continue;
    }
    numbers = false;
    const auto q = parse_quantity(text);
    if (!q || q->unit.empty() || (kind != nullptr && q->kind != kind)) {
      quantities = false;
    } else {
      kind = q->kind;
      p.x_of.push_back(q->base);
    }
  }
  p.numeric = !rows.empty() && (numbers || quantities);
  if (quantities && kind != nullptr) p.unit = std::string(kind->base_unit);
  if (!p.numeric) p.x_of.clear();
  return p;
}

View make_view(const ResultTable& table) {
  View v;
  v.table = &table;
  v.objective = table.column(table.info.objective);
  const int status = table.column("status");
  const int feasible = table.info.feasible.empty() ? -1 : table.column(table.info.feasible);
  std::vector<size_t> ok, fits;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    if (v.objective < 0 || row[status] != "ok" || !row[v.objective].is_number()) continue;
    ok.push_back(r);
    if (feasible >= 0 && row[feasible].is_number() && row[feasible].get<double>() == 1) fits.push_back(r);
  }
  v.feasible_filtered = feasible >= 0 && !fits.empty();
  v.rows = v.feasible_filtered ? fits : ok;
  for (const std::string& name : table.info.parameters) {
    if (table.column(name) >= 0) v.parameters.push_back(describe(table, name, v.rows));
  }
  return v;
}

std::string axis_label(const Parameter& p) { return p.unit.empty() ? p.name : fmt::format("{} ({})", p.name, p.unit); }

std::string slug(std::string_view text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
  return out;
}

// The parameter whose values become the lines of a chart over `x`.
const Parameter* series_for(const View& v, const Parameter& x) {
  const Parameter* numeric = nullptr;
  for (const Parameter& p : v.parameters) {
    if (&p == &x || p.labels.size() < 2 || p.labels.size() > kMaxSeries) continue;
    if (!p.numeric) return &p;
    if (numeric == nullptr) numeric = &p;
  }
  return numeric;
}

ReportFigure line_figure(const View& v, const Parameter& x, size_t number) {
  const Parameter* by = series_for(v, x);
  const std::string objective = v.table->info.objective;
  LineChart chart;
  chart.id = fmt::format("fig-{:02}-{}", number, slug(x.name));
  chart.title = by == nullptr ? fmt::format("best {} vs {}", objective, x.name)
                              : fmt::format("best {} vs {}, one line per {}", objective, x.name, by->name);
  chart.x_label = axis_label(x);
  chart.y_label = objective;
  const size_t lines = by == nullptr ? 1 : by->labels.size();
  std::vector<std::map<double, double>> best(lines);
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = 0, y_lo = x_lo, y_hi = 0;
  for (size_t u = 0; u < v.rows.size(); ++u) {
    auto& line = best[by == nullptr ? 0 : by->label_of[u]];
    const double xv = x.x_of[u], yv = v.value(u);
    auto [it, added] = line.emplace(xv, yv);
    if (!added) it->second = std::min(it->second, yv);
    x_lo = std::min(x_lo, xv), x_hi = std::max(x_hi, xv), y_lo = std::min(y_lo, yv), y_hi = std::max(y_hi, yv);
  }
  chart.log_x = wants_log_axis(x_lo, x_hi);
  chart.log_y = wants_log_axis(y_lo, y_hi);
  for (size_t l = 0; l < lines; ++l) {
    Series s;
    s.label = by == nullptr ? "" : fmt::format("{} = {}", by->name, by->labels[l]);
    for (const auto& [xv, yv] : best[l]) s.points.emplace_back(xv, yv);
    if (!s.points.empty()) chart.series.push_back(std::move(s));
  }
  return {chart.id, chart.title, line_chart_svg(chart), ""};
}

ReportFigure bar_figure(const View& v, const Parameter& p, size_t number) {
  BarChart chart;
  chart.id = fmt::format("fig-{:02}-{}", number, slug(p.name));
  chart.title = fmt::format("best {} per {}", v.table->info.objective, p.name);
  chart.value_label = v.table->info.objective;
  std::vector<double> best(p.labels.size(), std::numeric_limits<double>::infinity());
  for (size_t u = 0; u < v.rows.size(); ++u) best[p.label_of[u]] = std::min(best[p.label_of[u]], v.value(u));
  for (size_t l = 0; l < p.labels.size(); ++l) chart.bars.push_back({p.labels[l], {best[l]}});
  return {chart.id, chart.title, bar_chart_svg(chart), ""};
}

std::vector<int> cause_columns(const ResultTable& table) {
  std::vector<int> out;
  if (table.info.varying_prefix.empty()) return out;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    if (table.columns[c].starts_with(table.info.varying_prefix)) out.push_back(static_cast<int>(c));
  }
  return out;
}

// Stacked bars of the cause columns, one bar per (label, row).
ReportFigure cause_figure(const View& v, const std::vector<int>& causes, const std::string& id,
                          const std::string& title, const std::vector<std::pair<std::string, size_t>>& bars) {
  const ResultTable& t = *v.table;
  BarChart chart;
  chart.id = id;
  chart.title = title;
  chart.value_label = t.info.objective;
  for (int c : causes) chart.part_names.push_back(t.columns[c].substr(t.info.varying_prefix.size()));
  for (const auto& [label, row] : bars) {
    Bar bar{label, {}};
    for (int c : causes) bar.parts.push_back(t.rows[row][c].is_number() ? t.rows[row][c].get<double>() : 0.0);
    chart.bars.push_back(std::move(bar));
  }
  return {chart.id, chart.title, bar_chart_svg(chart), ""};
}

// The parameters' values of a point, in key order (the figure's title
// names the keys).
std::string point_label(const View& v, size_t used) {
  std::string out;
  for (const Parameter& p : v.parameters) out += (out.empty() ? "" : " | ") + p.labels[p.label_of[used]];
  return out.size() > 40 ? out.substr(0, 37) + "..." : out;
}

std::string rows_table(const ResultTable& t, const std::vector<size_t>& rows, const std::vector<std::string>& columns) {
  std::string out = "<table><tr><th>#</th>";
  for (const std::string& c : columns) out += fmt::format("<th>{}</th>", escape_html(c));
  out += "</tr>";
  for (size_t i = 0; i < rows.size(); ++i) {
    out += fmt::format("<tr><td>{}</td>", i + 1);
    for (const std::string& c : columns) {
      const nlohmann::json& cell = t.rows[rows[i]][t.column(c)];
      out += fmt::format("<td{}>{}</td>", cell.is_string() ? " class=t" : "",
                         escape_html(cell.is_number_float() ? format_value(cell.get<double>()) : cell_text(cell)));
    }
    out += "</tr>";
  }
  return out + "</table>";
}

}  // namespace

SweepReport build_report(const ResultTable& table) {
  const View v = make_view(table);
  SweepReport report;
  size_t number = 1;
  for (const Parameter& p : v.parameters) {
    if (p.numeric && p.labels.size() >= 2) report.figures.push_back(line_figure(v, p, number++));
  }
  for (const Parameter& p : v.parameters) {
    if (!p.numeric && p.labels.size() >= 2 && p.labels.size() <= kMaxBars) {
      report.figures.push_back(bar_figure(v, p, number++));
    }
  }
  const std::vector<int> causes = cause_columns(table);
  std::vector<size_t> order(v.rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v.value(a) < v.value(b); });
  if (!causes.empty() && !v.rows.empty()) {
    // Time by cause of the best point at each value of the first parameter
    // with a handful of values, then of the best points overall.
    for (const Parameter& p : v.parameters) {
      if (p.labels.size() < 2 || p.labels.size() > kMaxCauseBars) continue;
      std::vector<std::pair<std::string, size_t>> bars;
      for (size_t l = 0; l < p.labels.size(); ++l) {
        for (size_t u : order) {
          if (p.label_of[u] != l) continue;
          bars.emplace_back(p.labels[l], v.rows[u]);
          break;
        }
      }
      report.figures.push_back(cause_figure(v, causes, fmt::format("fig-{:02}-causes-{}", number++, slug(p.name)),
                                            fmt::format("{} by cause, best point per {}", table.info.objective, p.name),
                                            bars));
      break;
    }
    std::vector<std::pair<std::string, size_t>> bars;
    for (size_t i = 0; i < std::min<size_t>(10, order.size()); ++i) {
      bars.emplace_back(point_label(v, order[i]), v.rows[order[i]]);
    }
    report.figures.push_back(cause_figure(v, causes, fmt::format("fig-{:02}-causes-best", number++),
                                          fmt::format("{} by cause, the best points", table.info.objective), bars));
    report.figures.back().note = fmt::format("Bars are labelled with the values of {}.",
                                             fmt::join(table.info.parameters, " | "));
  }

  // The page.
  const int status = table.column("status");
  size_t failed = 0;
  std::vector<size_t> failed_rows;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    if (table.rows[r][status] == "ok") continue;
    ++failed;
    if (failed_rows.size() < kFailedRows) failed_rows.push_back(r);
  }
  std::string& h = report.html;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>snr sweep report</title><style>";
  h += "body{font:14px/1.4 sans-serif;margin:0 24px 40px;color:#222;max-width:1200px}h1{font-size:22px}"
       "h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc}table{border-collapse:collapse;font-size:12px}"
       "th,td{border:1px solid #ddd;padding:2px 6px;text-align:right}td.t{text-align:left}th{background:#f2f2f2}"
       "pre{background:#f6f6f6;padding:8px;overflow-x:auto}.scroll{overflow-x:auto}";
  h += figure_css();
  h += "</style></head><body>\n";
  h += fmt::format("<h1>Sweep report: {}</h1>\n", escape_html(table.info.grid_path));
  h += fmt::format("<p>Run kind <b>{}</b>; {} points in the database, {} ok, {} failed. Figures show the best (lowest) "
                   "<b>{}</b> over the parameters not on the axis, among successful points{}.</p>\n",
                   escape_html(table.info.kind), table.rows.size(), table.rows.size() - failed, failed,
                   escape_html(table.info.objective),
                   v.feasible_filtered ? fmt::format(" with {} = 1", escape_html(table.info.feasible)) : "");
  if (v.rows.empty()) h += "<p><b>No successful point to plot.</b></p>\n";
  h += "<h2>Figures</h2>\n";
  for (const ReportFigure& f : report.figures) {
    h += fmt::format("<figure>{}<figcaption>{}<a href=\"{}.svg\">{}.svg</a></figcaption></figure>\n", f.svg,
                     f.note.empty() ? "" : escape_html(f.note) + " ", f.id, f.id);
  }
  std::vector<std::string> columns = {table.info.objective};
  for (const Parameter& p : v.parameters) columns.push_back(p.name);
  for (const OutputColumn& c : table.info.outputs) {
    if (c.name != table.info.objective && table.column(c.name) >= 0) columns.push_back(c.name);
  }
  std::vector<size_t> best;
  for (size_t i = 0; i < std::min(kBestRows, order.size()); ++i) best.push_back(v.rows[order[i]]);
  h += fmt::format("<h2>Best points</h2>\n<div class=scroll>{}</div>\n", rows_table(table, best, columns));
  if (!failed_rows.empty()) {
    std::vector<std::string> failed_columns = {"key"};
    for (const Parameter& p : v.parameters) failed_columns.push_back(p.name);
    failed_columns.push_back("error");
    h += fmt::format("<h2>Failed points ({} of {} shown)</h2>\n<div class=scroll>{}</div>\n", failed_rows.size(), failed,
                     rows_table(table, failed_rows, failed_columns));
  }
  h += fmt::format("<h2>Grid</h2>\n<pre>{}</pre>\n</body></html>\n", escape_html(table.info.grid_text));
  return report;
}

void write_report(const SweepReport& report, const std::filesystem::path& dir) {
  output::StagedDirectory staged(dir);
  write_file_atomic(staged.path() / "index.html", report.html);
  for (const ReportFigure& f : report.figures) {
    write_file_atomic(staged.path() / (f.id + ".svg"), standalone_svg(f.svg));
  }
  staged.commit();
}

}  // namespace snr::sweep
