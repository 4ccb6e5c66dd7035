// The simulator's single clock: a calendar queue of small fixed-size events
// keyed by integer nanoseconds. Same-time events run in the order they were
// scheduled (FIFO), the tie rule ASTRA-sim's event queue uses too.
//
// Why a calendar: a ring collective on N NPUs is O(N^2) events with only
// O(N) pending at any time, all within a few microseconds of `now`. Events
// due within the next kWindowNs land in the bucket of their exact time (an
// intrusive FIFO of pooled nodes, one bit per bucket in an occupancy bitmap),
// so schedule and pop are O(1) and allocation-free once the pool has grown.
// Events further out wait in a (time, sequence) binary heap and move into
// their bucket, in heap order, as soon as the window reaches them — before
// anything else can be scheduled for that time, so FIFO order is kept.
// Events are opaque here (event.h): a handler id, a kind and 16 bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "dsim/core/event.h"

namespace snr::dsim {

class EventQueue {
 public:
  static constexpr uint32_t kWindowBits = 16;
  static constexpr TimeNs kWindowNs = TimeNs{1} << kWindowBits;

  EventQueue();

  // Schedules an event at `time_ns` (>= now). Throws snr::Error for a time
  // in the past, which would break causality.
  template <EventPayload T>
  [[gnu::always_inline]] void schedule(TimeNs time_ns, HandlerId handler, const T& payload) {
    schedule_raw(time_ns, handler, static_cast<uint8_t>(T::kKind), EventData::of(payload));
  }
  [[gnu::always_inline]] void schedule_raw(TimeNs time_ns, HandlerId handler, uint8_t kind, const EventData& data) {
    if (time_ns - now_ns_ < kWindowNs && time_ns >= now_ns_) {
      append_to_bucket(time_ns, handler, kind, data);
    } else {
      schedule_far(time_ns, handler, kind, data);
    }
    ++pending_;
  }
  [[nodiscard]] bool empty() const { return pending_ == 0; }
  [[nodiscard]] TimeNs now() const { return now_ns_; }
  [[nodiscard]] uint64_t events_processed() const { return processed_; }
  [[nodiscard]] uint64_t pending() const { return pending_; }

  // Removes and returns the earliest event (FIFO among equal times); the
  // clock moves to its time. Precondition: !empty().
  [[gnu::always_inline]] Event pop() {
    uint32_t bucket = static_cast<uint32_t>(now_ns_) & kMask;
    if (heads_[bucket] == kNone) bucket = advance_to_next_time();
    const uint32_t node_index = heads_[bucket];
    const Node& node = nodes_[node_index];
    const Event event{now_ns_, node.data, node.handler, node.kind};
    unlink_head(bucket, node_index);
    return event;
  }
  // Pops the earliest event into `event` only when it is for `handler`
  // (a handler that goes on with its own events without returning to the
  // loop; the order is the same as pop()'s).
  [[gnu::always_inline]] bool pop_if_for(HandlerId handler, Event& event) {
    uint8_t kind = 0;
    EventData data;
    if (!pop_if_for(handler, kind, data)) return false;
    event = Event{now_ns_, data, handler, kind};
    return true;
  }
  // The same, giving only the kind and payload (they stay in registers
  // in a handler's loop).
  [[gnu::always_inline]] bool pop_if_for(HandlerId handler, uint8_t& kind, EventData& data) {
    if (pending_ == 0) return false;
    uint32_t bucket = static_cast<uint32_t>(now_ns_) & kMask;
    if (heads_[bucket] == kNone) bucket = advance_to_next_time();
    const uint32_t node_index = heads_[bucket];
    const Node& node = nodes_[node_index];
    if (node.handler != handler) return false;
    kind = node.kind;
    data = node.data;
    unlink_head(bucket, node_index);
    return true;
  }

 private:
  static constexpr uint32_t kMask = static_cast<uint32_t>(kWindowNs - 1);
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Node {
    EventData data;
    uint32_t next;
    HandlerId handler;
    uint8_t kind;
  };
  struct FarEvent {
    TimeNs time_ns;
    uint64_t sequence;
    EventData data;
    HandlerId handler;
    uint8_t kind;
  };

  // Removes the head node of the current time's bucket.
  [[gnu::always_inline]] void unlink_head(uint32_t bucket, uint32_t node_index) {
    const uint32_t next = nodes_[node_index].next;
    heads_[bucket] = next;
    if (next == kNone) {
      tails_[bucket] = kNone;
      occupied_[bucket >> 6] &= ~(uint64_t{1} << (bucket & 63));
    }
    nodes_[node_index].next = free_;
    free_ = node_index;
    --pending_;
    ++processed_;
  }

  [[gnu::always_inline]] void append_to_bucket(TimeNs time_ns, HandlerId handler, uint8_t kind,
                                               const EventData& data) {
    if (free_ == kNone) grow_pool();
    const uint32_t index = free_;
    free_ = nodes_[index].next;
    nodes_[index] = Node{data, kNone, handler, kind};
    const uint32_t bucket = static_cast<uint32_t>(time_ns) & kMask;
    if (tails_[bucket] == kNone) {
      heads_[bucket] = index;
      occupied_[bucket >> 6] |= uint64_t{1} << (bucket & 63);
    } else {
      nodes_[tails_[bucket]].next = index;
    }
    tails_[bucket] = index;
  }
  void schedule_far(TimeNs time_ns, HandlerId handler, uint8_t kind, const EventData& data);
  // Adds free nodes; out of line so that scheduling stays a leaf.
  [[gnu::noinline]] void grow_pool();
  // Moves the clock to the earliest pending time, pulling far events that
  // the window now covers into their buckets; returns the current bucket.
  uint32_t advance_to_next_time();

  std::vector<Node> nodes_;
  std::vector<uint32_t> heads_;
  std::vector<uint32_t> tails_;
  std::vector<uint64_t> occupied_;
  std::vector<FarEvent> far_;  // binary min-heap on (time, sequence)
  uint32_t free_ = kNone;
  uint64_t far_sequence_ = 0;
  uint64_t pending_ = 0;
  uint64_t processed_ = 0;
  TimeNs now_ns_ = 0;
};

}  // namespace snr::dsim
