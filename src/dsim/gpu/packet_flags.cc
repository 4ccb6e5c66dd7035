#include "dsim/gpu/packet_flags.h"

#include <algorithm>

namespace snr::dsim::gpu {

PacketFlags::PacketFlags(uint32_t areas) : arrived_(areas), table_(64) {}

bool PacketFlags::covered(uint32_t area, uint64_t begin, uint64_t end) const {
  const std::vector<Interval>& intervals = arrived_[area];
  auto it = std::upper_bound(intervals.begin(), intervals.end(), begin,
                             [](uint64_t b, const Interval& i) { return b < i.begin; });
  if (it == intervals.begin()) return false;
  --it;
  return it->end >= end;
}

size_t PacketFlags::slot_of(uint64_t key) const {
  const size_t mask = table_.size() - 1;
  size_t slot = static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
  while (table_[slot].key != key && table_[slot].key != kEmpty) slot = (slot + 1) & mask;
  return slot;
}

void PacketFlags::grow_table() {
  std::vector<Entry> old(table_.size() * 2);
  old.swap(table_);
  for (const Entry& e : old) {
    if (e.key != kEmpty) table_[slot_of(e.key)] = e;
  }
}

void PacketFlags::erase_slot(size_t slot) {
  // Backward shift: later entries of the probe run move up into the hole,
  // so that lookups never need tombstones.
  const size_t mask = table_.size() - 1;
  size_t hole = slot;
  for (size_t next = (hole + 1) & mask; table_[next].key != kEmpty; next = (next + 1) & mask) {
    const size_t home = static_cast<size_t>((table_[next].key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    // The entry may fill the hole unless its home lies cyclically in (hole, next].
    const bool stays = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next);
    if (!stays) {
      table_[hole] = table_[next];
      hole = next;
    }
  }
  table_[hole] = Entry{};
  --table_used_;
}

void PacketFlags::park(uint32_t area, uint64_t begin, uint64_t end, uint32_t tag) {
  if (free_waiter_ == kNone) {
    waiters_.emplace_back();
    free_waiter_ = static_cast<uint32_t>(waiters_.size() - 1);
  }
  const uint32_t index = free_waiter_;
  free_waiter_ = waiters_[index].next;
  if (2 * (table_used_ + 1) > table_.size()) grow_table();
  const uint64_t key = key_of(area, begin);
  const size_t slot = slot_of(key);
  if (table_[slot].key == kEmpty) {
    table_[slot].key = key;
    ++table_used_;
  }
  waiters_[index] = Waiter{begin, end, parked_total_++, tag, table_[slot].head};
  table_[slot].head = index;
  ++parked_count_;
  longest_parked_ = std::max(longest_parked_, end - begin);
}

void PacketFlags::arrive(uint32_t area, uint64_t begin, uint64_t end, std::vector<uint32_t>& answered) {
  answered.clear();
  const uint64_t store_begin = begin, store_end = end;
  // Merge with the interval before (touching or overlapping) and the ones
  // after that start inside the growing interval.
  std::vector<Interval>& intervals = arrived_[area];
  auto it = std::upper_bound(intervals.begin(), intervals.end(), begin,
                             [](uint64_t b, const Interval& i) { return b < i.begin; });
  if (it != intervals.begin() && std::prev(it)->end >= begin) {
    --it;
    begin = it->begin;
    end = std::max(end, it->end);
  } else {
    it = intervals.insert(it, Interval{begin, end});
  }
  auto last = std::next(it);
  while (last != intervals.end() && last->begin <= end) {
    end = std::max(end, last->end);
    ++last;
  }
  it->end = end;
  intervals.erase(std::next(it), last);
  if (parked_count_ == 0) return;

  // Parked loads that [begin, end) now covers overlap the store (see the
  // header), so their first byte lies in [store_begin - longest + 1, store_end).
  const uint64_t from = std::max(begin, store_begin >= longest_parked_ ? store_begin - longest_parked_ + 1 : 0);
  scratch_.clear();
  for (uint64_t grain = from >> kGrainBits; grain <= (store_end - 1) >> kGrainBits; ++grain) {
    const uint64_t key = uint64_t{area} << 40 | grain;
    const size_t slot = slot_of(key);
    if (table_[slot].key == kEmpty) continue;
    uint32_t* link = &table_[slot].head;
    while (*link != kNone) {
      Waiter& w = waiters_[*link];
      if (w.begin >= begin && w.begin < end && w.end <= end) {
        scratch_.emplace_back(w.order, w.tag);
        const uint32_t index = *link;
        *link = w.next;
        w.next = free_waiter_;
        free_waiter_ = index;
        --parked_count_;
      } else {
        link = &w.next;
      }
    }
    if (table_[slot].head == kNone) erase_slot(slot);
  }
  std::sort(scratch_.begin(), scratch_.end());
  for (const auto& [order, tag] : scratch_) answered.push_back(tag);
}

}  // namespace snr::dsim::gpu
