// Small building blocks for the report's inline SVG plots: text escaping,
// deterministic number formatting, "nice" axis ticks, linear scales and a
// figure frame that draws a title, axes with tick labels and a legend. No
// JavaScript is needed to render any figure.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace snr::report {

// Escapes & < > " ' for HTML text and attribute values.
std::string escape_html(std::string_view text);

// 1234567 -> "1,234,567".
std::string format_count(uint64_t value);
// 1234567 -> "1.23M", 0.5 -> "0.5", 0 -> "0"; powers of 1000 up to P.
std::string format_si(double value);
// Fraction as a percentage with one decimal: 0.4567 -> "45.7%".
std::string format_percent(double fraction);

// Round tick positions covering [lo, hi] (steps of 1, 2 or 5 times a power
// of ten), about `target` of them; lo == hi gives one tick.
std::vector<double> nice_ticks(double lo, double hi, int target = 6);
// The smallest round number >= value (for an axis maximum).
double nice_ceiling(double value);

struct LinearScale {
  double domain_lo = 0, domain_hi = 1;
  double range_lo = 0, range_hi = 1;
  [[nodiscard]] double operator()(double value) const;
};

struct LegendItem {
  std::string label;
  std::string fill;     // CSS colour or url(#pattern)
  bool line = false;    // drawn as a line sample instead of a swatch
};

// One figure: an <svg> of width x height pixels whose plot area is inset by
// the margins. Drawing code appends elements to body() in pixel
// coordinates; finish() wraps everything into the <svg> element.
class SvgFigure {
 public:
  struct Margins {
    int left = 70, right = 20, top = 36, bottom = 46;
  };
  SvgFigure(std::string id, std::string kind, int width, int height, Margins margins);

  [[nodiscard]] double plot_left() const { return margins_.left; }
  [[nodiscard]] double plot_right() const { return width_ - margins_.right; }
  [[nodiscard]] double plot_top() const { return margins_.top; }
  [[nodiscard]] double plot_bottom() const { return height_ - margins_.bottom; }
  [[nodiscard]] const std::string& id() const { return id_; }

  void set_title(std::string_view title);
  // Axis line at pixel row `y`, ticks, tick labels and (when not empty) the
  // axis label below; grid lines up to `grid_top` when it is below `y`.
  void x_axis(const LinearScale& scale, const std::vector<double>& ticks, std::string_view label,
              const std::function<std::string(double)>& format, double y, double grid_top);
  // Axis line at the plot's left edge from `top` to `bottom`, ticks, labels
  // and the rotated axis label; horizontal grid lines when `grid`.
  void y_axis(const LinearScale& scale, const std::vector<double>& ticks, std::string_view label,
              const std::function<std::string(double)>& format, double top, double bottom, bool grid);
  // Legend in one row starting at (x, y) (the top margin by default).
  void legend(const std::vector<LegendItem>& items);
  void legend_at(const std::vector<LegendItem>& items, double x, double y);
  // <defs> content (patterns, gradients); ids should start with id().
  void add_defs(std::string_view defs);
  std::string& body() { return body_; }

  [[nodiscard]] std::string finish() const;

 private:
  std::string id_;
  std::string kind_;
  int width_, height_;
  Margins margins_;
  std::string title_;
  std::string defs_;
  std::string body_;
};

// Fixed-point coordinate text (one decimal) so output is byte-stable.
std::string px(double value);

}  // namespace snr::report
