#include "dsim/core/event_queue.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "common/error.h"

namespace snr::dsim {
namespace {

// Heap order for far events: earliest time first, then scheduling order.
bool later(const auto& x, const auto& y) {
  return x.time_ns != y.time_ns ? x.time_ns > y.time_ns : x.sequence > y.sequence;
}

}  // namespace

EventQueue::EventQueue()
    : heads_(kWindowNs, kNone), tails_(kWindowNs, kNone), occupied_(kWindowNs / 64, 0) {}

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

void EventQueue::schedule_far(TimeNs time_ns, HandlerId handler, uint8_t kind, const EventData& data) {
  if (time_ns < now_ns_) {
    throw Error(fmt::format("event queue: event kind {} of handler {} scheduled at {} ns, before now ({} ns)",
                            kind, handler, time_ns, now_ns_));
  }
  far_.push_back(FarEvent{time_ns, far_sequence_++, data, handler, kind});
  std::push_heap(far_.begin(), far_.end(), [](const FarEvent& x, const FarEvent& y) { return later(x, y); });
}

uint32_t EventQueue::advance_to_next_time() {
  // Nearest occupied bucket after now, scanning the bitmap circularly.
  const uint32_t start = (static_cast<uint32_t>(now_ns_) + 1) & kMask;
  const size_t words = occupied_.size();
  size_t word = start >> 6;
  uint64_t bits = occupied_[word] & (~uint64_t{0} << (start & 63));
  TimeNs distance = 0;
  bool found = false;
  for (size_t scanned = 0; scanned <= words; ++scanned) {
    if (bits != 0) {
      const auto bucket = static_cast<uint32_t>(word * 64 + static_cast<size_t>(std::countr_zero(bits)));
      distance = (bucket - static_cast<uint32_t>(now_ns_)) & kMask;
      found = true;
      break;
    }
    word = (word + 1) % words;
    bits = occupied_[word];
  }
  // Far events are never inside the window, so any bucket event comes first.
  if (found) {
    now_ns_ += distance;
  } else {
    now_ns_ = far_.front().time_ns;
  }
  const auto cmp = [](const FarEvent& x, const FarEvent& y) { return later(x, y); };
  while (!far_.empty() && far_.front().time_ns - now_ns_ < kWindowNs) {
    std::pop_heap(far_.begin(), far_.end(), cmp);
    const FarEvent& event = far_.back();
    append_to_bucket(event.time_ns, event.handler, event.kind, event.data);
    far_.pop_back();
  }
  return static_cast<uint32_t>(now_ns_) & kMask;
}

}  // namespace snr::dsim
