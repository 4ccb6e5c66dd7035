#include "record/interval_set.h"

#include <algorithm>

namespace snr::record {

void IntervalSet::add(uint64_t begin, uint64_t end) {
  if (begin >= end) return;
  auto it = by_begin_.upper_bound(begin);
  if (it != by_begin_.begin()) {
    auto previous = std::prev(it);
    if (previous->second >= begin) {  // overlaps or touches
      begin = previous->first;
      end = std::max(end, previous->second);
      it = by_begin_.erase(previous);
    }
  }
  while (it != by_begin_.end() && it->first <= end) {
    end = std::max(end, it->second);
    it = by_begin_.erase(it);
  }
  by_begin_.emplace(begin, end);
}

std::vector<Interval> IntervalSet::missing(uint64_t begin, uint64_t end) const {
  std::vector<Interval> out;
  append_missing(begin, end, out);
  return out;
}

void IntervalSet::append_missing(uint64_t begin, uint64_t end, std::vector<Interval>& out) const {
  if (begin >= end) return;
  auto it = by_begin_.upper_bound(begin);
  if (it != by_begin_.begin()) {
    auto previous = std::prev(it);
    if (previous->second > begin) begin = previous->second;
  }
  for (; begin < end; ++it) {
    if (it == by_begin_.end() || it->first >= end) {
      out.push_back({begin, end});
      break;
    }
    if (it->first > begin) out.push_back({begin, it->first});
    begin = std::max(begin, it->second);
  }
}

std::vector<Interval> IntervalSet::intervals() const {
  std::vector<Interval> out;
  out.reserve(by_begin_.size());
  for (const auto& [begin, end] : by_begin_) out.push_back({begin, end});
  return out;
}

uint64_t IntervalSet::total_bytes() const {
  uint64_t total = 0;
  for (const auto& [begin, end] : by_begin_) total += end - begin;
  return total;
}

}  // namespace snr::record
