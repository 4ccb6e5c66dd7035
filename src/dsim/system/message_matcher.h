// Matches arriving messages with posted receives on (destination, source,
// tag, size), first come first served on both sides — ASTRA-sim's front-end
// rule. Arrivals without a receive are counted; receives without an arrival
// queue their waiter (an opaque 64-bit token of the caller).
//
// The hot path of every collective: a flat open-addressing table (linear
// probing), so matching allocates nothing once the table has grown.
// A key that falls idle keeps its slot: a ring step reuses the same
// (dst, src, tag, size) 2(N-1) times, so insert/erase churn would dominate.
// Idle slots are dropped when the table would otherwise grow; that rebuild
// is the only thing that moves a key, so callers may keep a slot index
// (slot_of) and use it without hashing while generation() is unchanged.
// Waiters are kept as runs of the same token: the head run in the slot
// itself (a stream posting one receive at a time never touches the pool),
// later runs in pooled FIFO nodes.
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
  bool arrive(const MatchKey& key, uint64_t& waiter) { return arrive_at(slot_of(key), waiter); }
  // A receive is posted. Returns true when an earlier arrival satisfies it
  // (consumed); otherwise queues `waiter` for the next arrival.
  bool post(const MatchKey& key, uint64_t waiter) { return post_at(slot_of(key), waiter); }

  // The key's slot (claimed when absent); valid while generation() stays.
  uint32_t slot_of(const MatchKey& key) {
    const uint64_t mask = slots_.size() - 1;
    for (uint64_t i = index_of(key);; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (!slot.used) return insert(key);  // may rebuild: a new generation
      if (slot.key == key) return static_cast<uint32_t>(i);
    }
  }
  [[nodiscard]] uint32_t generation() const { return generation_; }

  // arrive / post on a slot from slot_of of the current generation.
  bool arrive_at(uint32_t index, uint64_t& waiter) {
    Slot& slot = slots_[index];
    if (slot.run_count == 0) {
      ++slot.arrived;
      ++pending_;
      return false;
    }
    waiter = slot.run_waiter;
    if (--slot.run_count == 0 && slot.head != kNone) next_run(slot);
    --pending_;
    return true;
  }
  bool post_at(uint32_t index, uint64_t waiter) {
    Slot& slot = slots_[index];
    if (slot.arrived > 0) {
      --slot.arrived;
      --pending_;
      return true;
    }
    ++pending_;
    if (slot.run_count == 0) {  // no waiters at all (the pool holds later runs only)
      slot.run_waiter = waiter;
      slot.run_count = 1;
    } else if (slot.head == kNone && slot.run_waiter == waiter) {
      ++slot.run_count;
    } else {
      queue_run(slot, waiter);
    }
    return false;
  }

  // Unmatched arrivals plus waiting receives (non-zero at the end: deadlock).
  [[nodiscard]] uint64_t pending() const { return pending_; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  // 64 bytes (53 used): a slot is one cache line, and its index a shift.
  struct alignas(64) Slot {
    MatchKey key;
    uint32_t arrived = 0;    // arrivals not yet received
    uint32_t run_count = 0;  // waiters in the head run (0: no waiters)
    uint64_t run_waiter = 0;
    uint32_t head = kNone;   // later runs (pooled FIFO)
    uint32_t tail = kNone;
    bool used = false;
  };
  struct WaiterRun {
    uint64_t waiter;
    uint32_t count;
    uint32_t next;
  };

  // Multiplicative (Fibonacci) hashing of the mixed fields; the table index
  // is the top bits, so one multiply-add chain and one shift per lookup.
  [[nodiscard]] uint64_t index_of(const MatchKey& key) const {
    const uint64_t mixed = (static_cast<uint64_t>(key.dst) << 32 | key.src) ^ (key.tag * 0xC2B2AE3D27D4EB4Full) ^
                           (key.bytes * 0x165667B19E3779F9ull);
    return (mixed * 0x9E3779B97F4A7C15ull) >> shift_;
  }
  uint32_t insert(const MatchKey& key);
  // Appends a waiter behind the head run.
  void queue_run(Slot& slot, uint64_t waiter);
  // The head run is used up: the first pooled run takes its place.
  void next_run(Slot& slot);
  // Rebuilds the table without idle slots, doubling it when the live ones
  // would still fill more than an eighth.
  void rebuild();
  static bool idle(const Slot& slot) { return slot.arrived == 0 && slot.run_count == 0; }

  std::vector<Slot> slots_;
  std::vector<WaiterRun> runs_;
  uint32_t free_run_ = kNone;
  uint32_t shift_ = 64 - 10;  // 64 - log2(slots_.size())
  uint32_t generation_ = 0;
  uint64_t used_slots_ = 0;   // live and idle
  uint64_t pending_ = 0;
};

}  // namespace snr::dsim
