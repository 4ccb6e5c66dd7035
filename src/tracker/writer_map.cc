#include "tracker/writer_map.h"

namespace snr::tracker {

void WriterMap::write(uint64_t begin, uint64_t end, uint64_t step) {
  if (begin >= end) return;
  auto it = ranges_.lower_bound(begin);
  if (it != ranges_.begin()) {
    auto before = std::prev(it);
    if (before->second.end > begin) {
      // Keep the parts of the older range in front of `begin` and behind `end`.
      const Range old = before->second;
      before->second.end = begin;
      if (old.end > end) ranges_.emplace(end, old);
    }
  }
  it = ranges_.lower_bound(begin);
  while (it != ranges_.end() && it->first < end) {
    if (it->second.end > end) {
      const Range tail = it->second;
      ranges_.erase(it);
      ranges_.emplace(end, tail);
      break;
    }
    it = ranges_.erase(it);
  }
  auto placed = ranges_.emplace(begin, Range{end, step}).first;
  // Back-to-back writes of one step (a loop of stores) stay one range.
  if (placed != ranges_.begin()) {
    auto before = std::prev(placed);
    if (before->second.end == begin && before->second.step == step) {
      before->second.end = end;
      ranges_.erase(placed);
    }
  }
}

}  // namespace snr::tracker
