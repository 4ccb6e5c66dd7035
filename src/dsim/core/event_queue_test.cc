#include "dsim/core/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "common/error.h"

namespace snr::dsim {
namespace {

TEST(EventQueue, SameTimeEventsRunInSchedulingOrder) {
  EventQueue queue;
  queue.schedule(5, EventKind::kBundleReady, 1);
  queue.schedule(5, EventKind::kBundleReady, 2);
  queue.schedule(3, EventKind::kBundleReady, 3);
  EXPECT_EQ(queue.pop().a, 3u);
  queue.schedule(5, EventKind::kBundleReady, 4);  // scheduled at 3, after 1 and 2
  EXPECT_EQ(queue.pop().a, 1u);
  EXPECT_EQ(queue.pop().a, 2u);
  EXPECT_EQ(queue.pop().a, 4u);
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.now(), 5u);
}

TEST(EventQueue, FarEventsKeepTheirPlaceAmongNearOnes) {
  EventQueue queue;
  const TimeNs far = 3 * EventQueue::kWindowNs + 7;
  queue.schedule(far, EventKind::kNetworkHop, 1);       // beyond the window
  queue.schedule(far - 10, EventKind::kNetworkHop, 2);  // beyond the window
  queue.schedule(far - 10 - EventQueue::kWindowNs / 2, EventKind::kNetworkHop, 3);
  EXPECT_EQ(queue.pop().a, 3u);
  // Now `far` is inside the window: a new event at `far` must follow event 1.
  queue.schedule(far, EventKind::kNetworkHop, 4);
  EXPECT_EQ(queue.pop().a, 2u);
  EXPECT_EQ(queue.pop().a, 1u);
  EXPECT_EQ(queue.pop().a, 4u);
  EXPECT_EQ(queue.now(), far);
}

TEST(EventQueue, MatchesAReferenceOrderOnRandomSchedules) {
  // Reference: (time, global scheduling sequence) order.
  std::mt19937_64 rng(42);
  EventQueue queue;
  std::vector<std::tuple<TimeNs, uint64_t, uint32_t>> reference;
  uint64_t sequence = 0;
  uint32_t id = 0;
  for (int i = 0; i < 200; ++i) {
    const TimeNs t = rng() % (4 * EventQueue::kWindowNs);
    reference.emplace_back(t, sequence++, id);
    queue.schedule(t, EventKind::kComputeDone, id++);
  }
  std::vector<uint32_t> popped;
  while (!queue.empty()) {
    const Event e = queue.pop();
    popped.push_back(e.a);
    // Schedule follow-ups at and after now, near and far.
    if (popped.size() < 5000 && rng() % 2 == 0) {
      const TimeNs delay = rng() % 3 == 0 ? 0 : rng() % (2 * EventQueue::kWindowNs);
      reference.emplace_back(e.time_ns + delay, sequence++, id);
      queue.schedule(e.time_ns + delay, EventKind::kComputeDone, id++);
    }
  }
  std::sort(reference.begin(), reference.end());
  ASSERT_EQ(popped.size(), reference.size());
  for (size_t i = 0; i < popped.size(); ++i) EXPECT_EQ(popped[i], std::get<2>(reference[i])) << "position " << i;
}

TEST(EventQueue, PoolGrowthKeepsSameTimeOrder) {
  // Thousands of events at one time (every NPU of a large ring at once):
  // the node pool grows several times while the bucket's FIFO holds.
  EventQueue queue;
  uint32_t next_id = 0;
  for (int i = 0; i < 3000; ++i) queue.schedule(10, EventKind::kBundleReady, next_id++);
  uint32_t expected = 0;
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(queue.pop().a, expected++);
  for (int i = 0; i < 6000; ++i) queue.schedule(10, EventKind::kBundleReady, next_id++);
  queue.schedule(11, EventKind::kBundleReady, UINT32_MAX);
  while (expected < next_id) ASSERT_EQ(queue.pop().a, expected++);
  EXPECT_EQ(queue.pop().a, UINT32_MAX);
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.events_processed(), 9001u);
}

TEST(EventQueue, PastEventIsAnError) {
  EventQueue queue;
  queue.schedule(100, EventKind::kComputeDone, 0);
  (void)queue.pop();
  EXPECT_THROW(queue.schedule(99, EventKind::kComputeDone, 0), Error);
}

}  // namespace
}  // namespace snr::dsim
