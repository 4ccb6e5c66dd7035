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

EventQueue::EventQueue() : buckets_(kBuckets), occupied_(kBuckets / 64, 0) {}

void EventQueue::set_bucket_width_bits(uint32_t bits) {
  if (bits > kMaxBucketWidthBits) {
    throw Error(fmt::format("event queue: buckets of 2^{} time units, more than 2^{}", bits, kMaxBucketWidthBits));
  }
  if (pending_ != 0) {
    throw Error(fmt::format("event queue: bucket width changed with {} events pending", pending_));
  }
  bucket_bits_ = bits;
  adaptive_ = false;
}

void EventQueue::set_adaptive_bucket_width(uint32_t initial_bits, uint32_t max_bits) {
  if (max_bits > kMaxBucketWidthBits || initial_bits > max_bits) {
    throw Error(fmt::format("event queue: adaptive buckets of 2^{} time units up to 2^{} (at most 2^{})",
                            initial_bits, max_bits, kMaxBucketWidthBits));
  }
  set_bucket_width_bits(initial_bits);
  adaptive_ = true;
  max_bucket_bits_ = max_bits;
  buckets_reached_ = 0;
  next_review_ = processed_ + kReviewEvents;
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
  place(new_node(time_ns, sequence, handler, kind, data));
  ++pending_;
}

void EventQueue::place(uint32_t index) {
  const Node& node = nodes_[index];
  if ((node.time_ns >> bucket_bits_) - (now_ns_ >> bucket_bits_) >= kBuckets) {
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
  while (later(node, nodes_[*link])) link = &nodes_[*link].next;
  nodes_[index].next = *link;
  *link = index;
}

uint32_t EventQueue::advance_to_next_bucket() {
  ++buckets_reached_;
  if (adaptive_ && processed_ >= next_review_) review_bucket_width();
  const uint32_t current = bucket_of(now_ns_);
  if (buckets_[current].head != kNone) return current;  // widened over later events
  // The nearest occupied bucket after the current one, scanning the bitmap
  // circularly; far events are never inside the window, so it comes first.
  const uint32_t start = (current + 1) & kMask;
  const size_t words = occupied_.size();
  size_t word = start >> 6;
  uint64_t bits = occupied_[word] & (~uint64_t{0} << (start & 63));
  bool found = false;
  for (size_t scanned = 0; scanned <= words; ++scanned) {
    if (bits != 0) {
      const auto bucket = static_cast<uint32_t>(word * 64 + static_cast<size_t>(std::countr_zero(bits)));
      const TimeNs distance = (bucket - current) & kMask;
      now_ns_ = ((now_ns_ >> bucket_bits_) + distance) << bucket_bits_;
      found = true;
      break;
    }
    word = (word + 1) % words;
    bits = occupied_[word];
  }
  if (!found) now_ns_ = far_.front().time_ns;
  while (!far_.empty() && (far_.front().time_ns >> bucket_bits_) - (now_ns_ >> bucket_bits_) < kBuckets) {
    std::pop_heap(far_.begin(), far_.end(), kLater);
    const uint32_t index = far_.back().node;
    far_.pop_back();
    place(index);
  }
  return bucket_of(now_ns_);
}

void EventQueue::review_bucket_width() {
  // Between 2 and 8 events per bucket: insertions mostly append and a pop
  // mostly finds its successor in the same bucket.
  const uint64_t events = processed_ - (next_review_ - kReviewEvents);
  const uint64_t per_bucket = events / std::max<uint64_t>(buckets_reached_, 1);
  if (per_bucket > 8 && bucket_bits_ > 0) {
    rebucket(bucket_bits_ - 1);
  } else if (per_bucket < 2 && bucket_bits_ < max_bucket_bits_) {
    rebucket(bucket_bits_ + 1);
  }
  buckets_reached_ = 0;
  next_review_ = processed_ + kReviewEvents;
}

void EventQueue::rebucket(uint32_t bits) {
  // Called with the current bucket used up: every pending event is in
  // another bucket or the far heap.
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
  ++width_changes_;
  // In order, so that every one goes last in its bucket.
  std::sort(refile_.begin(), refile_.end(), [](const Keyed& x, const Keyed& y) { return later(y, x); });
  for (const Keyed& event : refile_) {
    nodes_[event.node].next = kNone;
    place(event.node);
  }
}

}  // namespace snr::dsim
