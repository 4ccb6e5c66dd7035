#include "sweep/report.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>

#include "common/file_io.h"
#include "sweep/charts.h"
#include "sweep/quantity.h"

namespace snr::sweep {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

size_t count(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A pathfind-like table: bandwidth (a quantity) x parallelism (categorical).
ResultTable table() {
  ResultTable t;
  t.info.kind = "pathfind";
  t.info.parameters = {"device.hbm.bandwidth", "parallelism"};
  t.info.outputs = {{"time_s", ColumnType::kReal, ""}, {"memory_fits", ColumnType::kInteger, ""}};
  t.info.varying_prefix = "time_s.";
  t.info.objective = "time_s";
  t.info.feasible = "memory_fits";
  t.info.grid_text = "kind: pathfind <& grid>\n";
  t.info.grid_path = "grid.yaml";
  t.columns = {"key", "point", "status", "error", "seconds", "device.hbm.bandwidth", "parallelism",
               "time_s", "memory_fits", "time_s.compute", "time_s.memory:hbm"};
  uint64_t point = 0;
  for (const char* bw : {"500GB/s", "1TB/s", "2TB/s", "4TB/s", "16TB/s"}) {
    for (const char* par : {"tp=8,pp=8", "tp=4,pp=16"}) {
      const double hbm = 1e12 / parse_quantity(bw)->base;
      const double compute = std::string(par) == "tp=8,pp=8" ? 1.0 : 1.5;
      t.rows.push_back(std::vector<nlohmann::json>{fmt::format("k{}", point), point, "ok", nullptr, 0.001, bw, par,
                                                   compute + hbm, 1, compute, hbm});
      ++point;
    }
  }
  t.rows.push_back(std::vector<nlohmann::json>{"bad", point, "error", "heads do not <split>", 0.0, "1TB/s", "tp=3",
                                               nullptr, nullptr, nullptr, nullptr});
  return t;
}

TEST(SweepReport, DrawsLinesBarsAndCauses) {
  const SweepReport r = build_report(table());
  std::vector<std::string> ids;
  for (const ReportFigure& f : r.figures) ids.push_back(f.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"fig-01-device.hbm.bandwidth", "fig-02-parallelism",
                                           "fig-03-causes-device.hbm.bandwidth", "fig-04-causes-best"}));
  const std::string& line = r.figures[0].svg;
  EXPECT_THAT(line, HasSubstr("best time_s vs device.hbm.bandwidth, one line per parallelism"));
  EXPECT_EQ(count(line, "<polyline"), 2u);  // one line per parallelism
  EXPECT_EQ(count(line, "<circle"), 10u);
  EXPECT_THAT(line, HasSubstr("device.hbm.bandwidth (B/s)"));
  EXPECT_THAT(line, HasSubstr(">1T<"));  // a log axis with decade ticks (0.5 .. 16 TB/s)
  const std::string& bars = r.figures[1].svg;
  EXPECT_EQ(count(bars, "<rect x="), 2u);
  const std::string& causes = r.figures[2].svg;
  EXPECT_THAT(causes, HasSubstr("memory:hbm"));
  EXPECT_EQ(count(causes, "<rect x="), 5u * 2 + 2);  // two parts per bar, two legend swatches
  EXPECT_THAT(r.html, HasSubstr("<h2>Best points</h2>"));
  EXPECT_THAT(r.html, HasSubstr("Failed points (1 of 1 shown)"));
  EXPECT_THAT(r.html, HasSubstr("heads do not &lt;split&gt;"));
  EXPECT_THAT(r.html, HasSubstr("kind: pathfind &lt;&amp; grid&gt;"));
  EXPECT_THAT(r.html, Not(HasSubstr("<script")));
  EXPECT_EQ(count(r.html, "<svg "), 4u);
  // Coordinates are numbers: no NaN or infinity leaked into the drawing.
  for (const ReportFigure& f : r.figures) {
    EXPECT_THAT(f.svg, Not(HasSubstr("nan")));
    EXPECT_THAT(f.svg, Not(HasSubstr("inf")));
  }
}

TEST(SweepReport, WritesStandaloneSvgFiles) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("sweep_report_test_{}", ::getpid());
  std::filesystem::remove_all(dir);
  write_report(build_report(table()), dir);
  EXPECT_THAT(read_file(dir / "index.html"), HasSubstr("<!DOCTYPE html>"));
  const std::string svg = read_file(dir / "fig-02-parallelism.svg");
  EXPECT_THAT(svg, HasSubstr(R"(<svg xmlns="http://www.w3.org/2000/svg")"));
  EXPECT_THAT(svg, HasSubstr("<style>"));
  std::filesystem::remove_all(dir);
}

TEST(SweepReport, EmptyAndFailedOnlyTablesStillRender) {
  ResultTable t = table();
  t.rows.erase(t.rows.begin(), t.rows.end() - 1);
  const SweepReport r = build_report(t);
  EXPECT_TRUE(r.figures.empty());
  EXPECT_THAT(r.html, HasSubstr("No successful point to plot"));
}

TEST(SweepCharts, ValuesAndAxes) {
  EXPECT_EQ(format_value(0.0123456), "0.0123");
  EXPECT_EQ(format_value(12345), "12.3k");
  EXPECT_TRUE(wants_log_axis(1, 100));
  EXPECT_FALSE(wants_log_axis(1, 10));
  EXPECT_FALSE(wants_log_axis(0, 100));
  LineChart one;
  one.id = "x";
  one.series.push_back({"", {{1, 5}}});  // a single point still gets an axis
  EXPECT_THAT(line_chart_svg(one), HasSubstr("<circle"));
}

}  // namespace
}  // namespace snr::sweep
