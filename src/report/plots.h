// The report's figures, each an inline <svg> with title, axes, units, tick
// labels and legend, drawn from the analyzer's result model:
//   - the DMA timeline of seed 000 Figures 4, 5 and 10,
//   - unit utilization over time with DMA completions (Figure 7),
//   - VMEM unused and largest contiguous unused share (Figure 8a),
//   - the VMEM blocks x time heatmap (Figure 8b),
//   - stall bars by op and by link.
// Large inputs are reduced to what a screen can show (PlotLimits) and the
// figure says so, so a report stays a few MB and renders quickly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/analysis.h"

namespace snr::report {

struct PlotLimits {
  size_t max_dma_rows = 400;        // DMAs with the largest stalls are kept
  size_t max_series_points = 600;   // utilization / VMEM samples per line
  size_t max_heatmap_columns = 160;
  size_t max_heatmap_rows = 64;
  size_t max_bars = 20;             // the rest is summed into "other"
  size_t max_completion_marks = 400;
};

struct Figure {
  std::string svg;
  std::string note;  // what was reduced, empty when everything is shown
};

Figure dma_timeline_figure(const analyze::Analysis& analysis, const PlotLimits& limits);
// One panel per unit of `chip`, DMA completions of that chip marked on the
// matrix unit's panel.
Figure utilization_figure(const analyze::Analysis& analysis, uint32_t chip, const PlotLimits& limits);
Figure vmem_usage_figure(const analyze::VmemUsage& vmem, const PlotLimits& limits);
Figure vmem_heatmap_figure(const analyze::VmemUsage& vmem, const PlotLimits& limits);
Figure stall_bars_figure(const std::vector<analyze::StallGroup>& groups, std::string_view id,
                         std::string_view title, std::string_view key_name, const PlotLimits& limits);

// Reduces `values` to at most `max_points` by averaging equal groups of
// consecutive values; returns the group size used (1 = unchanged).
size_t downsample_mean(std::vector<double>& values, size_t max_points);

}  // namespace snr::report
