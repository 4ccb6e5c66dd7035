// The simulator's single clock: a calendar queue of small fixed-size events
// keyed by integer time units (nanoseconds for the system layers,
// picoseconds for the GPU model). Events run in (time, sequence) order,
// where the sequence counts schedule calls: same-time events run in the
// order they were scheduled (FIFO), the tie rule ASTRA-sim's event queue
// uses too.
//
// Why a calendar: a ring collective on N NPUs is O(N^2) events with only
// O(N) pending at any time, all within a few microseconds of `now`. Events
// due within the window (kBuckets buckets ahead) land in a bucket, an
// intrusive list of pooled nodes sorted on (time, sequence), with one bit
// per bucket in an occupancy bitmap; schedule and pop are O(1) and
// allocation-free once the pool has grown. Events further out wait in a
// (time, sequence) binary heap and move into their bucket as soon as the
// window reaches them.
//
// Bucket width. By default a bucket is one time unit: its list holds one
// time, a new event goes last (its sequence is the newest) and pops are
// list pops. A model whose unit is much finer than the spacing of its
// events (the GPU model counts picoseconds, its events are picoseconds to
// nanoseconds apart) widens the buckets to 2^bits units, so that the window
// covers microseconds instead of 65 ns: its 100 ns memory accesses and 1 us
// link latencies stay out of the heap. A wide bucket holds a few distinct
// times; a new event usually still goes last, else it is inserted in its
// place. With an adaptive width the queue halves or doubles the width
// while it runs, to keep a few events per bucket whatever the density (two
// GPUs or a hundred): a crowded bucket makes insertions walk, a sparse one
// makes pops scan. The order of events is the same for every width.
//
// Reserved sequence numbers. A layer can take the sequence number an event
// would get now (reserve_sequence) and schedule it later, only if it turns
// out to be needed, in the place it would have had (schedule_reserved); the
// NoC network does so for the moment a link frees, which needs an event
// only when a message is waiting for it. `after_current` tells whether such
// an event would still be pending.
// Events are opaque here (event.h): a handler id, a kind and 16 bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "dsim/core/event.h"

namespace snr::dsim {

class EventQueue {
 public:
  static constexpr uint32_t kWindowBits = 16;
  static constexpr uint32_t kBuckets = uint32_t{1} << kWindowBits;
  // The window in time units at the default bucket width.
  static constexpr TimeNs kWindowNs = kBuckets;
  static constexpr uint32_t kMaxBucketWidthBits = 20;

  EventQueue();

  // Buckets of 2^bits time units (0: one unit, the default). Only while no
  // event is pending; throws snr::Error otherwise or for more than
  // kMaxBucketWidthBits.
  void set_bucket_width_bits(uint32_t bits);
  // The same, then adapting the width between one unit and 2^max_bits as
  // events are popped (see above).
  void set_adaptive_bucket_width(uint32_t initial_bits, uint32_t max_bits);
  [[nodiscard]] uint32_t bucket_width_bits() const { return bucket_bits_; }
  // Times the adaptive width changed.
  [[nodiscard]] uint64_t bucket_width_changes() const { return width_changes_; }

  // Schedules an event at `time_ns` (>= now). Throws snr::Error for a time
  // in the past, which would break causality.
  template <EventPayload T>
  [[gnu::always_inline]] void schedule(TimeNs time_ns, HandlerId handler, const T& payload) {
    schedule_raw(time_ns, handler, static_cast<uint8_t>(T::kKind), EventData::of(payload));
  }
  [[gnu::always_inline]] void schedule_raw(TimeNs time_ns, HandlerId handler, uint8_t kind, const EventData& data) {
    const uint64_t sequence = next_sequence_++;
    if (time_ns >= now_ns_ && (time_ns >> bucket_bits_) - (now_ns_ >> bucket_bits_) < kBuckets) {
      const uint32_t index = new_node(time_ns, sequence, handler, kind, data);
      const uint32_t bucket = bucket_of(time_ns);
      const uint32_t tail = buckets_[bucket].tail;
      // The newest sequence goes last unless a later time is already there.
      if (tail == kNone || nodes_[tail].time_ns <= time_ns) {
        link_at_tail(bucket, index);
      } else {
        insert_sorted(bucket, index);
      }
      ++pending_;
      return;
    }
    schedule_general(time_ns, sequence, handler, kind, data);
  }

  // The sequence number an event scheduled now would get; it is used up.
  [[nodiscard]] uint64_t reserve_sequence() { return next_sequence_++; }
  // Schedules an event with a sequence number reserved earlier: it runs
  // where it would have run had it been scheduled at the reservation.
  // Precondition: after_current(time_ns, sequence).
  template <EventPayload T>
  void schedule_reserved(TimeNs time_ns, uint64_t sequence, HandlerId handler, const T& payload) {
    schedule_general(time_ns, sequence, handler, static_cast<uint8_t>(T::kKind), EventData::of(payload));
  }
  // Whether an event at (time_ns, sequence) comes after the event popped
  // last (before anything was popped: after time 0, sequence 0).
  [[nodiscard]] bool after_current(TimeNs time_ns, uint64_t sequence) const {
    return time_ns > now_ns_ || (time_ns == now_ns_ && sequence > current_sequence_);
  }

  [[nodiscard]] bool empty() const { return pending_ == 0; }
  [[nodiscard]] TimeNs now() const { return now_ns_; }
  [[nodiscard]] uint64_t events_processed() const { return processed_; }
  [[nodiscard]] uint64_t pending() const { return pending_; }
  // Nodes the pool holds (its high-water mark of pending events).
  [[nodiscard]] size_t pool_capacity() const { return nodes_.size(); }

  // Removes and returns the earliest event (FIFO among equal times); the
  // clock moves to its time. Precondition: !empty().
  [[gnu::always_inline]] Event pop() {
    const uint32_t index = unlink_first(current_bucket());
    const Node& node = nodes_[index];
    return Event{now_ns_, node.data, node.handler, node.kind};
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
    const uint32_t bucket = current_bucket();
    if (nodes_[buckets_[bucket].head].handler != handler) return false;
    const uint32_t index = unlink_first(bucket);
    kind = nodes_[index].kind;
    data = nodes_[index].data;
    return true;
  }

 private:
  static constexpr uint32_t kMask = kBuckets - 1;
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Node {
    EventData data;
    TimeNs time_ns;
    uint64_t sequence;
    uint32_t next;
    HandlerId handler;
    uint8_t kind;
  };
  // A bucket's list: first and last node (one access for both).
  struct Bucket {
    uint32_t head = kNone, tail = kNone;
  };
  // A far event: a node with its order.
  struct Keyed {
    TimeNs time_ns;
    uint64_t sequence;
    uint32_t node;
  };

  [[nodiscard]] uint32_t bucket_of(TimeNs time_ns) const {
    return static_cast<uint32_t>(time_ns >> bucket_bits_) & kMask;
  }
  // The bucket of the earliest pending event, moving the clock to it when
  // the current bucket is used up. Precondition: !empty().
  [[gnu::always_inline]] uint32_t current_bucket() {
    const uint32_t bucket = bucket_of(now_ns_);
    return buckets_[bucket].head != kNone ? bucket : advance_to_next_bucket();
  }
  // Removes the first node of `bucket` (the earliest pending event); the
  // clock moves to its time.
  [[gnu::always_inline]] uint32_t unlink_first(uint32_t bucket) {
    Bucket& list = buckets_[bucket];
    const uint32_t index = list.head;
    Node& node = nodes_[index];
    list.head = node.next;
    if (node.next == kNone) {
      list.tail = kNone;
      occupied_[bucket >> 6] &= ~(uint64_t{1} << (bucket & 63));
    }
    now_ns_ = node.time_ns;
    current_sequence_ = node.sequence;
    node.next = free_;
    free_ = index;
    --pending_;
    ++processed_;
    return index;
  }
  [[gnu::always_inline]] uint32_t new_node(TimeNs time_ns, uint64_t sequence, HandlerId handler, uint8_t kind,
                                           const EventData& data) {
    if (free_ == kNone) grow_pool();
    const uint32_t index = free_;
    Node& node = nodes_[index];
    free_ = node.next;
    node.data = data;
    node.time_ns = time_ns;
    node.sequence = sequence;
    node.next = kNone;
    node.handler = handler;
    node.kind = kind;
    return index;
  }
  [[gnu::always_inline]] void link_at_tail(uint32_t bucket, uint32_t index) {
    Bucket& list = buckets_[bucket];
    if (list.tail == kNone) {
      list.head = index;
      occupied_[bucket >> 6] |= uint64_t{1} << (bucket & 63);
    } else {
      nodes_[list.tail].next = index;
    }
    list.tail = index;
  }
  // Puts a node before the first one of its bucket that comes after it
  // (the bucket is not empty and its last node comes after it).
  void insert_sorted(uint32_t bucket, uint32_t index);
  // Any time, any sequence.
  void schedule_general(TimeNs time_ns, uint64_t sequence, HandlerId handler, uint8_t kind, const EventData& data);
  // Into its bucket (inside the window) or the far heap.
  void place(uint32_t index);
  // Adds free nodes; out of line so that scheduling stays a leaf.
  [[gnu::noinline]] void grow_pool();
  // Moves the clock to the start of the next occupied bucket (or of the far
  // heap's first event), pulling far events that the window now covers
  // into their buckets; returns that bucket.
  uint32_t advance_to_next_bucket();
  // Adaptive width: every kReviewEvents pops, the mean events per bucket
  // reached decides whether to halve or double it.
  void review_bucket_width();
  // Re-files every pending event under buckets of 2^bits units.
  void rebucket(uint32_t bits);

  static constexpr uint64_t kReviewEvents = 1 << 16;
  uint32_t bucket_bits_ = 0;
  bool adaptive_ = false;
  uint32_t max_bucket_bits_ = 0;
  uint64_t buckets_reached_ = 0;  // advances to a next bucket since the last review
  uint64_t next_review_ = 0;      // processed_ at the next review
  uint64_t width_changes_ = 0;
  std::vector<Keyed> refile_;     // scratch of rebucket()
  std::vector<Node> nodes_;
  std::vector<Bucket> buckets_;
  std::vector<uint64_t> occupied_;
  std::vector<Keyed> far_;  // binary min-heap on (time, sequence)
  uint32_t free_ = kNone;
  uint64_t next_sequence_ = 1;
  uint64_t current_sequence_ = 0;
  uint64_t pending_ = 0;
  uint64_t processed_ = 0;
  TimeNs now_ns_ = 0;
};

}  // namespace snr::dsim
