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
// Events carry integers only; the owner of each kind interprets them.
#pragma once

#include <cstdint>
#include <vector>

namespace snr::dsim {

using TimeNs = uint64_t;
using NpuId = uint32_t;

enum class EventKind : uint8_t {
  kBundleReady,      // a = stream: endpoint delay over (ASTRA-sim MemBus)
  kReductionDone,    // a = stream: local reduction over
  kDeferredRecv,     // a = stream: a receive matched an already-arrived message
  kNetworkHop,       // a = message: the network backend's own event
  kMessageArrived,   // a = message: delivered to its destination
  kComputeDone,      // a = npu, b = node index
  kNodeReady,        // a = npu, b = node index: zero-time node completion
  kCustomStepDone,   // a = stream, b = step index of a custom collective
};

struct Event {
  TimeNs time_ns;
  uint64_t b;
  uint32_t a;
  EventKind kind;
};

class EventQueue {
 public:
  static constexpr uint32_t kWindowBits = 16;
  static constexpr TimeNs kWindowNs = TimeNs{1} << kWindowBits;

  EventQueue();

  // Schedules an event at `time_ns` (>= now). Throws snr::Error for a time
  // in the past, which would break causality.
  [[gnu::always_inline]] void schedule(TimeNs time_ns, EventKind kind, uint32_t a, uint64_t b = 0) {
    if (time_ns - now_ns_ < kWindowNs && time_ns >= now_ns_) {
      append_to_bucket(time_ns, kind, a, b);
    } else {
      schedule_far(time_ns, kind, a, b);
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
    const Event event{now_ns_, node.b, node.a, node.kind};
    heads_[bucket] = node.next;
    if (node.next == kNone) {
      tails_[bucket] = kNone;
      occupied_[bucket >> 6] &= ~(uint64_t{1} << (bucket & 63));
    }
    nodes_[node_index].next = free_;
    free_ = node_index;
    --pending_;
    ++processed_;
    return event;
  }

 private:
  static constexpr uint32_t kMask = static_cast<uint32_t>(kWindowNs - 1);
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Node {
    uint64_t b;
    uint32_t a;
    uint32_t next;
    EventKind kind;
  };
  struct FarEvent {
    TimeNs time_ns;
    uint64_t sequence;
    uint64_t b;
    uint32_t a;
    EventKind kind;
  };

  [[gnu::always_inline]] void append_to_bucket(TimeNs time_ns, EventKind kind, uint32_t a, uint64_t b) {
    if (free_ == kNone) grow_pool();
    const uint32_t index = free_;
    free_ = nodes_[index].next;
    nodes_[index] = Node{b, a, kNone, kind};
    const uint32_t bucket = static_cast<uint32_t>(time_ns) & kMask;
    if (tails_[bucket] == kNone) {
      heads_[bucket] = index;
      occupied_[bucket >> 6] |= uint64_t{1} << (bucket & 63);
    } else {
      nodes_[tails_[bucket]].next = index;
    }
    tails_[bucket] = index;
  }
  void schedule_far(TimeNs time_ns, EventKind kind, uint32_t a, uint64_t b);
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
