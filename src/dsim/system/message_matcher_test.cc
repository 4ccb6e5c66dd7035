#include "dsim/system/message_matcher.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <tuple>

namespace snr::dsim {
namespace {

TEST(MessageMatcher, ReceivesAndArrivalsMatchFirstComeFirstServed) {
  MessageMatcher matcher;
  const MatchKey key{1, 2, 7, 64};
  uint64_t waiter = 0;
  EXPECT_FALSE(matcher.post(key, 100));
  EXPECT_FALSE(matcher.post(key, 101));
  EXPECT_TRUE(matcher.arrive(key, waiter));
  EXPECT_EQ(waiter, 100u);
  EXPECT_FALSE(matcher.arrive(MatchKey{1, 2, 7, 65}, waiter));  // other size: no match
  EXPECT_TRUE(matcher.arrive(key, waiter));
  EXPECT_EQ(waiter, 101u);
  EXPECT_EQ(matcher.pending(), 1u);
  EXPECT_TRUE(matcher.post(MatchKey{1, 2, 7, 65}, 102));
  EXPECT_EQ(matcher.pending(), 0u);
}

TEST(MessageMatcher, SurvivesGrowthAndDeletionChurn) {
  // Many keys alive at once (forces growth), then interleaved deletions.
  MessageMatcher matcher;
  for (uint32_t i = 0; i < 5000; ++i) EXPECT_FALSE(matcher.post(MatchKey{i, i + 1, i % 7, 128}, i));
  uint64_t waiter = 0;
  for (uint32_t i = 0; i < 5000; i += 2) {
    ASSERT_TRUE(matcher.arrive(MatchKey{i, i + 1, i % 7, 128}, waiter));
    EXPECT_EQ(waiter, i);
  }
  for (uint32_t i = 1; i < 5000; i += 2) {
    ASSERT_TRUE(matcher.arrive(MatchKey{i, i + 1, i % 7, 128}, waiter));
    EXPECT_EQ(waiter, i);
  }
  EXPECT_EQ(matcher.pending(), 0u);
}

TEST(MessageMatcher, RunsOfTheSameWaiterKeepTheirOrder) {
  MessageMatcher matcher;
  const MatchKey key{3, 4, 1, 256};
  // A, A, B, A, B: the head run, then pooled runs, one merged into the tail.
  for (uint64_t w : {10, 10, 11, 10, 10, 11}) EXPECT_FALSE(matcher.post(key, w));
  EXPECT_EQ(matcher.pending(), 6u);
  uint64_t waiter = 0;
  for (uint64_t expected : {10, 10, 11, 10}) {
    ASSERT_TRUE(matcher.arrive(key, waiter));
    EXPECT_EQ(waiter, expected);
  }
  EXPECT_FALSE(matcher.post(key, 11));  // behind the remaining 10, 11
  for (uint64_t expected : {10, 11, 11}) {
    ASSERT_TRUE(matcher.arrive(key, waiter));
    EXPECT_EQ(waiter, expected);
  }
  EXPECT_FALSE(matcher.arrive(key, waiter));  // counted
  EXPECT_TRUE(matcher.post(key, 12));
  EXPECT_EQ(matcher.pending(), 0u);
}

TEST(MessageMatcher, CachedSlotsMatchLikeKeysAcrossRebuilds) {
  // Random posts and arrivals on a few keys, through cached slots when
  // their generation is current and through keys otherwise, while
  // thousands of other keys force rebuilds; checked against a plain model.
  std::mt19937_64 rng(7);
  MessageMatcher matcher;
  std::map<std::tuple<NpuId, NpuId, uint64_t, uint64_t>, std::pair<uint64_t, std::deque<uint64_t>>> model;
  std::vector<MatchKey> keys;
  for (uint32_t i = 0; i < 6; ++i) keys.push_back(MatchKey{i % 3, i, i % 2, 64u + i % 2});
  std::vector<std::pair<uint32_t, uint32_t>> cached(keys.size(), {0, UINT32_MAX});  // (slot, generation)
  const uint32_t first_generation = matcher.generation();
  uint32_t filler = 0;
  for (int step = 0; step < 20000; ++step) {
    const size_t k = rng() % keys.size();
    const MatchKey& key = keys[k];
    auto& [arrived, waiters] = model[{key.dst, key.src, key.tag, key.bytes}];
    const bool use_slot = cached[k].second == matcher.generation() && rng() % 4 != 0;
    if (!use_slot && rng() % 2 == 0) cached[k] = {matcher.slot_of(key), matcher.generation()};
    const uint32_t slot = cached[k].first;
    if (rng() % 2 == 0) {
      const uint64_t token = rng() % 3;  // few tokens: runs of the same waiter
      const bool matched = use_slot ? matcher.post_at(slot, token) : matcher.post(key, token);
      ASSERT_EQ(matched, arrived > 0) << "step " << step;
      if (arrived > 0) {
        --arrived;
      } else {
        waiters.push_back(token);
      }
    } else {
      uint64_t waiter = UINT64_MAX;
      const bool matched = use_slot ? matcher.arrive_at(slot, waiter) : matcher.arrive(key, waiter);
      ASSERT_EQ(matched, !waiters.empty()) << "step " << step;
      if (matched) {
        EXPECT_EQ(waiter, waiters.front()) << "step " << step;
        waiters.pop_front();
      } else {
        ++arrived;
      }
    }
    // Other keys come and go (idle once matched), so the table rebuilds.
    if (step % 3 == 0) {
      const MatchKey other{1000 + filler % 5000, filler, 9, 8};
      EXPECT_FALSE(matcher.post(other, 0));
      uint64_t ignored = 0;
      EXPECT_TRUE(matcher.arrive(other, ignored));
      ++filler;
    }
  }
  EXPECT_GT(matcher.generation(), first_generation + 2);
  uint64_t pending = 0;
  for (const auto& [key, state] : model) pending += state.first + state.second.size();
  EXPECT_EQ(matcher.pending(), pending);
}

}  // namespace
}  // namespace snr::dsim
