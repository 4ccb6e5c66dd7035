#include "record/interval_set.h"

#include <gtest/gtest.h>

namespace snr::record {
namespace {

TEST(IntervalSet, MergesOverlappingAndAdjacent) {
  IntervalSet set;
  set.add(10, 20);
  set.add(30, 40);
  set.add(20, 25);  // adjacent
  set.add(5, 12);   // overlapping
  set.add(7, 7);    // empty
  EXPECT_EQ(set.intervals(), (std::vector<Interval>{{5, 25}, {30, 40}}));
  set.add(0, 100);
  EXPECT_EQ(set.intervals(), (std::vector<Interval>{{0, 100}}));
  EXPECT_EQ(set.total_bytes(), 100u);
}

TEST(IntervalSet, MissingListsTheGaps) {
  IntervalSet set;
  set.add(10, 20);
  set.add(30, 40);
  EXPECT_EQ(set.missing(0, 50), (std::vector<Interval>{{0, 10}, {20, 30}, {40, 50}}));
  EXPECT_EQ(set.missing(12, 18), (std::vector<Interval>{}));
  EXPECT_EQ(set.missing(15, 35), (std::vector<Interval>{{20, 30}}));
  EXPECT_EQ(set.missing(40, 41), (std::vector<Interval>{{40, 41}}));
  EXPECT_TRUE(set.contains(30, 40));
  EXPECT_FALSE(set.contains(29, 40));
}

TEST(IntervalSet, AppendMissingKeepsWhatIsThere) {
  IntervalSet set;
  set.add(10, 20);
  std::vector<Interval> gaps{{100, 101}};
  set.append_missing(0, 30, gaps);
  set.append_missing(12, 18, gaps);  // covered: appends nothing
  EXPECT_EQ(gaps, (std::vector<Interval>{{100, 101}, {0, 10}, {20, 30}}));
}

}  // namespace
}  // namespace snr::record
