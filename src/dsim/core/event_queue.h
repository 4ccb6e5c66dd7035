// The simulator's single clock: a queue of small fixed-size events keyed by
// integer time units (nanoseconds for the system layers, picoseconds for the
// GPU model). Events run in (time, sequence) order, where the sequence
// counts schedule calls: same-time events run in the order they were
// scheduled (FIFO), the tie rule ASTRA-sim's event queue uses too.
//
// Calendar. A ring collective on N NPUs is O(N^2) events with only O(N)
// pending at any time, all within a few microseconds of `now`. Events due
// within the window (kBuckets buckets ahead) land in a bucket, an intrusive
// list of pooled nodes sorted on (time, sequence), with one bit per bucket
// in an occupancy bitmap; schedule and pop are O(1) and allocation-free once
// the pool has grown. Events further out wait in a (time, sequence) binary
// heap, taken from there when they come first.
//
// Bucket width. By default a bucket is one time unit: its list holds one
// time, a new event goes last (its sequence is the newest) and pops are
// list pops. A model whose unit is much finer than the spacing of its
// events (the GPU model counts picoseconds) can widen the buckets to 2^bits
// units, so that the window covers microseconds instead of 65 ns. A wide
// bucket holds a few distinct times; a new event usually still goes last,
// else it is inserted in its place. With an adaptive width the queue halves
// or doubles the width while it runs (see review_bucket_width). The order
// of events is the same for every width.
//
// Delay lanes (opt-in). A model whose events mostly come a few fixed delays
// after the event that schedules them (a NoC hop: the serialization and
// latency of one link kind and message size) gets a FIFO ring per such
// delay: events scheduled `d` after now, in scheduling order, are already
// in (time, sequence) order, so a lane is an append-only ring read from the
// front, and the queue merges the lanes' heads and the calendar's earliest
// event. Why: a lane is written and read sequentially, where the calendar's
// pooled nodes are scattered (a cache miss per event at millions of events
// per simulated microsecond), and a lane is never sorted into. A delay gets
// a lane once it has been seen kLanePromotion times within kLaneVoteWindow
// calendar events (the votes restart every window); the others stay in the
// calendar. With all kMaxLanes taken, a newly frequent delay takes over an
// empty lane that was used less in the window (the many delays to a CU's
// next clock edge must not keep a 1 us hop out of the lanes). The order is
// the same with or without lanes.
//
// Reserved sequence numbers. A layer can take the sequence number an event
// would get now (reserve_sequence) and schedule it later, only if it turns
// out to be needed, in the place it would have had (schedule_reserved); the
// NoC network does so for the moment a link frees, which needs an event
// only when a message is waiting for it. `after_current` tells whether such
// an event would still be pending. A reserved event goes to its delay's
// lane when it comes after the lane's last event, else to the calendar.
// Batches (opt-in). ASTRA-sim runs a system's events of one tick as one
// batch: the first one registered for (system, tick) takes a place in the
// queue, later ones join it and run right after it, ahead of anything
// queued for that tick in between, and one registered for the current tick
// while its batch runs runs in that batch. schedule_batched(time, key, ...)
// does the same per key: with batches on, sequence numbers step by
// kBatchStep and a batch's members take the numbers after its first.
// Events are opaque here (event.h): a handler id, a kind and 16 bytes.
#pragma once

#include <cstdint>
#include <memory>
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
  static constexpr uint32_t kMaxLanes = 64;
  static constexpr uint32_t kLanePromotion = 64;
  static constexpr uint32_t kLaneVoteWindow = 1 << 16;
  // Sequence numbers between two events' with batches on: at most
  // kBatchStep - 1 events join one batch.
  static constexpr uint64_t kBatchStep = uint64_t{1} << 16;

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
  // Turns delay lanes on (see above); any time, but not with batches
  // (throws snr::Error).
  void enable_delay_lanes();
  // Lanes opened so far.
  [[nodiscard]] uint32_t delay_lanes() const { return lane_count_; }
  // Turns batches on for keys 0 .. keys-1 (see above). Only before the
  // first event and without lanes; throws snr::Error otherwise.
  void enable_batches(uint32_t keys);

  // Schedules an event at `time_ns` (>= now). Throws snr::Error for a time
  // in the past, which would break causality.
  template <EventPayload T>
  [[gnu::always_inline]] void schedule(TimeNs time_ns, HandlerId handler, const T& payload) {
    schedule_raw(time_ns, handler, static_cast<uint8_t>(T::kKind), EventData::of(payload));
  }
  [[gnu::always_inline]] void schedule_raw(TimeNs time_ns, HandlerId handler, uint8_t kind, const EventData& data) {
    const uint64_t sequence = next_sequence_;
    next_sequence_ += sequence_step_;
    if (unit_buckets_only_) {
      // Buckets of one unit and no lanes (snr sim's queue): inside the
      // window a bucket is a FIFO of one time, outside the general path.
      if (time_ns - now_ns_ < kBuckets) {
        schedule_in_unit_bucket(time_ns, sequence, handler, kind, data);
      } else {
        schedule_general(time_ns, sequence, handler, kind, data);
      }
      return;
    }
    if (lanes_enabled_) {
      schedule_with_lanes(time_ns, sequence, handler, kind, data);
      return;
    }
    if (!schedule_in_window(time_ns, sequence, handler, kind, data)) {
      schedule_general(time_ns, sequence, handler, kind, data);
    }
  }

  // schedule()'s common case on its own: buckets of one unit, a time
  // inside the window and a free node. Returns false, having done nothing,
  // in every other case (the caller then calls schedule). Nothing in it is
  // a call, so that a caller whose common path is this one, with the rest
  // as tail calls, needs no stack frame (a network's per-message send).
  template <EventPayload T>
  [[gnu::always_inline]] bool try_schedule_unit(TimeNs time_ns, HandlerId handler, const T& payload) {
    if (!unit_buckets_only_ || time_ns - now_ns_ >= kBuckets || free_ == kNone) return false;
    const uint64_t sequence = next_sequence_;
    next_sequence_ += sequence_step_;
    schedule_in_unit_bucket(time_ns, sequence, handler, static_cast<uint8_t>(T::kKind), EventData::of(payload));
    return true;
  }

  // Schedules an event of batch `key`: it joins the key's batch at
  // `time_ns` while that batch has not finished running, else it starts one
  // there. With batches off (or a key past them) it is schedule().
  template <EventPayload T>
  [[gnu::always_inline]] void schedule_batched(TimeNs time_ns, uint32_t key, HandlerId handler, const T& payload) {
    if (key >= batches_.size()) {
      schedule(time_ns, handler, payload);
      return;
    }
    Batch& batch = batches_[key];
    if (batch.time_ns == time_ns && (time_ns > now_ns_ || current_sequence_ <= batch.last_sequence)) {
      // Most joins come from the batch's running last member (a 0 ns step
      // of it): the new one runs next, first in now's bucket of one time.
      const uint64_t sequence = batch.last_sequence + 1;
      if (time_ns == now_ns_ && current_sequence_ == batch.last_sequence && unit_buckets_only_ &&
          sequence % kBatchStep != 0 && free_ != kNone) {
        batch.last_sequence = sequence;
        ++batch_members_;
        const uint32_t index = new_node(time_ns, sequence, handler, static_cast<uint8_t>(T::kKind), EventData::of(payload));
        const uint32_t bucket = static_cast<uint32_t>(time_ns) & kMask;
        Bucket& list = buckets_[bucket];
        if (list.head == kNone) {
          link_at_tail(bucket, index);
        } else {
          nodes_[index].next = list.head;
          list.head = index;
        }
        ++pending_;
        set_calendar_first(index, bucket);
        return;
      }
      join_batch(batch, time_ns, handler, static_cast<uint8_t>(T::kKind), EventData::of(payload));
      return;
    }
    batch.time_ns = time_ns;
    batch.last_sequence = next_sequence_;
    schedule(time_ns, handler, payload);
  }

  // The sequence number an event scheduled now would get; it is used up.
  [[nodiscard]] uint64_t reserve_sequence() {
    ++unused_reservations_;
    const uint64_t sequence = next_sequence_;
    next_sequence_ += sequence_step_;
    return sequence;
  }
  // Schedules an event with a sequence number reserved earlier: it runs
  // where it would have run had it been scheduled at the reservation.
  // Precondition: after_current(time_ns, sequence).
  template <EventPayload T>
  [[gnu::always_inline]] void schedule_reserved(TimeNs time_ns, uint64_t sequence, HandlerId handler,
                                                const T& payload) {
    --unused_reservations_;
    // Into the delay's lane when it goes last there (a sequence reserved
    // just now), else into the calendar.
    if (lanes_enabled_ && time_ns >= now_ns_) {
      const uint32_t lane = lane_of(time_ns - now_ns_);
      if (lane != kNone && goes_last(lane, time_ns, sequence)) {
        append_to_lane(lane, Slot{EventData::of(payload), time_ns,
                                  pack(sequence, handler, static_cast<uint8_t>(T::kKind))});
        ++pending_;
        return;
      }
    }
    schedule_general(time_ns, sequence, handler, static_cast<uint8_t>(T::kKind), EventData::of(payload));
  }
  // Whether an event at (time_ns, sequence) comes after the event popped
  // last (before anything was popped: after time 0, sequence 0).
  [[nodiscard]] bool after_current(TimeNs time_ns, uint64_t sequence) const {
    return time_ns > now_ns_ || (time_ns == now_ns_ && sequence > current_sequence_);
  }

  [[nodiscard]] bool empty() const { return pending_ == 0; }
  // The time of the event pop() would return (a loop driven by another
  // clock stops before it). Precondition: !empty().
  [[nodiscard]] TimeNs next_time() const { return lane_first() ? lane_head().time_ns : cal_time_; }
  [[nodiscard]] TimeNs now() const { return now_ns_; }
  // Every sequence number went to an event, except the reserved ones not
  // scheduled (yet); those events not pending have been popped.
  [[nodiscard]] uint64_t events_processed() const {
    return (next_sequence_ - 1) / sequence_step_ + batch_members_ - unused_reservations_ - pending_;
  }
  [[nodiscard]] uint64_t pending() const { return pending_; }
  // Nodes the calendar's pool holds (its high-water mark of pending events).
  [[nodiscard]] size_t pool_capacity() const { return nodes_.size(); }

  // Removes and returns the earliest event (FIFO among equal times); the
  // clock moves to its time. Precondition: !empty().
  [[gnu::always_inline]] Event pop() {
    Event event;
    if (lane_first()) {
      const Slot& slot = lane_head();
      event = Event{slot.time_ns, slot.data, handler_of(slot.tag), kind_of(slot.tag)};
      pop_lane(lanes_[top_lane()]);
    } else {
      const Node& node = nodes_[cal_node_];
      event = Event{node.time_ns, node.data, node.handler, node.kind};
      pop_calendar();
    }
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
    // A lane's head when one comes first (with no lane open, one test),
    // else the calendar's earliest, if any: no separate emptiness test.
    if (lane_first()) {
      Lane& lane = lanes_[top_lane()];
      const Slot& slot = lane.ring[lane.head];
      if (handler_of(slot.tag) != handler) return false;
      kind = kind_of(slot.tag);
      data = slot.data;
      pop_lane(lane);
      return true;
    }
    if (cal_node_ == kNone) return false;
    const Node& node = nodes_[cal_node_];
    if (node.handler != handler) return false;
    kind = node.kind;
    data = node.data;
    pop_calendar();
    return true;
  }

 private:
  static constexpr uint32_t kMask = kBuckets - 1;
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr TimeNs kNever = UINT64_MAX;
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
  // A key's latest batch: its time and the sequence of its last member.
  struct Batch {
    TimeNs time_ns = UINT64_MAX;
    uint64_t last_sequence = 0;
  };
  // A far event: a node with its order.
  struct Keyed {
    TimeNs time_ns;
    uint64_t sequence;
    uint32_t node;
  };
  // A lane's event in 32 bytes: sequence << 16 | handler << 8 | kind (a
  // sequence below 2^48: years of events at any rate this model reaches).
  struct Slot {
    EventData data;
    TimeNs time_ns;
    uint64_t tag;
  };
  // A ring of a power-of-two capacity.
  struct Lane {
    std::unique_ptr<Slot[]> ring;
    uint32_t capacity = 0, head = 0, size = 0;
    uint32_t uses = 0;  // appends in the current vote window
    TimeNs delay = kNever;
  };
  // (time, sequence) order as one 128-bit number: time << 64 | sequence
  // << 16 | low bits (a lane's index in the lane heap, all ones for the
  // calendar; sequences are unique, so the low bits never decide).
  __extension__ using Key = unsigned __int128;
  static constexpr Key kNoKey = ~Key{0};
  static Key key_of(TimeNs time_ns, uint64_t tag_bits) { return Key{time_ns} << 64 | tag_bits; }
  // The lane of a delay (delay kNever: none).
  struct LaneOf {
    TimeNs delay = kNever;
    uint32_t lane = 0;
  };
  // Promotion votes of a delay table slot.
  struct LaneVote {
    TimeNs delay = kNever;
    uint32_t seen = 0;
  };
  static constexpr uint32_t kLaneTableBits = 8;
  static constexpr uint32_t kLaneTableMask = (uint32_t{1} << kLaneTableBits) - 1;

  static uint64_t pack(uint64_t sequence, HandlerId handler, uint8_t kind) {
    return sequence << 16 | uint64_t{handler} << 8 | kind;
  }
  static HandlerId handler_of(uint64_t tag) { return static_cast<HandlerId>(tag >> 8); }
  static uint8_t kind_of(uint64_t tag) { return static_cast<uint8_t>(tag); }
  static uint32_t lane_hash(TimeNs delay) {
    return static_cast<uint32_t>((delay * 0x9E3779B97F4A7C15ull) >> (64 - kLaneTableBits));
  }

  [[nodiscard]] uint32_t bucket_of(TimeNs time_ns) const {
    return static_cast<uint32_t>(time_ns >> bucket_bits_) & kMask;
  }
  // The lane of `delay` (kNone: none); the delay table is probed linearly.
  [[gnu::always_inline]] uint32_t lane_of(TimeNs delay) const {
    for (uint32_t h = lane_hash(delay);; h = (h + 1) & kLaneTableMask) {
      if (lane_of_[h].delay == delay) return lane_of_[h].lane;
      if (lane_of_[h].delay == kNever) return kNone;
    }
  }
  // Whether the next event is a lane's (the earliest lane head comes
  // before the calendar's earliest event; an empty lane heap's top is
  // kNoKey). Precondition: !empty().
  [[nodiscard]] bool lane_first() const {
    return lane_heap_size_ != 0 && lane_heap_[0] < key_of(cal_time_, cal_sequence() << 16 | 0xFFFF);
  }
  [[nodiscard]] uint32_t top_lane() const { return static_cast<uint32_t>(lane_heap_[0]) & 0xFFFF; }
  [[nodiscard]] const Slot& lane_head() const {
    const Lane& lane = lanes_[top_lane()];
    return lane.ring[lane.head];
  }
  // Removes the head of `lane`, the lane heap's top.
  [[gnu::always_inline]] void pop_lane(Lane& lane) {
    const Slot& slot = lane.ring[lane.head];
    now_ns_ = slot.time_ns;
    current_sequence_ = slot.tag >> 16;
    lane.head = (lane.head + 1) & (lane.capacity - 1);
    --pending_;
    --lane_pending_;
    ++lane_processed_;
    if (--lane.size != 0) {
      const Slot& next = lane.ring[lane.head];
      sift_lane_heap(key_of(next.time_ns, (next.tag & ~uint64_t{0xFFFF}) | top_lane()));
    } else {
      const Key last = lane_heap_[--lane_heap_size_];
      lane_heap_[lane_heap_size_] = kNoKey;
      if (lane_heap_size_ != 0) sift_lane_heap(last);
    }
  }
  // Puts `key` at the lane heap's top and sifts it down.
  [[gnu::always_inline]] void sift_lane_heap(Key key) {
    uint32_t i = 0;
    while (true) {
      uint32_t child = 2 * i + 1;
      if (child >= lane_heap_size_) break;
      if (child + 1 < lane_heap_size_ && lane_heap_[child + 1] < lane_heap_[child]) ++child;
      if (key < lane_heap_[child]) break;
      lane_heap_[i] = lane_heap_[child];
      i = child;
    }
    lane_heap_[i] = key;
  }
  [[gnu::always_inline]] void append_to_lane(uint32_t lane_index, const Slot& slot) {
    Lane& lane = lanes_[lane_index];
    if (lane.size == lane.capacity) grow_lane(lane);
    ++lane.uses;
    ++lane_pending_;
    lane.ring[(lane.head + lane.size) & (lane.capacity - 1)] = slot;
    if (lane.size++ == 0) push_lane_head(key_of(slot.time_ns, (slot.tag & ~uint64_t{0xFFFF}) | lane_index));
  }
  [[gnu::noinline]] void grow_lane(Lane& lane);
  // Whether an event at (time_ns, sequence) comes after every event of the
  // lane (so that appending it keeps the lane in order).
  [[nodiscard]] bool goes_last(uint32_t lane_index, TimeNs time_ns, uint64_t sequence) const {
    const Lane& lane = lanes_[lane_index];
    if (lane.size == 0) return after_current(time_ns, sequence);
    const Slot& tail = lane.ring[(lane.head + lane.size - 1) & (lane.capacity - 1)];
    return tail.time_ns < time_ns || (tail.time_ns == time_ns && (tail.tag >> 16) < sequence);
  }
  void push_lane_head(Key key);
  // A calendar event `delay` after now: promotes the delay to a lane once
  // it has been seen often enough.
  void count_delay(TimeNs delay);

  // A new event (the newest sequence) with lanes on: into its delay's lane,
  // else into the calendar, where its delay is counted towards a lane.
  [[gnu::always_inline]] void schedule_with_lanes(TimeNs time_ns, uint64_t sequence, HandlerId handler, uint8_t kind,
                                                  const EventData& data) {
    if (time_ns < now_ns_) {
      schedule_general(time_ns, sequence, handler, kind, data);  // throws
      return;
    }
    const TimeNs delay = time_ns - now_ns_;
    const uint32_t lane = lane_of(delay);
    if (lane != kNone) {
      append_to_lane(lane, Slot{data, time_ns, pack(sequence, handler, kind)});
      ++pending_;
      return;
    }
    const bool placed = schedule_in_window(time_ns, sequence, handler, kind, data);
    count_delay(delay);
    if (!placed) schedule_general(time_ns, sequence, handler, kind, data);
  }
  // A new event inside the window, with buckets of one unit: it goes last.
  [[gnu::always_inline]] void schedule_in_unit_bucket(TimeNs time_ns, uint64_t sequence, HandlerId handler,
                                                      uint8_t kind, const EventData& data) {
    const uint32_t index = new_node(time_ns, sequence, handler, kind, data);
    const uint32_t bucket = static_cast<uint32_t>(time_ns) & kMask;
    link_at_tail(bucket, index);
    ++pending_;
    if (time_ns < cal_time_) set_calendar_first(index, bucket);
  }
  // A new event into its bucket when it falls inside the window; false
  // (nothing done) otherwise.
  [[gnu::always_inline]] bool schedule_in_window(TimeNs time_ns, uint64_t sequence, HandlerId handler, uint8_t kind,
                                                 const EventData& data) {
    // Less than kBuckets units after now (unsigned: a past time is not) is
    // inside the window at every width; one subtraction decides most.
    if (time_ns - now_ns_ >= kBuckets &&
        (time_ns < now_ns_ || (time_ns >> bucket_bits_) - (now_ns_ >> bucket_bits_) >= kBuckets)) {
      return false;
    }
    const uint32_t index = new_node(time_ns, sequence, handler, kind, data);
    const uint32_t bucket = bucket_of(time_ns);
    const uint32_t tail = buckets_[bucket].tail;
    // The newest sequence goes last unless a later time is already there
    // (never in buckets of one unit: a bucket then holds a single time).
    if (bucket_bits_ == 0 || tail == kNone || nodes_[tail].time_ns <= time_ns) {
      link_at_tail(bucket, index);
    } else {
      insert_sorted(bucket, index);
    }
    ++pending_;
    // The newest sequence is the calendar's earliest only by its time.
    if (time_ns < cal_time_) set_calendar_first(index, bucket);
    return true;
  }
  // Removes the calendar's earliest event; the clock moves to its time.
  [[gnu::always_inline]] void pop_calendar() {
    const uint32_t index = cal_node_;
    Node& node = nodes_[index];
    now_ns_ = node.time_ns;
    current_sequence_ = node.sequence;
    uint32_t next_in_bucket = kNone;
    if (cal_bucket_ == kNone) {
      pop_far();
    } else {
      const uint32_t bucket = cal_bucket_;
      Bucket& list = buckets_[bucket];
      next_in_bucket = node.next;
      list.head = next_in_bucket;
      if (next_in_bucket == kNone) {
        list.tail = kNone;
        occupied_[bucket >> 6] &= ~(uint64_t{1} << (bucket & 63));
      }
    }
    node.next = free_;
    free_ = index;
    --pending_;
    // Mostly the next one in the same bucket (a far event may come first).
    // A bucket one unit wide holds a single time: only the node changes.
    if (next_in_bucket != kNone && far_.empty()) {
      cal_node_ = next_in_bucket;
      if (bucket_bits_ != 0) cal_time_ = nodes_[next_in_bucket].time_ns;
    } else {
      find_calendar_first();
    }
  }
  // The calendar's earliest event is node `index`, in `bucket` (kNone: the
  // far heap's top).
  void set_calendar_first(uint32_t index, uint32_t bucket) {
    cal_node_ = index;
    cal_bucket_ = bucket;
    cal_time_ = nodes_[index].time_ns;
  }
  // The calendar's earliest event's sequence (read where lanes or a
  // reserved sequence need it, not kept up to date on every pop).
  [[nodiscard]] uint64_t cal_sequence() const { return cal_node_ == kNone ? 0 : nodes_[cal_node_].sequence; }
  // Events in buckets and the far heap, and calendar pops (the adaptive
  // width's clock): the lanes keep their own counts, so that the
  // calendar's own path updates only the totals.
  [[nodiscard]] uint64_t cal_pending() const { return pending_ - lane_pending_; }
  [[nodiscard]] uint64_t cal_processed() const { return events_processed() - lane_processed_; }
  // Looks up the calendar's earliest event: the first occupied bucket from
  // now's on, or the far heap's top if it comes first.
  void find_calendar_first();
  void pop_far();
  [[gnu::always_inline]] uint32_t new_node(TimeNs time_ns, uint64_t sequence, HandlerId handler, uint8_t kind,
                                           const EventData& data) {
    if (free_ == kNone) grow_pool();
    const uint32_t index = free_;
    Node& node = nodes_[index];
    free_ = node.next;
    // Word by word: the payload's words come in registers, where a 16-byte
    // copy would go through the stack.
    node.data.words[0] = data.words[0];
    node.data.words[1] = data.words[1];
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
  // Adds an event to `batch`, right after its last member (schedule_batched
  // places a join from the running last member itself).
  void join_batch(Batch& batch, TimeNs time_ns, HandlerId handler, uint8_t kind, const EventData& data);
  // Adds free nodes; out of line so that scheduling stays a leaf.
  [[gnu::noinline]] void grow_pool();
  // Adaptive width: every kReviewEvents calendar pops, the walk of sorted
  // insertions, the scan for the next bucket and the far heap's share
  // decide whether to halve or double it.
  void review_bucket_width();
  // Re-files every calendar event under buckets of 2^bits units.
  void rebucket(uint32_t bits);

  static constexpr uint64_t kReviewEvents = 1 << 16;
  uint32_t bucket_bits_ = 0;
  bool adaptive_ = false;
  bool lanes_enabled_ = false;
  bool unit_buckets_only_ = true;  // bucket_bits_ 0 and lanes off: schedule_raw's own path
  uint32_t max_bucket_bits_ = 0;
  // Since the last review: bitmap words scanned, nodes walked by sorted
  // insertions, events sent to the far heap.
  uint64_t scanned_ = 0, walked_ = 0, far_pushes_ = 0;
  uint64_t next_review_ = 0;     // cal_processed() at the next review
  uint64_t lane_pending_ = 0;    // events in lanes
  uint64_t lane_processed_ = 0;  // lane pops
  uint64_t width_changes_ = 0;
  std::vector<Keyed> refile_;  // scratch of rebucket()
  std::vector<Node> nodes_;
  std::vector<Bucket> buckets_;
  std::vector<uint64_t> occupied_;
  std::vector<Keyed> far_;  // binary min-heap on (time, sequence)
  // The calendar's earliest event (cal_node_ kNone, cal_time_ kNever: none;
  // a lane head's time is never kNever, so lane_first() needs no check).
  uint32_t cal_node_ = kNone;
  uint32_t cal_bucket_ = kNone;
  TimeNs cal_time_ = kNever;
  Lane lanes_[kMaxLanes];
  uint32_t lane_count_ = 0;
  // The non-empty lanes' head keys, a binary min-heap; kNoKey past its end.
  Key lane_heap_[kMaxLanes + 1];
  uint32_t lane_heap_size_ = 0;
  LaneOf lane_of_[uint32_t{1} << kLaneTableBits];      // at most kMaxLanes used: probes stay short
  LaneVote lane_votes_[uint32_t{1} << kLaneTableBits];  // direct-mapped
  uint32_t votes_cast_ = 0;                              // in the current window
  uint32_t free_ = kNone;
  uint64_t next_sequence_ = 1;
  uint64_t sequence_step_ = 1;  // kBatchStep with batches on
  uint64_t batch_members_ = 0;  // events that joined a batch (no sequence step of their own)
  std::vector<Batch> batches_;  // per key, with batches on
  uint64_t current_sequence_ = 0;
  uint64_t pending_ = 0;
  uint64_t unused_reservations_ = 0;  // reserved sequence numbers not scheduled
  TimeNs now_ns_ = 0;
};

}  // namespace snr::dsim
