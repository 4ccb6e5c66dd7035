#include "report/plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

#include "report/svg.h"

namespace snr::report {

namespace {

// The paper's colours: base latency green, transfer purple, slack gray
// cross-hatch; the WAIT stall in red so it stands out from both.
constexpr const char* kBaseColor = "#3a9b4a";
constexpr const char* kQueueColor = "#c9b3e6";
constexpr const char* kTransferColor = "#7d45b8";
constexpr const char* kWaitColor = "#d62728";
constexpr const char* kBacktailColor = "#8c8c8c";
constexpr const char* kCompletionColor = "#e08a00";
constexpr const char* kUnusedColor = "#1f77b4";
constexpr const char* kContiguousColor = "#ff7f0e";

std::string hatch_defs(const std::string& id) {
  return fmt::format(
      R"(<pattern id="{}-slack" patternUnits="userSpaceOnUse" width="6" height="6">)"
      R"(<rect width="6" height="6" fill="#e6e6e6"/><path d="M0,0 L6,6 M6,0 L0,6" stroke="#888" stroke-width="0.8"/></pattern>)",
      id);
}

std::string cycles_label(double value) { return format_si(value); }
std::string percent_label(double value) { return fmt::format("{:.0f}%", value); }

std::string rect(double x0, double x1, double y, double h, std::string_view fill) {
  return fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>)", px(x0), px(y),
                     px(std::max(0.5, x1 - x0)), px(h), fill);
}

// Row order of the DMA timeline: per chip in issue order, except that the
// members of a chain are drawn together (head first) where the chain's
// first member would appear, so the chain reads as one block.
std::vector<const analyze::DmaStall*> timeline_rows(const std::vector<const analyze::DmaStall*>& shown) {
  std::vector<const analyze::DmaStall*> by_issue = shown;
  std::stable_sort(by_issue.begin(), by_issue.end(), [](const auto* a, const auto* b) {
    return std::tie(a->chip, a->issue_cycle, a->dma_id) < std::tie(b->chip, b->issue_cycle, b->dma_id);
  });
  std::map<uint32_t, std::vector<const analyze::DmaStall*>> chain_members;
  for (const auto* dma : by_issue) {
    if (dma->chain) chain_members[*dma->chain].push_back(dma);
  }
  for (auto& [chain, members] : chain_members) {
    std::stable_sort(members.begin(), members.end(),
                     [](const auto* a, const auto* b) { return a->chain_depth < b->chain_depth; });
  }
  std::vector<const analyze::DmaStall*> rows;
  std::set<uint32_t> placed;
  for (const auto* dma : by_issue) {
    if (!dma->chain) {
      rows.push_back(dma);
    } else if (placed.insert(*dma->chain).second) {
      for (const auto* member : chain_members[*dma->chain]) rows.push_back(member);
    }
  }
  return rows;
}

}  // namespace

size_t downsample_mean(std::vector<double>& values, size_t max_points) {
  if (max_points == 0 || values.size() <= max_points) return 1;
  const size_t group = (values.size() + max_points - 1) / max_points;
  std::vector<double> out;
  out.reserve(values.size() / group + 1);
  for (size_t i = 0; i < values.size(); i += group) {
    const size_t end = std::min(values.size(), i + group);
    out.push_back(std::accumulate(values.begin() + static_cast<std::ptrdiff_t>(i),
                                  values.begin() + static_cast<std::ptrdiff_t>(end), 0.0) /
                  static_cast<double>(end - i));
  }
  values = std::move(out);
  return group;
}

Figure dma_timeline_figure(const analyze::Analysis& analysis, const PlotLimits& limits) {
  Figure figure;
  std::vector<const analyze::DmaStall*> shown;
  shown.reserve(analysis.dmas.size());
  for (const auto& dma : analysis.dmas) shown.push_back(&dma);
  if (shown.size() > limits.max_dma_rows && limits.max_dma_rows > 0) {
    // Like the paper's figures, show one contiguous stretch of one chip's
    // DMAs: the run of consecutive DMAs (in issue order) with the most WAIT
    // stall, so rows and time axis both stay readable.
    std::stable_sort(shown.begin(), shown.end(), [](const auto* a, const auto* b) {
      return std::tie(a->chip, a->issue_cycle, a->dma_id) < std::tie(b->chip, b->issue_cycle, b->dma_id);
    });
    const size_t n = limits.max_dma_rows;
    size_t best_begin = 0;
    uint64_t best_stall = 0, window_stall = 0;
    for (size_t i = 0; i < shown.size(); ++i) {
      window_stall += shown[i]->stall_cycles();
      if (i >= n) window_stall -= shown[i - n]->stall_cycles();
      const size_t begin = i + 1 >= n ? i + 1 - n : 0;
      // Only windows of a single chip count.
      if (i + 1 >= n && shown[begin]->chip == shown[i]->chip && window_stall > best_stall) {
        best_stall = window_stall;
        best_begin = begin;
      }
    }
    std::vector<const analyze::DmaStall*> stretch(shown.begin() + static_cast<std::ptrdiff_t>(best_begin),
                                                  shown.begin() + static_cast<std::ptrdiff_t>(std::min(shown.size(), best_begin + n)));
    figure.note = fmt::format(
        "showing {} consecutive DMAs of chip {} (cycles {} to {}), the stretch with the most WAIT stall; {} DMAs in all "
        "(every DMA is in tables/dmas.csv)",
        stretch.size(), stretch.front()->chip, stretch.front()->issue_cycle, stretch.back()->issue_cycle,
        analysis.dmas.size());
    shown = std::move(stretch);
  }
  const std::vector<const analyze::DmaStall*> rows = timeline_rows(shown);

  double lo = 0, hi = 1;
  if (!rows.empty()) {
    lo = static_cast<double>(rows.front()->issue_cycle);
    hi = lo + 1;
  }
  for (const auto* dma : rows) {
    lo = std::min(lo, static_cast<double>(std::min(dma->issue_cycle, dma->earliest_issue_cycle)));
    hi = std::max(hi, static_cast<double>(std::max(dma->transfer_end_cycle, dma->wait_end_cycle.value_or(0))));
  }
  const double row_height = rows.size() <= 24 ? 18 : rows.size() <= 60 ? 12 : rows.size() <= 150 ? 7 : 4;
  const bool labels = row_height >= 8;
  SvgFigure::Margins margins{.left = labels ? 230 : 110, .right = 20, .top = 44, .bottom = 50};
  const int height = margins.top + margins.bottom + static_cast<int>(std::ceil(row_height * static_cast<double>(std::max<size_t>(rows.size(), 1))));
  SvgFigure svg("fig-dma-timeline", "dma-timeline", 1200, height, margins);
  svg.set_title("DMA timeline: base latency, transfer, slack, WAIT stall and backtail per DMA");
  svg.add_defs(hatch_defs(svg.id()));
  const LinearScale x{lo, hi, svg.plot_left(), svg.plot_right()};
  std::string& body = svg.body();

  // Chip separators and chain brackets.
  uint32_t chip = rows.empty() ? 0 : rows.front()->chip + 1;
  std::optional<uint32_t> open_chain;
  double chain_top = 0;
  int chain_shade = 0;
  auto close_chain = [&](double y) {
    if (!open_chain) return;
    body += fmt::format(R"(<g class="chain"><rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>)"
                        R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#b5651d" stroke-width="3"/>)"
                        R"(<text x="{}" y="{}" fill="#b5651d">chain {}</text></g>)",
                        px(svg.plot_left()), px(chain_top), px(svg.plot_right() - svg.plot_left()), px(y - chain_top),
                        chain_shade++ % 2 == 0 ? "#fdf1e4" : "#f6e6d3", px(svg.plot_left() - 4), px(chain_top),
                        px(svg.plot_left() - 4), px(y), px(svg.plot_left() + 4), px(std::min(y - 1, chain_top + 10)),
                        *open_chain);
    open_chain.reset();
  };
  std::string rows_svg;
  for (size_t i = 0; i < rows.size(); ++i) {
    const analyze::DmaStall& dma = *rows[i];
    const double top = svg.plot_top() + row_height * static_cast<double>(i);
    if (open_chain != dma.chain) {
      close_chain(top);
      if (dma.chain) {
        open_chain = dma.chain;
        chain_top = top;
      }
    }
    if (dma.chip != chip) {
      chip = dma.chip;
      body += fmt::format(R"(<line class="sep" x1="0" y1="{0}" x2="{1}" y2="{0}"/><text x="28" y="{2}" font-weight="bold">chip {3}</text>)",
                          px(top), px(svg.plot_right()), px(top + 11), chip);
    }
    const double bar_y = top + row_height * 0.15;
    const double bar_h = row_height * 0.6;
    const double mid = top + row_height * 0.45;
    rows_svg += fmt::format(R"(<g><title>DMA {} (chip {}, {}, {}, {} bytes {} -&gt; {}): base stall {} cycles, transfer stall {} cycles, slack {} cycles</title>)",
                            dma.dma_id, dma.chip, escape_html(dma.op), escape_html(dma.link), dma.bytes,
                            escape_html(dma.src_space), escape_html(dma.dst_space), dma.base_stall_cycles,
                            dma.transfer_stall_cycles, dma.slack_cycles);
    if (dma.earliest_issue_cycle < dma.issue_cycle) {
      rows_svg += fmt::format(R"(<path d="M{0},{1}H{2}M{0},{3}V{4}" stroke="{5}" stroke-width="1" fill="none"/>)",
                              px(x(static_cast<double>(dma.earliest_issue_cycle))), px(mid),
                              px(x(static_cast<double>(dma.issue_cycle))), px(mid - bar_h / 2), px(mid + bar_h / 2),
                              kBacktailColor);
    }
    rows_svg += rect(x(static_cast<double>(dma.issue_cycle)), x(static_cast<double>(dma.base_done_cycle)), bar_y, bar_h, kBaseColor);
    if (dma.transfer_start_cycle > dma.base_done_cycle) {
      rows_svg += rect(x(static_cast<double>(dma.base_done_cycle)), x(static_cast<double>(dma.transfer_start_cycle)), bar_y,
                       bar_h, kQueueColor);
    }
    rows_svg += rect(x(static_cast<double>(dma.transfer_start_cycle)), x(static_cast<double>(dma.transfer_end_cycle)),
                     bar_y, bar_h, kTransferColor);
    if (dma.wait_start_cycle && *dma.wait_start_cycle > dma.transfer_end_cycle) {
      rows_svg += rect(x(static_cast<double>(dma.transfer_end_cycle)), x(static_cast<double>(*dma.wait_start_cycle)),
                       bar_y, bar_h, fmt::format("url(#{}-slack)", svg.id()));
    }
    if (dma.wait_start_cycle && dma.wait_end_cycle) {
      const double ws = x(static_cast<double>(*dma.wait_start_cycle));
      const double we = x(static_cast<double>(*dma.wait_end_cycle));
      const double wy = bar_y + bar_h + std::max(0.5, row_height * 0.1);
      rows_svg += fmt::format(R"(<path d="M{0},{1}V{2}H{3}" stroke="{4}" stroke-width="{5}" fill="none"/>)", px(ws),
                              px(bar_y), px(wy), px(std::max(we, ws + 0.5)), kWaitColor, row_height >= 8 ? "1.5" : "1");
    }
    if (labels) {
      rows_svg += fmt::format(R"(<text x="{}" y="{}" text-anchor="end" font-size="{}">#{} {}</text>)",
                              px(svg.plot_left() - 12), px(top + row_height * 0.75), row_height >= 18 ? 11 : 9,
                              dma.dma_id, escape_html(dma.link));
    }
    rows_svg += "</g>";
  }
  close_chain(svg.plot_top() + row_height * static_cast<double>(rows.size()));
  body += rows_svg;
  svg.x_axis(x, nice_ticks(lo, hi, 10), "cycle (replayed chip clock)", cycles_label, svg.plot_bottom(), svg.plot_top());
  body += fmt::format(R"~(<text class="label" x="14" y="{0}" text-anchor="middle" transform="rotate(-90 14 {0})">DMAs</text>)~",
                      px((svg.plot_top() + svg.plot_bottom()) / 2));
  svg.legend({{"base latency", kBaseColor},
              {"queued", kQueueColor},
              {"transfer", kTransferColor},
              {"slack", fmt::format("url(#{}-slack)", svg.id())},
              {"WAIT stall", kWaitColor, true},
              {"backtail: earliest issue (relaxed deps)", kBacktailColor, true},
              {"dependent chain", "#fdf1e4"}});
  if (rows.empty()) {
    body += fmt::format(R"(<text x="{}" y="{}">no DMAs in this window</text>)", px(svg.plot_left() + 10), px(svg.plot_top() + 12));
  }
  figure.svg = svg.finish();
  return figure;
}

Figure utilization_figure(const analyze::Analysis& analysis, uint32_t chip, const PlotLimits& limits) {
  Figure figure;
  static const std::vector<std::string> kUnitOrder = {"matrix", "vector", "scalar", "dma"};
  std::vector<const analyze::UtilizationSeries*> series;
  for (const std::string& unit : kUnitOrder) {
    for (const auto& s : analysis.utilization) {
      if (s.chip == chip && s.unit == unit) series.push_back(&s);
    }
  }
  for (const auto& s : analysis.utilization) {
    if (s.chip == chip && std::find(kUnitOrder.begin(), kUnitOrder.end(), s.unit) == kUnitOrder.end()) {
      series.push_back(&s);
    }
  }
  double hi = 1;
  for (const auto* s : series) {
    hi = std::max(hi, static_cast<double>(s->end_cycle));
  }
  constexpr double kPanel = 80, kGap = 34;
  const SvgFigure::Margins margins{.left = 70, .right = 20, .top = 44, .bottom = 50};
  const int height = margins.top + margins.bottom +
                     static_cast<int>(kPanel * static_cast<double>(std::max<size_t>(series.size(), 1)) +
                                      kGap * static_cast<double>(series.size() > 0 ? series.size() - 1 : 0));
  SvgFigure svg(fmt::format("fig-utilization-chip{}", chip), "utilization", 1200, height, margins);
  svg.set_title(fmt::format("Unit utilization over time, chip {} (busy share per window)", chip));
  const LinearScale x{0, hi, svg.plot_left(), svg.plot_right()};
  const std::vector<double> x_ticks = nice_ticks(0, hi, 10);
  std::string& body = svg.body();
  std::vector<std::string> notes;
  for (size_t i = 0; i < series.size(); ++i) {
    const analyze::UtilizationSeries& s = *series[i];
    const double top = svg.plot_top() + static_cast<double>(i) * (kPanel + kGap);
    const double bottom = top + kPanel;
    const LinearScale y{0, 100, bottom, top};
    std::vector<double> values = s.busy_fraction;
    const size_t group = downsample_mean(values, limits.max_series_points);
    if (group > 1) notes.push_back(fmt::format("{}: windows of {} cycles averaged in groups of {}", s.unit, s.window_cycles, group));
    const double step = static_cast<double>(s.window_cycles * group);
    std::string path = fmt::format("M{},{}", px(x(0)), px(bottom));
    for (size_t w = 0; w < values.size(); ++w) {
      const double yv = y(100.0 * std::clamp(values[w], 0.0, 1.0));
      path += fmt::format("V{}H{}", px(yv), px(x(std::min(hi, step * static_cast<double>(w + 1)))));
    }
    path += fmt::format("V{}Z", px(bottom));
    body += fmt::format(R"(<path d="{}" fill="#9ecae1" stroke="#3182bd" stroke-width="0.8"/>)", path);
    svg.y_axis(y, {0, 50, 100}, fmt::format("{} %", s.unit), percent_label, top, bottom, true);
    svg.x_axis(x, x_ticks, i + 1 == series.size() ? "cycle (replayed chip clock)" : "", cycles_label, bottom, top);
    if (s.unit == "matrix") {
      // DMA completions (Figure 7b): where data arrived for this chip.
      std::set<int> marked_pixels;
      size_t marks = 0;
      for (const auto& dma : analysis.dmas) {
        if (dma.chip != chip) continue;
        const double cx = x(static_cast<double>(dma.transfer_end_cycle));
        if (!marked_pixels.insert(static_cast<int>(cx)).second || marks >= limits.max_completion_marks) continue;
        ++marks;
        body += fmt::format(R"(<path d="M{0},{1}V{2}" stroke="{3}" stroke-width="1"><title>DMA {4} completes at cycle {5}</title></path>)",
                            px(cx), px(top), px(bottom), kCompletionColor, dma.dma_id, dma.transfer_end_cycle);
      }
    }
  }
  if (series.empty()) {
    body += fmt::format(R"(<text x="{}" y="{}">no utilization data for chip {}</text>)", px(svg.plot_left() + 10),
                        px(svg.plot_top() + 20), chip);
  }
  svg.legend({{"busy share", "#9ecae1"}, {"DMA completion (matrix panel)", kCompletionColor, true}});
  figure.svg = svg.finish();
  for (size_t i = 0; i < notes.size(); ++i) figure.note += (i ? "; " : "") + notes[i];
  return figure;
}

Figure vmem_usage_figure(const analyze::VmemUsage& vmem, const PlotLimits& limits) {
  Figure figure;
  SvgFigure svg(fmt::format("fig-vmem-usage-chip{}", vmem.chip), "vmem-usage", 1200, 300, {});
  svg.set_title(fmt::format("VMEM unused and largest contiguous unused share, chip {} ({} pages of {} bytes)",
                            vmem.chip, vmem.pages, vmem.page_bytes));
  std::vector<double> cycles(vmem.sample_cycle.begin(), vmem.sample_cycle.end());
  std::vector<double> unused = vmem.unused_fraction;
  std::vector<double> largest = vmem.largest_unused_fraction;
  const size_t n = std::min({cycles.size(), unused.size(), largest.size()});
  cycles.resize(n);
  unused.resize(n);
  largest.resize(n);
  const size_t group = downsample_mean(unused, limits.max_series_points);
  downsample_mean(largest, limits.max_series_points);
  downsample_mean(cycles, limits.max_series_points);
  if (group > 1) figure.note = fmt::format("{} samples averaged in groups of {}", n, group);
  const double lo = cycles.empty() ? 0 : cycles.front();
  const double hi = cycles.empty() ? 1 : std::max(cycles.back(), lo + 1);
  const LinearScale x{lo, hi, svg.plot_left(), svg.plot_right()};
  const LinearScale y{0, 100, svg.plot_bottom(), svg.plot_top()};
  std::string& body = svg.body();
  auto line = [&](const std::vector<double>& values, const char* color) {
    std::string d;
    for (size_t i = 0; i < values.size(); ++i) {
      d += fmt::format("{}{},{}", i == 0 ? "M" : "L", px(x(cycles[i])), px(y(100.0 * values[i])));
    }
    if (!d.empty()) body += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="1.5"/>)", d, color);
  };
  svg.y_axis(y, {0, 20, 40, 60, 80, 100}, "share of VMEM pages", percent_label, svg.plot_top(), svg.plot_bottom(), true);
  svg.x_axis(x, nice_ticks(lo, hi, 10), "cycle (replayed chip clock)", cycles_label, svg.plot_bottom(), svg.plot_top());
  line(unused, kUnusedColor);
  line(largest, kContiguousColor);
  auto median = [&](double fraction, const char* color, const char* what) {
    const double my = y(100.0 * fraction);
    body += fmt::format(R"(<line x1="{0}" y1="{2}" x2="{1}" y2="{2}" stroke="{3}" stroke-dasharray="6 4"/>)"
                        R"(<text x="{4}" y="{5}" text-anchor="end" fill="{3}">median {6} {7}</text>)",
                        px(svg.plot_left()), px(svg.plot_right()), px(my), color, px(svg.plot_right() - 4), px(my - 4),
                        what, format_percent(fraction));
  };
  median(vmem.median_unused_fraction, kUnusedColor, "unused");
  median(vmem.median_largest_unused_fraction, kContiguousColor, "largest contiguous");
  svg.legend({{"unused", kUnusedColor, true},
              {"largest contiguous unused", kContiguousColor, true},
              {"median (dashed)", "#777", true}});
  figure.svg = svg.finish();
  return figure;
}

namespace {

// Sequential light-to-dark blue ramp for the heatmap, ten steps.
constexpr std::array<const char*, 10> kRamp = {"#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6",
                                               "#4292c6", "#2171b5", "#08519c", "#08306b", "#041c40"};

}  // namespace

Figure vmem_heatmap_figure(const analyze::VmemUsage& vmem, const PlotLimits& limits) {
  Figure figure;
  const size_t blocks = vmem.used_pages_per_block.size();
  const size_t samples = blocks == 0 ? 0 : vmem.used_pages_per_block.front().size();
  const size_t row_group = std::max<size_t>(1, (blocks + limits.max_heatmap_rows - 1) / std::max<size_t>(limits.max_heatmap_rows, 1));
  const size_t col_group = std::max<size_t>(1, (samples + limits.max_heatmap_columns - 1) / std::max<size_t>(limits.max_heatmap_columns, 1));
  const size_t rows = (blocks + row_group - 1) / row_group;
  const size_t cols = (samples + col_group - 1) / col_group;
  if (row_group > 1 || col_group > 1) {
    figure.note = fmt::format("{} blocks x {} samples shown as {} x {} cells (mean of each cell)", blocks, samples, rows, cols);
  }
  const double row_height = rows == 0 ? 10 : std::clamp(320.0 / static_cast<double>(rows), 3.0, 16.0);
  const SvgFigure::Margins margins{.left = 70, .right = 110, .top = 44, .bottom = 50};
  const int height = margins.top + margins.bottom + static_cast<int>(std::ceil(row_height * static_cast<double>(std::max<size_t>(rows, 1))));
  SvgFigure svg(fmt::format("fig-vmem-heatmap-chip{}", vmem.chip), "vmem-heatmap", 1200, height, margins);
  svg.set_title(fmt::format("VMEM used pages per block over time, chip {} ({} pages per block)", vmem.chip,
                            vmem.pages_per_block));
  const double lo = vmem.sample_cycle.empty() ? 0 : static_cast<double>(vmem.sample_cycle.front());
  const double last = vmem.sample_cycle.empty() ? 1 : static_cast<double>(vmem.sample_cycle.back());
  const double hi = std::max(lo + 1, last + static_cast<double>(vmem.sample_cycles));
  const LinearScale x{lo, hi, svg.plot_left(), svg.plot_right()};
  const double cell_width = (svg.plot_right() - svg.plot_left()) / static_cast<double>(std::max<size_t>(cols, 1));
  const double per_cell_pages = static_cast<double>(std::max<uint64_t>(vmem.pages_per_block, 1) * row_group);
  std::string& body = svg.body();
  for (size_t r = 0; r < rows; ++r) {
    // Cells of equal colour merge into one rect: long quiet stretches are one element.
    int run_level = -1;
    size_t run_start = 0;
    auto flush = [&](size_t end) {
      if (run_level > 0) {
        body += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>)",
                            px(svg.plot_left() + cell_width * static_cast<double>(run_start)),
                            px(svg.plot_top() + row_height * static_cast<double>(r)),
                            px(cell_width * static_cast<double>(end - run_start)), px(row_height), kRamp[static_cast<size_t>(run_level)]);
      }
    };
    for (size_t c = 0; c < cols; ++c) {
      double used = 0;
      size_t cells = 0;
      for (size_t b = r * row_group; b < std::min(blocks, (r + 1) * row_group); ++b) {
        const auto& row = vmem.used_pages_per_block[b];
        for (size_t s = c * col_group; s < std::min(row.size(), (c + 1) * col_group); ++s) {
          used += row[s];
          ++cells;
        }
      }
      const double share = cells == 0 ? 0 : used * static_cast<double>(row_group) / static_cast<double>(cells) / per_cell_pages;
      const int level = share <= 0 ? 0 : std::clamp(static_cast<int>(std::ceil(share * 9.0)), 1, 9);
      if (level != run_level) {
        flush(c);
        run_level = level;
        run_start = c;
      }
    }
    flush(cols);
  }
  // Frame, block axis and time axis.
  body += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#999"/>)", px(svg.plot_left()),
                      px(svg.plot_top()), px(svg.plot_right() - svg.plot_left()), px(svg.plot_bottom() - svg.plot_top()));
  const LinearScale y{0, static_cast<double>(blocks), svg.plot_top(), svg.plot_bottom()};
  std::vector<double> y_ticks = nice_ticks(0, static_cast<double>(blocks), 6);
  svg.y_axis(y, y_ticks, "VMEM block (top = block 0)", [](double v) { return fmt::format("{:.0f}", v); },
             svg.plot_top(), svg.plot_bottom(), false);
  svg.x_axis(x, nice_ticks(lo, hi, 10), "cycle (replayed chip clock)", cycles_label, svg.plot_bottom(), svg.plot_bottom());
  // Colour scale legend: ramp with its page counts.
  const double lx = svg.plot_right() + 30;
  const double scale_top = svg.plot_top();
  const double step_h = std::max(8.0, (svg.plot_bottom() - svg.plot_top()) / 10.0);
  for (size_t i = 0; i < kRamp.size(); ++i) {
    body += fmt::format(R"(<rect x="{}" y="{}" width="14" height="{}" fill="{}" stroke="#999" stroke-width="0.3"/>)",
                        px(lx), px(scale_top + step_h * static_cast<double>(9 - i)), px(step_h), kRamp[i]);
  }
  const double full = static_cast<double>(vmem.pages_per_block);
  body += fmt::format(R"(<g class="legend"><text x="{0}" y="{1}">{2:.0f}</text><text x="{0}" y="{3}">{4:.0f}</text><text x="{0}" y="{5}">0</text>)"
                      R"(<text x="{6}" y="{7}" font-size="10">used pages</text></g>)",
                      px(lx + 18), px(scale_top + 9), full, px(scale_top + step_h * 5 + 4), full / 2,
                      px(scale_top + step_h * 10), px(lx - 8), px(scale_top - 6));
  figure.svg = svg.finish();
  return figure;
}

Figure stall_bars_figure(const std::vector<analyze::StallGroup>& groups, std::string_view id, std::string_view title,
                         std::string_view key_name, const PlotLimits& limits) {
  Figure figure;
  std::vector<analyze::StallGroup> bars = groups;
  std::stable_sort(bars.begin(), bars.end(), [](const auto& a, const auto& b) {
    return a.base_stall_cycles + a.transfer_stall_cycles > b.base_stall_cycles + b.transfer_stall_cycles;
  });
  if (bars.size() > limits.max_bars && limits.max_bars > 1) {
    analyze::StallGroup other{.key = fmt::format("other ({})", bars.size() - (limits.max_bars - 1))};
    for (size_t i = limits.max_bars - 1; i < bars.size(); ++i) {
      other.dmas += bars[i].dmas;
      other.bytes += bars[i].bytes;
      other.base_stall_cycles += bars[i].base_stall_cycles;
      other.transfer_stall_cycles += bars[i].transfer_stall_cycles;
      other.slack_cycles += bars[i].slack_cycles;
    }
    figure.note = fmt::format("the {} {}s with the largest stalls shown; the rest summed", limits.max_bars - 1, key_name);
    bars.resize(limits.max_bars - 1);
    bars.push_back(other);
  }
  constexpr double kRow = 22;
  const SvgFigure::Margins margins{.left = 230, .right = 30, .top = 44, .bottom = 50};
  const int height = margins.top + margins.bottom + static_cast<int>(kRow * static_cast<double>(std::max<size_t>(bars.size(), 1)));
  SvgFigure svg(std::string(id), "stall-bars", 590, height, margins);
  svg.set_title(title);
  svg.add_defs(hatch_defs(svg.id()));
  double hi = 1;
  for (const auto& b : bars) {
    hi = std::max(hi, static_cast<double>(std::max(b.base_stall_cycles + b.transfer_stall_cycles, b.slack_cycles)));
  }
  hi = nice_ceiling(hi);
  const LinearScale x{0, hi, svg.plot_left(), svg.plot_right()};
  svg.x_axis(x, nice_ticks(0, hi, 5), "cycles", cycles_label, svg.plot_bottom(), svg.plot_top());
  std::string& body = svg.body();
  for (size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    const double top = svg.plot_top() + kRow * static_cast<double>(i);
    const double base_end = x(static_cast<double>(b.base_stall_cycles));
    const double stall_end = x(static_cast<double>(b.base_stall_cycles + b.transfer_stall_cycles));
    std::string key = b.key.size() > 32 ? b.key.substr(0, 31) + "…" : b.key;
    body += fmt::format(R"(<g><title>{}: {} DMAs, {} bytes, base stall {} cycles, transfer stall {} cycles, slack {} cycles</title>)"
                        R"(<text x="{}" y="{}" text-anchor="end">{}</text>)",
                        escape_html(b.key), b.dmas, b.bytes, b.base_stall_cycles, b.transfer_stall_cycles, b.slack_cycles,
                        px(svg.plot_left() - 6), px(top + 14), escape_html(key));
    if (b.base_stall_cycles > 0) body += rect(svg.plot_left(), base_end, top + 3, 11, kBaseColor);
    if (b.transfer_stall_cycles > 0) body += rect(base_end, stall_end, top + 3, 11, kTransferColor);
    if (b.slack_cycles > 0) {
      body += rect(svg.plot_left(), x(static_cast<double>(b.slack_cycles)), top + 15, 5,
                   fmt::format("url(#{}-slack)", svg.id()));
    }
    body += "</g>";
  }
  body += fmt::format(R"~(<text class="label" x="14" y="{0}" text-anchor="middle" transform="rotate(-90 14 {0})">{1}</text>)~",
                      px((svg.plot_top() + svg.plot_bottom()) / 2), escape_html(key_name));
  svg.legend_at({{"base-latency stall", kBaseColor}, {"transfer stall", kTransferColor}, {"slack", fmt::format("url(#{}-slack)", svg.id())}},
                svg.plot_left() - 160, 32);
  if (bars.empty()) {
    body += fmt::format(R"(<text x="{}" y="{}">no DMAs</text>)", px(svg.plot_left() + 10), px(svg.plot_top() + 14));
  }
  figure.svg = svg.finish();
  return figure;
}

}  // namespace snr::report
