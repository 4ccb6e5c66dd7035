// Matches arriving messages with posted receives on (destination, source,
// tag, size), first come first served on both sides — ASTRA-sim's front-end
// rule. Arrivals without a receive are counted; receives without an arrival
// queue their waiter (an opaque 64-bit token of the caller).
//
// The hot path of every collective: a flat open-addressing table (linear
// probing) and pooled FIFO nodes for waiters, so matching allocates nothing
// once the pools have grown to the peak number of outstanding matches.
// A key that falls idle keeps its slot: a ring step reuses the same
// (dst, src, tag, size) 2(N-1) times, so insert/erase churn would dominate.
// Idle slots are dropped when the table would otherwise grow.
#pragma once

#include <cstdint>
#include <vector>

#include "dsim/core/event_queue.h"

namespace snr::dsim {

struct MatchKey {
  NpuId dst = 0;
  NpuId src = 0;
  uint64_t tag = 0;
  uint64_t bytes = 0;
  bool operator==(const MatchKey&) const = default;
};

class MessageMatcher {
 public:
  MessageMatcher();

  // A message arrived. Returns true and sets `waiter` when a receive was
  // waiting for it; otherwise remembers the arrival.
  bool arrive(const MatchKey& key, uint64_t& waiter) {
    const uint32_t index = find_or_insert(key);  // may rebuild slots_
    Slot& slot = slots_[index];
    if (slot.head == kNone) {
      ++slot.arrived;
      ++pending_;
      return false;
    }
    const uint32_t node = slot.head;
    waiter = waiters_[node].waiter;
    slot.head = waiters_[node].next;
    if (slot.head == kNone) slot.tail = kNone;
    waiters_[node].next = free_waiter_;
    free_waiter_ = node;
    --pending_;
    return true;
  }
  // A receive is posted. Returns true when an earlier arrival satisfies it
  // (consumed); otherwise queues `waiter` for the next arrival.
  bool post(const MatchKey& key, uint64_t waiter) {
    const uint32_t index = find_or_insert(key);  // may rebuild slots_
    Slot& slot = slots_[index];
    if (slot.arrived > 0) {
      --slot.arrived;
      --pending_;
      return true;
    }
    queue_waiter(slot, waiter);
    ++pending_;
    return false;
  }

  // Unmatched arrivals plus waiting receives (non-zero at the end: deadlock).
  [[nodiscard]] uint64_t pending() const { return pending_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Slot {
    MatchKey key;
    uint32_t arrived = 0;     // arrivals not yet received
    uint32_t head = kNone;    // waiting receives (pooled FIFO)
    uint32_t tail = kNone;
    bool used = false;
  };
  struct WaiterNode {
    uint64_t waiter;
    uint32_t next;
  };

  // Multiplicative (Fibonacci) hashing of the mixed fields; the table index
  // is the top bits, so one multiply-add chain and one shift per lookup.
  [[nodiscard]] uint64_t index_of(const MatchKey& key) const {
    const uint64_t mixed = (static_cast<uint64_t>(key.dst) << 32 | key.src) ^ (key.tag * 0xC2B2AE3D27D4EB4Full) ^
                           (key.bytes * 0x165667B19E3779F9ull);
    return (mixed * 0x9E3779B97F4A7C15ull) >> shift_;
  }
  // Index of the key's slot, claiming an empty one when absent.
  uint32_t find_or_insert(const MatchKey& key) {
    const uint64_t mask = slots_.size() - 1;
    for (uint64_t i = index_of(key);; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (!slot.used) return insert(key);
      if (slot.key == key) return static_cast<uint32_t>(i);
    }
  }
  uint32_t insert(const MatchKey& key);
  void queue_waiter(Slot& slot, uint64_t waiter);
  // Rebuilds the table without idle slots, doubling it when the live ones
  // would still fill more than an eighth.
  void rebuild();
  static bool idle(const Slot& slot) { return slot.arrived == 0 && slot.head == kNone; }

  std::vector<Slot> slots_;
  std::vector<WaiterNode> waiters_;
  uint32_t free_waiter_ = kNone;
  uint32_t shift_ = 64 - 10;  // 64 - log2(slots_.size())
  uint64_t used_slots_ = 0;   // live and idle
  uint64_t pending_ = 0;
};

}  // namespace snr::dsim
