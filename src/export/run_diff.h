// Compares two run databases (typically one snapshot replayed on two
// hardware configs): totals, time per op, and per-DMA stalls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/rundb/reader.h"

namespace snr::exporter {

struct DiffRow {
  std::string name;
  int64_t a = 0;
  int64_t b = 0;
  [[nodiscard]] int64_t delta() const { return b - a; }
};

struct RunDiff {
  std::string a_source, b_source, a_hw, b_hw;
  std::vector<DiffRow> totals;
  std::vector<DiffRow> op_cycles;   // per op, summed over chips
  std::vector<DiffRow> dma_stalls;  // per chip's n-th DMA: its charge of its WAIT's stall
  std::vector<std::string> notes;   // e.g. different DMA counts
};

RunDiff diff_runs(rundb::RunDbReader& a, rundb::RunDbReader& b);
std::string render_diff_table(const RunDiff& diff);
std::string render_diff_json(const RunDiff& diff);

}  // namespace snr::exporter
