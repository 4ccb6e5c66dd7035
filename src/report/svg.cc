#include "report/svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace snr::report {

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_count(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  const size_t n = digits.size();
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_si(double value) {
  if (value == 0 || !std::isfinite(value)) return "0";
  static constexpr std::array<const char*, 6> kPrefixes = {"", "k", "M", "G", "T", "P"};
  double magnitude = std::fabs(value);
  size_t prefix = 0;
  while (magnitude >= 999.5 && prefix + 1 < kPrefixes.size()) {
    magnitude /= 1000;
    value /= 1000;
    ++prefix;
  }
  // Three significant digits, trailing zeros dropped, so tick labels stay short.
  std::string text = fmt::format("{:.{}f}", value, magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  if (text == "-0") text = "0";
  return text + kPrefixes[prefix];
}

std::string format_percent(double fraction) { return fmt::format("{:.1f}%", 100.0 * fraction); }

std::string px(double value) {
  std::string text = fmt::format("{:.1f}", value);
  if (text.size() > 2 && text.ends_with(".0")) text.resize(text.size() - 2);
  if (text == "-0") text = "0";
  return text;
}

namespace {

double nice_step(double span, int target) {
  const double raw = span / std::max(1, target);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / power;
  const double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * power;
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  if (!(hi > lo)) return {lo};
  const double step = nice_step(hi - lo, target);
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step) {
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

double nice_ceiling(double value) {
  if (!(value > 0)) return 1;
  const double step = nice_step(value, 5);
  return std::ceil(value / step - 1e-9) * step;
}

double LinearScale::operator()(double value) const {
  const double span = domain_hi - domain_lo;
  if (span == 0) return range_lo;
  return range_lo + (value - domain_lo) / span * (range_hi - range_lo);
}

SvgFigure::SvgFigure(std::string id, std::string kind, int width, int height, Margins margins)
    : id_(std::move(id)), kind_(std::move(kind)), width_(width), height_(height), margins_(margins) {}

void SvgFigure::set_title(std::string_view title) { title_ = std::string(title); }

void SvgFigure::x_axis(const LinearScale& scale, const std::vector<double>& ticks, std::string_view label,
                       const std::function<std::string(double)>& format, double y, double grid_top) {
  body_ += fmt::format(R"(<g class="axis"><line x1="{}" y1="{}" x2="{}" y2="{}"/>)", px(plot_left()), px(y),
                       px(plot_right()), px(y));
  for (double tick : ticks) {
    const double x = scale(tick);
    if (x < plot_left() - 0.5 || x > plot_right() + 0.5) continue;
    if (grid_top < y) {
      body_ += fmt::format(R"(<line class="grid" x1="{0}" y1="{1}" x2="{0}" y2="{2}"/>)", px(x), px(grid_top), px(y));
    }
    body_ += fmt::format(R"(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}"/><text x="{0}" y="{3}" text-anchor="middle">{4}</text>)",
                         px(x), px(y), px(y + 5), px(y + 17), escape_html(format(tick)));
  }
  if (!label.empty()) {
    body_ += fmt::format(R"(<text class="label" x="{}" y="{}" text-anchor="middle">{}</text>)",
                         px((plot_left() + plot_right()) / 2), px(y + 33), escape_html(label));
  }
  body_ += "</g>";
}

void SvgFigure::y_axis(const LinearScale& scale, const std::vector<double>& ticks, std::string_view label,
                       const std::function<std::string(double)>& format, double top, double bottom, bool grid) {
  const double x = plot_left();
  body_ += fmt::format(R"(<g class="axis"><line x1="{0}" y1="{1}" x2="{0}" y2="{2}"/>)", px(x), px(top), px(bottom));
  for (double tick : ticks) {
    const double y = scale(tick);
    if (y < top - 0.5 || y > bottom + 0.5) continue;
    if (grid) {
      body_ += fmt::format(R"(<line class="grid" x1="{0}" y1="{1}" x2="{2}" y2="{1}"/>)", px(x), px(y), px(plot_right()));
    }
    body_ += fmt::format(R"(<line x1="{0}" y1="{2}" x2="{1}" y2="{2}"/><text x="{3}" y="{4}" text-anchor="end">{5}</text>)",
                         px(x - 5), px(x), px(y), px(x - 7), px(y + 4), escape_html(format(tick)));
  }
  const double middle = (top + bottom) / 2;
  body_ += fmt::format(R"~(<text class="label" x="14" y="{0}" text-anchor="middle" transform="rotate(-90 14 {0})">{1}</text></g>)~",
                       px(middle), escape_html(label));
}

void SvgFigure::legend(const std::vector<LegendItem>& items) { legend_at(items, plot_left(), 26); }

void SvgFigure::legend_at(const std::vector<LegendItem>& items, double x, double y) {
  body_ += R"(<g class="legend">)";
  for (const LegendItem& item : items) {
    if (item.line) {
      body_ += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"/>)", px(x), px(y - 4),
                           px(x + 14), px(y - 4), item.fill);
    } else {
      body_ += fmt::format(R"(<rect x="{}" y="{}" width="12" height="10" fill="{}" stroke="#555" stroke-width="0.5"/>)",
                           px(x), px(y - 9), item.fill);
    }
    body_ += fmt::format(R"(<text x="{}" y="{}">{}</text>)", px(x + 18), px(y), escape_html(item.label));
    // Approximate text width (7 px per character at 12 px sans-serif).
    x += 32 + 6.5 * static_cast<double>(item.label.size());
  }
  body_ += "</g>";
}

void SvgFigure::add_defs(std::string_view defs) { defs_ += defs; }

std::string SvgFigure::finish() const {
  std::string out = fmt::format(
      R"(<svg id="{0}" class="plot" data-plot="{1}" width="{2}" height="{3}" viewBox="0 0 {2} {3}" role="img" aria-label="{4}">)",
      id_, kind_, width_, height_, escape_html(title_));
  if (!defs_.empty()) out += "<defs>" + defs_ + "</defs>";
  out += fmt::format(R"(<text class="title" x="{}" y="16">{}</text>)", px(plot_left()), escape_html(title_));
  out += body_;
  out += "</svg>";
  return out;
}

}  // namespace snr::report
