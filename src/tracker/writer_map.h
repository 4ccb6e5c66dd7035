// Which step last wrote each byte of a sparse address space (SMEM, HBM):
// disjoint [begin, end) ranges in an ordered map, split and overwritten by
// later writes, so a read finds its producers in O(log n + hits).
#pragma once

#include <cstdint>
#include <map>

namespace snr::tracker {

class WriterMap {
 public:
  // Bytes [begin, end) were written by `step`.
  void write(uint64_t begin, uint64_t end, uint64_t step);

  // Calls fn(step, first, last) for each written piece of [begin, end),
  // in address order, with `last` inclusive.
  template <typename Fn>
  void for_each_writer(uint64_t begin, uint64_t end, Fn fn) const {
    auto it = ranges_.upper_bound(begin);
    if (it != ranges_.begin()) --it;
    for (; it != ranges_.end() && it->first < end; ++it) {
      const uint64_t lo = std::max(begin, it->first);
      const uint64_t hi = std::min(end, it->second.end);
      if (lo < hi) fn(it->second.step, lo, hi - 1);
    }
  }

  [[nodiscard]] bool empty() const { return ranges_.empty(); }

 private:
  struct Range {
    uint64_t end;
    uint64_t step;
  };
  std::map<uint64_t, Range> ranges_;  // begin -> range
};

}  // namespace snr::tracker
