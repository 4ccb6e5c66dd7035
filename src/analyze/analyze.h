// `snr analyze`'s library entry points: every analysis of seed 000 §4.3 and
// §5 over one replay's run data, and the CSV/JSON tables they produce.
// Definitions, units and the table columns: docs/analyzer.md.
#pragma once

#include <cstdint>
#include <string>

#include "analyze/analysis.h"
#include "formats/rundb/run_data.h"

namespace snr::analyze {

struct AnalyzeOptions {
  // Utilization windows and VMEM samples: the window is chosen so a plot of
  // the whole run has about this many points (at least 1 cycle per window).
  uint64_t target_points = 1000;
  // 0: derive from target_points; otherwise the exact window / sample spacing.
  uint64_t window_cycles = 0;
  uint64_t vmem_sample_cycles = 0;
  // Heatmap rows at most (Figure 8b); blocks of vmem.pages_per_block pages
  // are merged when the VMEM has more blocks than this.
  uint64_t max_heatmap_rows = 128;
  // Suggestions kept: the best `top_suggestions` issue-earlier ones by
  // predicted saving, plus every chain suggestion.
  uint64_t top_suggestions = 10;
  // An issue-earlier move must hide at least this share of the DMA's stall
  // (Algorithm 2 proper is 1.0: the whole stall).
  double min_saving_fraction = 0.5;
  // The chip whose stream suggestions are made on (one text for all chips);
  // the first recorded chip when a subset recording left this one out.
  uint32_t suggestion_chip = 0;
};

// Throws snr::Error when the run data contradicts itself (a DMA whose ISSUE
// step is missing, an unparsable hardware config).
Analysis analyze(const rundb::RunData& data, const AnalyzeOptions& options);

// Writes <dir>/<table>.csv and <dir>/<table>.json for every table of the
// analysis (docs/analyzer.md lists them and their columns), creating dir.
void write_tables(const Analysis& analysis, const std::string& dir);

std::string_view suggestion_kind_name(Suggestion::Kind kind);

}  // namespace snr::analyze
