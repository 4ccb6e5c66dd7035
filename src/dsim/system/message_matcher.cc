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
  slots_[i] = Slot{};
  slots_[i].key = key;
  slots_[i].used = true;
  ++used_slots_;
  return static_cast<uint32_t>(i);
}

void MessageMatcher::queue_run(Slot& slot, uint64_t waiter) {
  if (slot.tail != kNone && runs_[slot.tail].waiter == waiter) {
    ++runs_[slot.tail].count;
    return;
  }
  uint32_t node;
  if (free_run_ != kNone) {
    node = free_run_;
    free_run_ = runs_[node].next;
  } else {
    node = static_cast<uint32_t>(runs_.size());
    runs_.emplace_back();
  }
  runs_[node] = WaiterRun{waiter, 1, kNone};
  if (slot.tail == kNone) {
    slot.head = node;
  } else {
    runs_[slot.tail].next = node;
  }
  slot.tail = node;
}

void MessageMatcher::next_run(Slot& slot) {
  const uint32_t node = slot.head;
  slot.run_waiter = runs_[node].waiter;
  slot.run_count = runs_[node].count;
  slot.head = runs_[node].next;
  if (slot.head == kNone) slot.tail = kNone;
  runs_[node].next = free_run_;
  free_run_ = node;
}

void MessageMatcher::rebuild() {
  std::vector<Slot> old = std::move(slots_);
  uint64_t live = 0;
  for (const Slot& s : old) live += (s.used && !idle(s)) ? 1 : 0;
  const size_t size = 8 * (live + 1) > old.size() ? old.size() * 2 : old.size();
  slots_.assign(size, Slot{});
  shift_ = 64 - static_cast<uint32_t>(std::countr_zero(size));
  ++generation_;
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
