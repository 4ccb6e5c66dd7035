#include "sweep/charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "report/svg.h"

namespace snr::sweep {
namespace {

using report::escape_html;
using report::px;

constexpr std::array<std::string_view, 10> kColors = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
std::string_view color(size_t i) { return kColors[i % kColors.size()]; }

// An axis over [lo, hi] of data values: its domain (log10 of the values on
// a log axis), ticks in the domain and their labels.
struct Axis {
  bool log = false;
  double lo = 0, hi = 1;  // domain
  std::vector<double> ticks;

  [[nodiscard]] double domain(double value) const { return log ? std::log10(value) : value; }
  [[nodiscard]] std::string label(double tick) const { return format_value(log ? std::pow(10.0, tick) : tick); }
};

Axis make_axis(double lo, double hi, bool log, bool from_zero) {
  Axis a;
  a.log = log && lo > 0;
  if (a.log) {
    a.lo = std::floor(std::log10(lo) * 10) / 10;
    a.hi = std::ceil(std::log10(hi) * 10) / 10;
    if (a.hi <= a.lo) a.hi = a.lo + 1;
    // Decades, with 2 and 5 between them when there are few.
    const bool fine = a.hi - a.lo < 2.5;
    for (double k = std::floor(a.lo); k <= std::ceil(a.hi); ++k) {
      for (double m : {1.0, 2.0, 5.0}) {
        if (m != 1.0 && !fine) continue;
        const double t = k + std::log10(m);
        if (t >= a.lo - 1e-9 && t <= a.hi + 1e-9) a.ticks.push_back(t);
      }
    }
    return a;
  }
  a.lo = from_zero ? std::min(0.0, lo) : lo;
  a.hi = hi;
  if (a.hi <= a.lo) {
    const double pad = a.lo == 0 ? 1 : std::fabs(a.lo) * 0.1;
    a.lo -= from_zero ? 0 : pad;
    a.hi += pad;
  }
  if (from_zero && a.lo == 0) a.hi = report::nice_ceiling(a.hi);
  a.ticks = report::nice_ticks(a.lo, a.hi);
  return a;
}

// Legend items in rows that fit `width` pixels (the frame's estimate of an
// item's width: 32 px plus 6.5 px per character).
std::vector<std::vector<report::LegendItem>> legend_rows(const std::vector<report::LegendItem>& items, double width) {
  std::vector<std::vector<report::LegendItem>> rows;
  double used = 0;
  for (const report::LegendItem& item : items) {
    const double w = 32 + 6.5 * static_cast<double>(item.label.size());
    if (rows.empty() || (used + w > width && !rows.back().empty())) {
      rows.emplace_back();
      used = 0;
    }
    rows.back().push_back(item);
    used += w;
  }
  return rows;
}

constexpr double kLegendTop = 40;
constexpr double kLegendRow = 16;

}  // namespace

bool wants_log_axis(double lo, double hi) { return lo > 0 && hi / lo >= 20; }

std::string format_value(double value) {
  if (!std::isfinite(value)) return "-";
  if (std::fabs(value) >= 1000) return report::format_si(value);
  std::string text = fmt::format("{:.3g}", value);
  return text == "-0" ? "0" : text;
}

std::string line_chart_svg(const LineChart& chart) {
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  for (const Series& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    }
  }
  if (!std::isfinite(x_lo)) x_lo = 0, x_hi = 1, y_lo = 0, y_hi = 1;
  const Axis xa = make_axis(x_lo, x_hi, chart.log_x, false);
  const Axis ya = make_axis(y_lo, y_hi, chart.log_y, true);
  std::vector<report::LegendItem> legend;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    if (!chart.series[i].label.empty()) legend.push_back({chart.series[i].label, std::string(color(i)), true});
  }
  const auto rows = legend_rows(legend, 700);
  const int top = 40 + static_cast<int>(kLegendRow * static_cast<double>(rows.size()));
  report::SvgFigure fig(chart.id, "line", 760, 340 + top, {80, 24, top, 50});
  fig.set_title(chart.title);
  const report::LinearScale xs{xa.lo, xa.hi, fig.plot_left() + 8, fig.plot_right() - 8};
  const report::LinearScale ys{ya.lo, ya.hi, fig.plot_bottom(), fig.plot_top()};
  fig.y_axis(ys, ya.ticks, chart.y_label, [&](double t) { return ya.label(t); }, fig.plot_top(), fig.plot_bottom(),
             true);
  fig.x_axis(xs, xa.ticks, chart.x_label, [&](double t) { return xa.label(t); }, fig.plot_bottom(), fig.plot_top());
  for (size_t i = 0; i < chart.series.size(); ++i) {
    std::vector<std::pair<double, double>> points = chart.series[i].points;
    std::sort(points.begin(), points.end());
    std::string path;
    std::string marks;
    for (const auto& [x, y] : points) {
      const double px_x = xs(xa.domain(x)), px_y = ys(ya.domain(y));
      path += fmt::format("{}{},{}", path.empty() ? "" : " ", px(px_x), px(px_y));
      marks += fmt::format(R"(<circle cx="{}" cy="{}" r="3" fill="{}"><title>{}: {}</title></circle>)", px(px_x),
                           px(px_y), color(i), escape_html(format_value(x)), escape_html(format_value(y)));
    }
    fig.body() += fmt::format(R"(<g class="series"><polyline fill="none" stroke="{}" stroke-width="2" points="{}"/>{}</g>)",
                              color(i), path, marks);
  }
  for (size_t r = 0; r < rows.size(); ++r) fig.legend_at(rows[r], 12, kLegendTop + kLegendRow * static_cast<double>(r));
  return fig.finish();
}

std::string bar_chart_svg(const BarChart& chart) {
  size_t longest = 4;
  double top_value = 0;
  for (const Bar& bar : chart.bars) {
    longest = std::max(longest, bar.label.size());
    double total = 0;
    for (double part : bar.parts) total += std::max(0.0, part);
    top_value = std::max(top_value, total);
  }
  const int left = static_cast<int>(std::min<size_t>(300, 16 + longest * 7));
  const bool stacked = !chart.part_names.empty();
  std::vector<report::LegendItem> legend;
  for (size_t p = 0; p < chart.part_names.size(); ++p) legend.push_back({chart.part_names[p], std::string(color(p))});
  const auto rows = legend_rows(legend, 730);
  const int top = 36 + static_cast<int>(kLegendRow * static_cast<double>(rows.size())) + (stacked ? 6 : 0);
  const int row = 22;
  const int height = top + row * static_cast<int>(chart.bars.size()) + 50;
  report::SvgFigure fig(chart.id, stacked ? "stacked-bars" : "bars", 760, height, {left, 70, top, 50});
  fig.set_title(chart.title);
  const Axis xa = make_axis(0, top_value > 0 ? top_value : 1, false, true);
  const report::LinearScale xs{xa.lo, xa.hi, fig.plot_left(), fig.plot_right()};
  fig.x_axis(xs, xa.ticks, chart.value_label, [&](double t) { return xa.label(t); }, fig.plot_bottom(),
             fig.plot_top());
  for (size_t b = 0; b < chart.bars.size(); ++b) {
    const Bar& bar = chart.bars[b];
    const double y = fig.plot_top() + static_cast<double>(b) * row + 3;
    fig.body() += fmt::format(R"(<text x="{}" y="{}" text-anchor="end">{}</text>)", px(fig.plot_left() - 6),
                              px(y + 12), escape_html(bar.label));
    double at = 0;
    for (size_t p = 0; p < bar.parts.size(); ++p) {
      const double value = std::max(0.0, bar.parts[p]);
      if (value <= 0) continue;
      const std::string name = stacked && p < chart.part_names.size() ? chart.part_names[p] + ": " : "";
      fig.body() += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="16" fill="{}"><title>{}{}</title></rect>)",
                                px(xs(at)), px(y), px(xs(at + value) - xs(at)), color(stacked ? p : 0),
                                escape_html(name), escape_html(format_value(value)));
      at += value;
    }
    fig.body() += fmt::format(R"(<text x="{}" y="{}">{}</text>)", px(xs(at) + 4), px(y + 12),
                              escape_html(format_value(at)));
  }
  for (size_t r = 0; r < rows.size(); ++r) fig.legend_at(rows[r], 12, kLegendTop + kLegendRow * static_cast<double>(r));
  return fig.finish();
}

std::string_view figure_css() {
  return "svg.plot{display:block;margin:10px 0;background:#fff;font:11px sans-serif}"
         "svg .axis line{stroke:#333}svg .axis line.grid{stroke:#e6e6e6}svg .title{font-size:14px;font-weight:bold}"
         "svg .label{font-size:12px}";
}

std::string standalone_svg(std::string_view svg) {
  std::string out(svg);
  if (out.starts_with("<svg ")) out.insert(5, R"(xmlns="http://www.w3.org/2000/svg" )");
  const size_t open_end = out.find('>');
  if (open_end != std::string::npos) out.insert(open_end + 1, fmt::format("<style>{}</style>", figure_css()));
  return R"(<?xml version="1.0" encoding="UTF-8"?>)" "\n" + out + "\n";
}

}  // namespace snr::sweep
