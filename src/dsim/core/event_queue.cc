#include "dsim/core/event_queue.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "common/error.h"

namespace snr::dsim {
namespace {

// Heap order: earliest time first, then scheduling order.
bool later(const auto& x, const auto& y) {
  return x.time_ns != y.time_ns ? x.time_ns > y.time_ns : x.sequence > y.sequence;
}
constexpr auto kLater = [](const auto& x, const auto& y) { return later(x, y); };

}  // namespace

EventQueue::EventQueue() : buckets_(kBuckets), occupied_(kBuckets / 64, 0) {
  std::fill(std::begin(lane_heap_), std::end(lane_heap_), kNoKey);
}

void EventQueue::set_bucket_width_bits(uint32_t bits) {
  if (bits > kMaxBucketWidthBits) {
    throw Error(fmt::format("event queue: buckets of 2^{} time units, more than 2^{}", bits, kMaxBucketWidthBits));
  }
  if (pending_ != 0) {
    throw Error(fmt::format("event queue: bucket width changed with {} events pending", pending_));
  }
  bucket_bits_ = bits;
  adaptive_ = false;
  unit_buckets_only_ = bits == 0 && !lanes_enabled_;
}

void EventQueue::set_adaptive_bucket_width(uint32_t initial_bits, uint32_t max_bits) {
  if (max_bits > kMaxBucketWidthBits || initial_bits > max_bits) {
    throw Error(fmt::format("event queue: adaptive buckets of 2^{} time units up to 2^{} (at most 2^{})",
                            initial_bits, max_bits, kMaxBucketWidthBits));
  }
  set_bucket_width_bits(initial_bits);
  adaptive_ = true;
  max_bucket_bits_ = max_bits;
  scanned_ = walked_ = far_pushes_ = 0;
  next_review_ = cal_processed() + kReviewEvents;
}

void EventQueue::enable_delay_lanes() {
  if (sequence_step_ != 1) throw Error("event queue: delay lanes are not turned on with batches");
  lanes_enabled_ = true;
  unit_buckets_only_ = false;
}

void EventQueue::enable_batches(uint32_t keys) {
  if (next_sequence_ != 1 || lanes_enabled_) {
    throw Error("event queue: batches are turned on before the first event and without delay lanes");
  }
  sequence_step_ = kBatchStep;
  batches_.assign(keys, Batch{});
}

void EventQueue::join_batch(Batch& batch, TimeNs time_ns, HandlerId handler, uint8_t kind, const EventData& data) {
  const uint64_t sequence = ++batch.last_sequence;
  if (sequence % kBatchStep == 0) {
    throw Error(fmt::format("event queue: more than {} events in one batch at {}", kBatchStep - 1, time_ns));
  }
  ++batch_members_;
  // In (time, sequence) order: right after the batch's last member.
  schedule_general(time_ns, sequence, handler, kind, data);
}

void EventQueue::grow_pool() {
  // Doubling keeps growth amortized; the new nodes are chained onto the
  // free list in index order.
  const auto old_size = static_cast<uint32_t>(nodes_.size());
  const uint32_t new_size = old_size == 0 ? 1024 : 2 * old_size;
  nodes_.resize(new_size);
  for (uint32_t i = new_size; i-- > old_size;) {
    nodes_[i].next = free_;
    free_ = i;
  }
}

void EventQueue::schedule_general(TimeNs time_ns, uint64_t sequence, HandlerId handler, uint8_t kind,
                                  const EventData& data) {
  if (!after_current(time_ns, sequence)) {
    throw Error(fmt::format("event queue: event kind {} of handler {} scheduled at {} (sequence {}), before now ({}, "
                            "sequence {})",
                            kind, handler, time_ns, sequence, now_ns_, current_sequence_));
  }
  const uint32_t index = new_node(time_ns, sequence, handler, kind, data);
  place(index);
  ++pending_;
  if (cal_node_ == kNone || time_ns < cal_time_ || (time_ns == cal_time_ && sequence < cal_sequence())) {
    // Placed in the far heap it is that heap's top too.
    const bool far = (time_ns >> bucket_bits_) - (now_ns_ >> bucket_bits_) >= kBuckets;
    set_calendar_first(index, far ? kNone : bucket_of(time_ns));
  }
}

void EventQueue::place(uint32_t index) {
  const Node& node = nodes_[index];
  if ((node.time_ns >> bucket_bits_) - (now_ns_ >> bucket_bits_) >= kBuckets) {
    ++far_pushes_;
    far_.push_back(Keyed{node.time_ns, node.sequence, index});
    std::push_heap(far_.begin(), far_.end(), kLater);
    return;
  }
  const uint32_t bucket = bucket_of(node.time_ns);
  const uint32_t tail = buckets_[bucket].tail;
  if (tail == kNone || later(node, nodes_[tail])) {
    link_at_tail(bucket, index);
  } else {
    insert_sorted(bucket, index);
  }
}

void EventQueue::insert_sorted(uint32_t bucket, uint32_t index) {
  const Node& node = nodes_[index];
  uint32_t* link = &buckets_[bucket].head;
  while (later(node, nodes_[*link])) {
    link = &nodes_[*link].next;
    ++walked_;
  }
  nodes_[index].next = *link;
  *link = index;
}

void EventQueue::pop_far() {
  std::pop_heap(far_.begin(), far_.end(), kLater);
  far_.pop_back();
}

void EventQueue::find_calendar_first() {
  if (adaptive_ && cal_processed() >= next_review_) review_bucket_width();
  cal_node_ = kNone;
  cal_bucket_ = kNone;
  cal_time_ = kNever;
  const uint64_t cal_pending = this->cal_pending();
  if (cal_pending == 0) return;
  // Every bucketed event lies within the window from now: the first
  // occupied bucket from now's on, circularly, holds the earliest.
  const uint32_t current = bucket_of(now_ns_);
  uint32_t found = buckets_[current].head != kNone ? current : kNone;
  if (found == kNone && cal_pending > far_.size()) {
    const uint32_t start = (current + 1) & kMask;
    const size_t words = occupied_.size();
    size_t word = start >> 6;
    uint64_t bits = occupied_[word] & (~uint64_t{0} << (start & 63));
    for (size_t scanned = 0; scanned <= words; ++scanned, ++scanned_) {
      if (bits != 0) {
        found = static_cast<uint32_t>(word * 64 + static_cast<size_t>(std::countr_zero(bits)));
        break;
      }
      word = (word + 1) % words;
      bits = occupied_[word];
    }
  }
  if (found != kNone) set_calendar_first(buckets_[found].head, found);
  if (!far_.empty() && (found == kNone || later(nodes_[cal_node_], far_.front()))) {
    set_calendar_first(far_.front().node, kNone);
  }
}

void EventQueue::review_bucket_width() {
  const uint64_t events = std::max<uint64_t>(cal_processed() - (next_review_ - kReviewEvents), 1);
  // Doubling when a sixteenth of the events goes beyond the window (each
  // costs a heap push and pop) or when finding the next event scans more
  // than sixteen bitmap words (a thousand empty buckets) on average;
  // halving when sorted insertions walk more than one node per eight
  // events (each node a likely cache miss, where a scanned word is not).
  // Not halving while a sixty-fourth goes far already: the next review
  // would double it again.
  if (bucket_bits_ < max_bucket_bits_ && (far_pushes_ * 16 > events || scanned_ > 16 * events)) {
    rebucket(bucket_bits_ + 1);
  } else if (bucket_bits_ > 0 && walked_ * 8 > events && far_pushes_ * 64 < events) {
    rebucket(bucket_bits_ - 1);
  }
  scanned_ = walked_ = far_pushes_ = 0;
  next_review_ = cal_processed() + kReviewEvents;
}

void EventQueue::rebucket(uint32_t bits) {
  refile_.clear();
  for (size_t word = 0; word < occupied_.size(); ++word) {
    for (uint64_t set = occupied_[word]; set != 0; set &= set - 1) {
      const size_t bucket = word * 64 + static_cast<size_t>(std::countr_zero(set));
      for (uint32_t i = buckets_[bucket].head; i != kNone; i = nodes_[i].next) {
        refile_.push_back(Keyed{nodes_[i].time_ns, nodes_[i].sequence, i});
      }
      buckets_[bucket] = Bucket{};
    }
    occupied_[word] = 0;
  }
  refile_.insert(refile_.end(), far_.begin(), far_.end());
  far_.clear();
  bucket_bits_ = bits;
  unit_buckets_only_ = bits == 0 && !lanes_enabled_;
  ++width_changes_;
  // In order, so that every one goes last in its bucket.
  std::sort(refile_.begin(), refile_.end(), [](const Keyed& x, const Keyed& y) { return later(y, x); });
  for (const Keyed& event : refile_) {
    nodes_[event.node].next = kNone;
    place(event.node);
  }
}

void EventQueue::count_delay(TimeNs delay) {
  if (++votes_cast_ == kLaneVoteWindow) {
    votes_cast_ = 0;
    std::fill(std::begin(lane_votes_), std::end(lane_votes_), LaneVote{});
    for (uint32_t l = 0; l < lane_count_; ++l) lanes_[l].uses = 0;
  }
  // A majority vote per table slot: a delay that keeps coming wins its
  // slot against occasional others and gets a lane.
  LaneVote& vote = lane_votes_[lane_hash(delay)];
  if (vote.delay != delay) {
    if (vote.seen > 0) {
      --vote.seen;
      return;
    }
    vote.delay = delay;
  }
  if (++vote.seen < kLanePromotion || lane_of(delay) != kNone) return;
  if (lane_count_ < kMaxLanes) {
    lanes_[lane_count_].delay = delay;
    uint32_t h = lane_hash(delay);
    while (lane_of_[h].delay != kNever) h = (h + 1) & kLaneTableMask;
    lane_of_[h] = LaneOf{delay, lane_count_++};
    return;
  }
  // All taken: the least used empty lane, if it was used less than this
  // delay was seen, changes delays (empty, it holds no order to keep).
  uint32_t victim = kNone;
  for (uint32_t l = 0; l < kMaxLanes; ++l) {
    const Lane& lane = lanes_[l];
    if (lane.size == 0 && lane.uses < vote.seen && (victim == kNone || lane.uses < lanes_[victim].uses)) victim = l;
  }
  if (victim == kNone) return;
  lanes_[victim].delay = delay;
  lanes_[victim].uses = 0;
  vote.seen = 0;
  std::fill(std::begin(lane_of_), std::end(lane_of_), LaneOf{});
  for (uint32_t l = 0; l < kMaxLanes; ++l) {
    uint32_t h = lane_hash(lanes_[l].delay);
    while (lane_of_[h].delay != kNever) h = (h + 1) & kLaneTableMask;
    lane_of_[h] = LaneOf{lanes_[l].delay, l};
  }
}

void EventQueue::grow_lane(Lane& lane) {
  const uint32_t capacity = std::max<uint32_t>(64, 2 * lane.capacity);
  auto ring = std::make_unique<Slot[]>(capacity);
  for (uint32_t i = 0; i < lane.size; ++i) ring[i] = lane.ring[(lane.head + i) & (lane.capacity - 1)];
  lane.ring = std::move(ring);
  lane.capacity = capacity;
  lane.head = 0;
}

void EventQueue::push_lane_head(Key key) {
  // Sift up in the small heap of lane heads (at most kMaxLanes).
  uint32_t i = lane_heap_size_++;
  while (i > 0) {
    const uint32_t parent = (i - 1) / 2;
    if (!(key < lane_heap_[parent])) break;
    lane_heap_[i] = lane_heap_[parent];
    i = parent;
  }
  lane_heap_[i] = key;
}

}  // namespace snr::dsim
