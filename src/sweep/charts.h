// The report's two figure types, drawn as inline SVG with the axes, ticks
// and legends of src/report/svg.h: lines of a value against a numeric
// parameter (one line per series, linear or log axes) and horizontal bars,
// stacked when each bar has several parts.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace snr::sweep {

struct Series {
  std::string label;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in x order
};

struct LineChart {
  std::string id;
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;
  bool log_y = false;
  std::vector<Series> series;
};

struct Bar {
  std::string label;
  std::vector<double> parts;  // one value, or one per BarChart::part_names
};

struct BarChart {
  std::string id;
  std::string title;
  std::string value_label;
  std::vector<std::string> part_names;  // legend of a stacked chart; empty for plain bars
  std::vector<Bar> bars;
};

std::string line_chart_svg(const LineChart& chart);
std::string bar_chart_svg(const BarChart& chart);

// Whether values spanning [lo, hi] read better on a log axis.
bool wants_log_axis(double lo, double hi);
// Tick and table text: SI prefixes from 1000 up, three significant digits below.
std::string format_value(double value);
// An inline figure as a file of its own: the SVG namespace and the styles
// the page would otherwise give it.
std::string standalone_svg(std::string_view svg);
// The CSS the figures use.
std::string_view figure_css();

}  // namespace snr::sweep
