#include "dsim/system/message_matcher.h"

#include <bit>
#include <cstddef>
#include <utility>

namespace snr::dsim {

MessageMatcher::MessageMatcher() : slots_(1024) {}

uint32_t MessageMatcher::insert(const MatchKey& key) {
  if (4 * (used_slots_ + 1) > slots_.size()) rebuild();  // load <= 1/4: short probes
  const uint64_t mask = slots_.size() - 1;
  uint64_t i = index_of(key);
  while (slots_[i].used) i = (i + 1) & mask;
  slots_[i] = Slot{key, 0, kNone, kNone, true};
  ++used_slots_;
  return static_cast<uint32_t>(i);
}

void MessageMatcher::queue_waiter(Slot& slot, uint64_t waiter) {
  uint32_t node;
  if (free_waiter_ != kNone) {
    node = free_waiter_;
    free_waiter_ = waiters_[node].next;
  } else {
    node = static_cast<uint32_t>(waiters_.size());
    waiters_.emplace_back();
  }
  waiters_[node] = WaiterNode{waiter, kNone};
  if (slot.tail == kNone) {
    slot.head = node;
  } else {
    waiters_[slot.tail].next = node;
  }
  slot.tail = node;
}

void MessageMatcher::rebuild() {
  std::vector<Slot> old = std::move(slots_);
  uint64_t live = 0;
  for (const Slot& s : old) live += (s.used && !idle(s)) ? 1 : 0;
  const size_t size = 8 * (live + 1) > old.size() ? old.size() * 2 : old.size();
  slots_.assign(size, Slot{});
  shift_ = 64 - static_cast<uint32_t>(std::countr_zero(size));
  const uint64_t mask = size - 1;
  used_slots_ = 0;
  for (const Slot& s : old) {
    if (!s.used || idle(s)) continue;
    uint64_t i = index_of(s.key);
    while (slots_[i].used) i = (i + 1) & mask;
    slots_[i] = s;
    ++used_slots_;
  }
}

}  // namespace snr::dsim
