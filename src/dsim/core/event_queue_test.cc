#include "dsim/core/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "common/error.h"

namespace snr::dsim {
namespace {

struct Id {
  static constexpr uint8_t kKind = 7;
  uint32_t value;
};
uint32_t id_of(const Event& event) { return event.get<Id>().value; }

TEST(EventQueue, SameTimeEventsRunInSchedulingOrder) {
  EventQueue queue;
  queue.schedule(5, 0, Id{1});
  queue.schedule(5, 0, Id{2});
  queue.schedule(3, 0, Id{3});
  EXPECT_EQ(id_of(queue.pop()), 3u);
  queue.schedule(5, 0, Id{4});  // scheduled at 3, after 1 and 2
  EXPECT_EQ(id_of(queue.pop()), 1u);
  EXPECT_EQ(id_of(queue.pop()), 2u);
  EXPECT_EQ(id_of(queue.pop()), 4u);
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.now(), 5u);
}

// ASTRA-sim's per-system batches: a later event of a key's batch runs right
// after the batch's earlier ones, ahead of events queued in between; one
// scheduled for the current time while the batch runs runs next; once the
// batch has run, the key's next event at that time starts a new batch at
// the end.
TEST(EventQueue, BatchMembersRunWithTheirBatch) {
  EventQueue queue;
  queue.enable_batches(2);
  queue.schedule_batched(10, 0, 0, Id{1});  // key 0's batch at 10
  queue.schedule(10, 0, Id{2});
  queue.schedule_batched(10, 1, 0, Id{3});  // key 1's batch
  queue.schedule_batched(10, 0, 0, Id{4});  // joins key 0's: after 1, before 2
  queue.schedule(5, 0, Id{5});
  EXPECT_EQ(id_of(queue.pop()), 5u);
  queue.schedule_batched(10, 0, 0, Id{6});  // scheduled at 5: still joins
  EXPECT_EQ(id_of(queue.pop()), 1u);
  queue.schedule_batched(10, 0, 0, Id{7});  // while the batch runs: after 6
  EXPECT_EQ(id_of(queue.pop()), 4u);
  EXPECT_EQ(id_of(queue.pop()), 6u);
  EXPECT_EQ(id_of(queue.pop()), 7u);
  queue.schedule_batched(10, 0, 0, Id{8});  // the batch is still running (7 was its last)
  EXPECT_EQ(id_of(queue.pop()), 8u);
  EXPECT_EQ(id_of(queue.pop()), 2u);
  queue.schedule_batched(10, 0, 0, Id{9});  // key 0's batch has run: a new one, last
  EXPECT_EQ(id_of(queue.pop()), 3u);
  queue.schedule_batched(10, 1, 0, Id{10});  // key 1's batch is running (3): next
  EXPECT_EQ(id_of(queue.pop()), 10u);
  EXPECT_EQ(id_of(queue.pop()), 9u);
  queue.schedule_batched(10, 1, 0, Id{11});  // key 1's has run: a new one
  queue.schedule(10, 0, Id{12});
  EXPECT_EQ(id_of(queue.pop()), 11u);
  EXPECT_EQ(id_of(queue.pop()), 12u);
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.events_processed(), 12u);
}

TEST(EventQueue, BatchesKeepTheirOrderBeyondTheWindowAndRefuseLanes) {
  EventQueue queue;
  queue.enable_batches(1);
  const TimeNs far = 3 * EventQueue::kWindowNs;
  queue.schedule_batched(far, 0, 0, Id{1});
  queue.schedule(far, 0, Id{2});
  queue.schedule_batched(far, 0, 0, Id{3});
  EXPECT_EQ(id_of(queue.pop()), 1u);
  EXPECT_EQ(id_of(queue.pop()), 3u);
  EXPECT_EQ(id_of(queue.pop()), 2u);
  EXPECT_THROW(queue.enable_delay_lanes(), Error);
  EXPECT_THROW(queue.enable_batches(1), Error);  // events were scheduled
  // Without batches a batched event is a plain one.
  EventQueue plain;
  plain.schedule_batched(4, 0, 0, Id{1});
  plain.schedule(4, 0, Id{2});
  plain.schedule_batched(4, 0, 0, Id{3});
  EXPECT_EQ(id_of(plain.pop()), 1u);
  EXPECT_EQ(id_of(plain.pop()), 2u);
  EXPECT_EQ(id_of(plain.pop()), 3u);
}

TEST(EventQueue, FarEventsKeepTheirPlaceAmongNearOnes) {
  EventQueue queue;
  const TimeNs far = 3 * EventQueue::kWindowNs + 7;
  queue.schedule(far, 0, Id{1});       // beyond the window
  queue.schedule(far - 10, 0, Id{2});  // beyond the window
  queue.schedule(far - 10 - EventQueue::kWindowNs / 2, 0, Id{3});
  EXPECT_EQ(id_of(queue.pop()), 3u);
  // Now `far` is inside the window: a new event at `far` must follow event 1.
  queue.schedule(far, 0, Id{4});
  EXPECT_EQ(id_of(queue.pop()), 2u);
  EXPECT_EQ(id_of(queue.pop()), 1u);
  EXPECT_EQ(id_of(queue.pop()), 4u);
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
    queue.schedule(t, 0, Id{id++});
  }
  std::vector<uint32_t> popped;
  while (!queue.empty()) {
    const Event e = queue.pop();
    popped.push_back(e.get<Id>().value);
    // Schedule follow-ups at and after now, near and far.
    if (popped.size() < 5000 && rng() % 2 == 0) {
      const TimeNs delay = rng() % 3 == 0 ? 0 : rng() % (2 * EventQueue::kWindowNs);
      reference.emplace_back(e.time_ns + delay, sequence++, id);
      queue.schedule(e.time_ns + delay, 0, Id{id++});
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
  for (int i = 0; i < 3000; ++i) queue.schedule(10, 0, Id{next_id++});
  uint32_t expected = 0;
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(id_of(queue.pop()), expected++);
  for (int i = 0; i < 6000; ++i) queue.schedule(10, 0, Id{next_id++});
  queue.schedule(11, 0, Id{UINT32_MAX});
  while (expected < next_id) ASSERT_EQ(id_of(queue.pop()), expected++);
  EXPECT_EQ(id_of(queue.pop()), UINT32_MAX);
  EXPECT_TRUE(queue.empty());
  EXPECT_EQ(queue.events_processed(), 9001u);
}

TEST(EventQueue, PastEventIsAnError) {
  EventQueue queue;
  queue.schedule(100, 0, Id{0});
  (void)queue.pop();
  EXPECT_THROW(queue.schedule(99, 0, Id{0}), Error);
}

struct Wide {
  static constexpr uint8_t kKind = 3;
  uint64_t bytes;
  uint32_t stream;
  bool flag;
};

TEST(EventQueue, PayloadHandlerAndKindComeBackAsScheduled) {
  EventQueue queue;
  queue.schedule(4, 9, Wide{uint64_t{1} << 40, 77, true});
  queue.schedule(4 + 2 * EventQueue::kWindowNs, 2, Wide{5, 6, false});  // through the far heap
  Event e = queue.pop();
  EXPECT_EQ(e.handler, 9);
  EXPECT_EQ(e.kind, 3);
  EXPECT_EQ(e.get<Wide>().bytes, uint64_t{1} << 40);
  EXPECT_EQ(e.get<Wide>().stream, 77u);
  EXPECT_TRUE(e.get<Wide>().flag);
  e = queue.pop();
  EXPECT_EQ(e.handler, 2);
  EXPECT_EQ(e.get<Wide>().stream, 6u);
  EXPECT_EQ(e.time_ns, 4 + 2 * EventQueue::kWindowNs);
}

TEST(EventQueue, PopIfForTakesOnlyTheNamedHandlersNextEvent) {
  EventQueue queue;
  queue.schedule(10, 1, Id{1});
  queue.schedule(10, 2, Id{2});
  queue.schedule(20, 1, Id{3});
  Event e;
  ASSERT_TRUE(queue.pop_if_for(1, e));
  EXPECT_EQ(id_of(e), 1u);
  EXPECT_FALSE(queue.pop_if_for(1, e));  // handler 2's event is next
  EXPECT_EQ(id_of(queue.pop()), 2u);
  ASSERT_TRUE(queue.pop_if_for(1, e));   // across a time step
  EXPECT_EQ(id_of(e), 3u);
  EXPECT_EQ(e.time_ns, 20u);
  EXPECT_FALSE(queue.pop_if_for(1, e));  // empty
}

// A random run against the reference (time, sequence) order, for a bucket
// width: follow-ups near and far, some of them scheduled with a sequence
// reserved when their parent ran (as the NoC does for a link's free time).
// With `delay_sets` > 0 delay lanes are on and most follow-ups come one of
// a few fixed delays after their parent, the set changing every 2000 pops
// (more sets than lanes make empty lanes change delays).
void check_random_order(uint32_t bucket_bits, uint64_t seed, uint32_t delay_sets = 0) {
  std::mt19937_64 rng(seed);
  EventQueue queue;
  queue.set_bucket_width_bits(bucket_bits);
  if (delay_sets > 0) queue.enable_delay_lanes();
  const TimeNs window = TimeNs{EventQueue::kBuckets} << bucket_bits;
  std::vector<std::tuple<TimeNs, uint64_t, uint32_t>> reference;
  uint64_t sequence = 1;  // the queue's first sequence number
  uint32_t id = 0;
  for (int i = 0; i < 300; ++i) {
    const TimeNs t = rng() % (3 * window);
    reference.emplace_back(t, sequence++, id);
    queue.schedule(t, 0, Id{id++});
  }
  struct Deferred {
    TimeNs time;
    uint64_t sequence;
    uint32_t id;
  };
  std::vector<Deferred> deferred;  // reserved, scheduled at a later event
  std::vector<uint32_t> popped;
  while (!queue.empty()) {
    const Event e = queue.pop();
    popped.push_back(e.get<Id>().value);
    // Deferred events still after this one may be scheduled now.
    std::erase_if(deferred, [&](const Deferred& d) {
      if (rng() % 2 != 0 || !queue.after_current(d.time, d.sequence)) return false;
      queue.schedule_reserved(d.time, d.sequence, 0, Id{d.id});
      return true;
    });
    if (popped.size() > (delay_sets > 0 ? 40000 : 6000)) continue;
    for (int k = 0; k < 2; ++k) {
      const uint64_t r = rng() % 8;
      TimeNs delay = r == 0 ? 0 : r < 6 ? rng() % (TimeNs{4} << bucket_bits) : rng() % (2 * window);
      if (delay_sets > 0 && rng() % 4 != 0) {
        // 24 fixed delays per set, near and beyond the window.
        const uint64_t set = (popped.size() / 2000) % delay_sets;
        const uint64_t which = rng() % 24;
        delay = which == 0 ? window + 7 * set : 1 + 3 * which + 100 * set;
      }
      if (rng() % 4 == 0) {
        const uint64_t reserved = queue.reserve_sequence();
        reference.emplace_back(e.time_ns + delay, reserved, id);
        if (delay_sets > 0 && rng() % 2 == 0) {
          queue.schedule_reserved(e.time_ns + delay, reserved, 0, Id{id++});  // at once: in order in a lane
        } else {
          deferred.push_back({e.time_ns + delay, reserved, id++});
        }
        ++sequence;
      } else {
        reference.emplace_back(e.time_ns + delay, sequence++, id);
        queue.schedule(e.time_ns + delay, 0, Id{id++});
      }
    }
  }
  // Deferred events whose moment passed were never needed.
  std::erase_if(reference, [&](const auto& r) {
    return std::any_of(deferred.begin(), deferred.end(), [&](const Deferred& d) { return d.id == std::get<2>(r); });
  });
  std::sort(reference.begin(), reference.end());
  ASSERT_EQ(popped.size(), reference.size());
  for (size_t i = 0; i < popped.size(); ++i) ASSERT_EQ(popped[i], std::get<2>(reference[i])) << "position " << i;
}

TEST(EventQueue, OneUnitBucketsKeepTheOrderWithReservedSequences) {
  for (uint64_t seed = 1; seed <= 4; ++seed) check_random_order(0, seed);
}

TEST(EventQueue, WideBucketsKeepTheSameOrder) {
  for (uint32_t bits : {1u, 4u, 8u}) {
    for (uint64_t seed = 1; seed <= 4; ++seed) check_random_order(bits, seed);
  }
}

TEST(EventQueue, DelayLanesKeepTheOrder) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    check_random_order(0, seed, 1);
    check_random_order(4, seed, 1);
  }
}

TEST(EventQueue, LanesChangeDelaysWhenMoreAreFrequentThanThereAreLanes) {
  for (uint64_t seed = 1; seed <= 2; ++seed) check_random_order(0, seed, 5);
}

TEST(EventQueue, FrequentDelayGetsALane) {
  EventQueue queue;
  queue.enable_delay_lanes();
  queue.schedule(0, 0, Id{0});
  uint32_t next = 1;
  std::vector<uint32_t> popped;
  while (!queue.empty()) {
    const Event e = queue.pop();
    popped.push_back(id_of(e));
    if (next < 1000) {
      queue.schedule(e.time_ns + 250, 0, Id{next++});  // the lane's delay
      if (next % 3 == 0) {
        const uint32_t delay = next % 7;  // read before the id takes next++: arguments are unordered
        queue.schedule(e.time_ns + delay, 0, Id{next++});
      }
    }
  }
  EXPECT_EQ(queue.delay_lanes(), 1u);
  EXPECT_EQ(popped.size(), 1000u);
}

TEST(EventQueue, ReservedSequenceTakesItsPlaceAmongSameTimeEvents) {
  for (uint32_t bits : {0u, 8u}) {
    EventQueue queue;
    queue.set_bucket_width_bits(bits);
    queue.schedule(50, 0, Id{1});
    const uint64_t reserved = queue.reserve_sequence();
    queue.schedule(50, 0, Id{3});
    queue.schedule(40, 0, Id{0});
    EXPECT_EQ(id_of(queue.pop()), 0u);
    EXPECT_TRUE(queue.after_current(50, reserved));
    queue.schedule_reserved(50, reserved, 0, Id{2});
    EXPECT_EQ(id_of(queue.pop()), 1u);
    EXPECT_EQ(id_of(queue.pop()), 2u);
    EXPECT_FALSE(queue.after_current(50, reserved));
    EXPECT_THROW(queue.schedule_reserved(50, reserved, 0, Id{9}), Error);  // its moment passed
    EXPECT_EQ(id_of(queue.pop()), 3u);
    EXPECT_TRUE(queue.empty());
  }
}

TEST(EventQueue, BucketWidthChangesOnlyWhileNothingIsPending) {
  EventQueue queue;
  queue.schedule(5, 0, Id{0});
  EXPECT_THROW(queue.set_bucket_width_bits(8), Error);
  (void)queue.pop();
  queue.set_bucket_width_bits(8);
  EXPECT_THROW(queue.set_bucket_width_bits(EventQueue::kMaxBucketWidthBits + 1), Error);
  Event e;
  queue.schedule(7, 1, Id{1});
  EXPECT_FALSE(queue.pop_if_for(0, e));
  ASSERT_TRUE(queue.pop_if_for(1, e));
  EXPECT_EQ(e.time_ns, 7u);
}

TEST(EventQueue, AdaptiveWidthFollowsTheDensityAndKeepsTheOrder) {
  // Phases of dense events (many per unit of time) and sparse ones (far
  // apart): the width narrows and widens, the order is the reference's.
  std::mt19937_64 rng(7);
  EventQueue queue;
  queue.set_adaptive_bucket_width(4, 10);
  std::vector<std::tuple<TimeNs, uint64_t, uint32_t>> reference;
  uint64_t sequence = 1;
  uint32_t id = 0;
  for (int i = 0; i < 2000; ++i) {
    const TimeNs t = rng() % 4000;
    reference.emplace_back(t, sequence++, id);
    queue.schedule(t, 0, Id{id++});
  }
  std::vector<uint32_t> popped;
  while (!queue.empty()) {
    const Event e = queue.pop();
    popped.push_back(e.get<Id>().value);
    if (popped.size() >= 600000) continue;
    // Alternate 100k-event phases: dense (delays up to 64) and sparse (up to 64k).
    const bool dense = (popped.size() / 100000) % 2 == 0;
    const TimeNs delay = rng() % (dense ? 64 : 65536);
    reference.emplace_back(e.time_ns + delay, sequence++, id);
    queue.schedule(e.time_ns + delay, 0, Id{id++});
  }
  EXPECT_GE(queue.bucket_width_changes(), 2u);
  std::sort(reference.begin(), reference.end());
  ASSERT_EQ(popped.size(), reference.size());
  for (size_t i = 0; i < popped.size(); ++i) ASSERT_EQ(popped[i], std::get<2>(reference[i])) << "position " << i;
}

}  // namespace
}  // namespace snr::dsim
