// The analysis report: one self-contained index.html (inline CSS, SVG and a
// few lines of JavaScript; nothing is fetched) with the summary, the per-op
// table with per-op DMA drill-down (seed 000 Figure 2a), every figure of
// plots.h and the suggestion list with predicted and verified savings.
// Output is deterministic: the same Analysis gives the same bytes.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "analyze/analysis.h"
#include "report/plots.h"

namespace snr::report {

struct ReportOptions {
  std::string title = "snr analysis";
  PlotLimits limits;
  size_t max_dmas_per_op = 100;  // drill-down rows per op; the rest are counted
  // Companion files to link from the report: (label, path relative to index.html).
  std::vector<std::pair<std::string, std::string>> files;
};

std::string render_report_html(const analyze::Analysis& analysis, const ReportOptions& options);

// Writes `directory`/index.html (all-or-nothing) and returns its path.
std::filesystem::path write_report(const analyze::Analysis& analysis, const std::filesystem::path& directory,
                                   const ReportOptions& options);

}  // namespace snr::report
