// A set of byte addresses kept as disjoint, non-adjacent half-open
// intervals: the recorder's "written memory" and "already saved memory".
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace snr::record {

struct Interval {
  uint64_t begin = 0;
  uint64_t end = 0;  // exclusive
  friend bool operator==(const Interval&, const Interval&) = default;
};

class IntervalSet {
 public:
  // Adds [begin, end); merges with overlapping and adjacent intervals.
  void add(uint64_t begin, uint64_t end);
  // The parts of [begin, end) not in the set, in address order.
  [[nodiscard]] std::vector<Interval> missing(uint64_t begin, uint64_t end) const;
  // Same, appended to `out` (no allocation once `out` has grown).
  void append_missing(uint64_t begin, uint64_t end, std::vector<Interval>& out) const;
  [[nodiscard]] bool contains(uint64_t begin, uint64_t end) const { return missing(begin, end).empty(); }
  [[nodiscard]] std::vector<Interval> intervals() const;
  [[nodiscard]] uint64_t total_bytes() const;
  [[nodiscard]] bool empty() const { return by_begin_.empty(); }

 private:
  std::map<uint64_t, uint64_t> by_begin_;  // begin -> end
};

}  // namespace snr::record
