#include "metrics/busy.h"

#include <algorithm>

namespace snr::metrics {

std::string_view busy_unit_name(BusyUnit unit) {
  switch (unit) {
    case BusyUnit::kMatrix: return "matrix";
    case BusyUnit::kVector: return "vector";
    case BusyUnit::kScalar: return "scalar";
    case BusyUnit::kDma: return "dma";
  }
  return "?";
}

BusyUnit busy_unit_of(isa::Unit unit) {
  switch (unit) {
    case isa::Unit::kMatrix: return BusyUnit::kMatrix;
    case isa::Unit::kVector: return BusyUnit::kVector;
    case isa::Unit::kScalar:
    case isa::Unit::kDma:
    case isa::Unit::kSync: return BusyUnit::kScalar;
  }
  return BusyUnit::kScalar;
}

std::optional<BusyUnit> busy_unit_of_name(std::string_view isa_unit_name) {
  for (isa::Unit unit : {isa::Unit::kScalar, isa::Unit::kVector, isa::Unit::kMatrix, isa::Unit::kDma, isa::Unit::kSync}) {
    if (isa::unit_name(unit) == isa_unit_name) return busy_unit_of(unit);
  }
  return std::nullopt;
}

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

void ChipBusyIntervals::add(BusyUnit unit, uint64_t start_cycle, uint64_t end_cycle) {
  if (end_cycle <= start_cycle) return;
  auto& list = intervals_[static_cast<size_t>(unit)];
  // Back-to-back slices (one per scalar instruction) merge, so a long run
  // keeps about one interval per busy stretch, not per instruction; the busy
  // count is the same at every cycle, whichever instance each slice was on.
  if (!list.empty() && list.back().end_cycle == start_cycle) {
    list.back().end_cycle = end_cycle;
    return;
  }
  list.push_back({start_cycle, end_cycle});
}

std::vector<BusyProfile> ChipBusyIntervals::profiles(uint64_t mxu_count) const {
  std::vector<BusyProfile> out;
  out.reserve(kBusyUnitCount);
  for (BusyUnit unit : kBusyUnits) {
    out.emplace_back(intervals_[static_cast<size_t>(unit)], unit == BusyUnit::kMatrix ? mxu_count : 1);
  }
  return out;
}

}  // namespace snr::metrics
