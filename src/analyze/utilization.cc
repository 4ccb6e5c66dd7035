#include "analyze/utilization.h"

#include <algorithm>

namespace snr::analyze {

BusyProfile::BusyProfile(std::vector<Interval> intervals, uint64_t instances) : instances_(std::max<uint64_t>(instances, 1)) {
  // Sweep +1 / -1 edges in cycle order; equal cycles collapse to one segment.
  std::vector<std::pair<uint64_t, int64_t>> edges;
  edges.reserve(intervals.size() * 2);
  for (const Interval& i : intervals) {
    if (i.end_cycle <= i.start_cycle) continue;
    edges.emplace_back(i.start_cycle, 1);
    edges.emplace_back(i.end_cycle, -1);
  }
  std::sort(edges.begin(), edges.end());
  int64_t count = 0;
  uint64_t integral = 0;
  for (size_t k = 0; k < edges.size();) {
    const uint64_t cycle = edges[k].first;
    if (!cycle_.empty()) integral += count_.back() * (cycle - cycle_.back());
    while (k < edges.size() && edges[k].first == cycle) count += edges[k++].second;
    cycle_.push_back(cycle);
    count_.push_back(std::min<uint64_t>(static_cast<uint64_t>(count), instances_));
    integral_.push_back(integral);
  }
}

uint64_t BusyProfile::integral_to(uint64_t cycle) const {
  auto it = std::upper_bound(cycle_.begin(), cycle_.end(), cycle);
  if (it == cycle_.begin()) return 0;
  const size_t i = static_cast<size_t>(it - cycle_.begin()) - 1;
  return integral_[i] + count_[i] * (cycle - cycle_[i]);
}

uint64_t BusyProfile::busy_cycles(uint64_t begin, uint64_t end) const {
  if (end <= begin) return 0;
  return integral_to(end) - integral_to(begin);
}

double BusyProfile::fraction(uint64_t begin, uint64_t end) const {
  if (end <= begin) return 0;
  return static_cast<double>(busy_cycles(begin, end)) / static_cast<double>(instances_ * (end - begin));
}

std::vector<std::vector<BusyProfile>> build_busy_profiles(const RunIndex& index, uint64_t mxu_count) {
  const auto& units = utilization_units();
  const uint32_t chips = index.chip_count();
  std::vector<std::vector<std::vector<BusyProfile::Interval>>> intervals(
      chips, std::vector<std::vector<BusyProfile::Interval>>(units.size()));
  for (const auto& busy : index.data().unit_busy) {
    if (busy.chip >= chips) continue;
    for (size_t u = 0; u + 1 < units.size(); ++u) {  // "dma" comes from the DMA table
      if (busy.unit == units[u]) intervals[busy.chip][u].push_back({busy.start_cycle, busy.end_cycle});
    }
  }
  const size_t dma_unit = units.size() - 1;
  for (const auto& dma : index.data().dmas) {
    if (dma.chip < chips) intervals[dma.chip][dma_unit].push_back({dma.issue_cycle, dma.transfer_end_cycle});
  }
  std::vector<std::vector<BusyProfile>> profiles(chips);
  for (uint32_t c = 0; c < chips; ++c) {
    for (size_t u = 0; u < units.size(); ++u) {
      profiles[c].emplace_back(std::move(intervals[c][u]), units[u] == "matrix" ? mxu_count : 1);
    }
  }
  return profiles;
}

std::vector<UtilizationSeries> utilization_series(const std::vector<std::vector<BusyProfile>>& profiles,
                                                  uint64_t total_cycles, uint64_t window_cycles) {
  window_cycles = std::max<uint64_t>(window_cycles, 1);
  const uint64_t windows = (total_cycles + window_cycles - 1) / window_cycles;
  std::vector<UtilizationSeries> out;
  for (uint32_t c = 0; c < profiles.size(); ++c) {
    for (size_t u = 0; u < profiles[c].size(); ++u) {
      UtilizationSeries s;
      s.chip = c;
      s.unit = utilization_units()[u];
      s.window_cycles = window_cycles;
      s.busy_fraction.reserve(windows);
      for (uint64_t w = 0; w < windows; ++w) {
        // The last window is cut at total_cycles so it is not diluted.
        const uint64_t begin = w * window_cycles;
        s.busy_fraction.push_back(profiles[c][u].fraction(begin, std::min(begin + window_cycles, total_cycles)));
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace snr::analyze
