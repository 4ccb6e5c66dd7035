#include "dsim/system/message_matcher.h"

#include <cstddef>
#include <utility>

namespace snr::dsim {

MessageMatcher::MessageMatcher() : slots_(1024) {}

uint64_t MessageMatcher::hash(const MatchKey& key) {
  // splitmix64-style mixing of the four fields.
  uint64_t h = (static_cast<uint64_t>(key.dst) << 32 | key.src) ^ (key.tag * 0x9E3779B97F4A7C15ull);
  h ^= key.bytes * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 31;
  return h;
}

uint32_t MessageMatcher::find_or_insert(const MatchKey& key) {
  uint64_t mask = slots_.size() - 1;
  uint64_t i = hash(key) & mask;
  while (slots_[i].used) {
    if (slots_[i].key == key) return static_cast<uint32_t>(i);
    i = (i + 1) & mask;
  }
  if (4 * (used_slots_ + 1) > slots_.size()) {  // load <= 1/4: short probes
    rebuild();
    mask = slots_.size() - 1;
    i = hash(key) & mask;
    while (slots_[i].used) i = (i + 1) & mask;
  }
  slots_[i] = Slot{key, 0, kNone, kNone, true};
  ++used_slots_;
  return static_cast<uint32_t>(i);
}

void MessageMatcher::rebuild() {
  std::vector<Slot> old = std::move(slots_);
  uint64_t live = 0;
  for (const Slot& s : old) live += (s.used && !idle(s)) ? 1 : 0;
  const size_t size = 8 * (live + 1) > old.size() ? old.size() * 2 : old.size();
  slots_.assign(size, Slot{});
  const uint64_t mask = size - 1;
  used_slots_ = 0;
  for (const Slot& s : old) {
    if (!s.used || idle(s)) continue;
    uint64_t i = hash(s.key) & mask;
    while (slots_[i].used) i = (i + 1) & mask;
    slots_[i] = s;
    ++used_slots_;
  }
}

bool MessageMatcher::arrive(const MatchKey& key, uint64_t& waiter) {
  const uint32_t index = find_or_insert(key);
  Slot& slot = slots_[index];
  if (slot.head != kNone) {
    const uint32_t node = slot.head;
    waiter = waiters_[node].waiter;
    slot.head = waiters_[node].next;
    if (slot.head == kNone) slot.tail = kNone;
    waiters_[node].next = free_waiter_;
    free_waiter_ = node;
    --pending_;
    return true;
  }
  ++slot.arrived;
  ++pending_;
  return false;
}

bool MessageMatcher::post(const MatchKey& key, uint64_t waiter) {
  const uint32_t index = find_or_insert(key);
  Slot& slot = slots_[index];
  if (slot.arrived > 0) {
    --slot.arrived;
    --pending_;
    return true;
  }
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
  ++pending_;
  return false;
}

}  // namespace snr::dsim
