#include "dsim/system/message_matcher.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace snr::dsim
