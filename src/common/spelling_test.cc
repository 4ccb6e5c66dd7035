#include "common/spelling.h"

#include <gtest/gtest.h>

#include <array>

namespace snr {
namespace {

TEST(Spelling, EditDistanceCountsSwapsOfNeighboursAsOne) {
  EXPECT_EQ(edit_distance("sim", "sim"), 0u);
  EXPECT_EQ(edit_distance("smi", "sim"), 1u);  // a swap
  EXPECT_EQ(edit_distance("si", "sim"), 1u);
  EXPECT_EQ(edit_distance("sum", "sim"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);  // no edit of a swapped pair
  EXPECT_EQ(edit_distance("active-chunks-per-dimnesion", "active-chunks-per-dimension"), 1u);
}

TEST(Spelling, NearestNameWithinTheDistance) {
  constexpr std::array<std::string_view, 3> kNames = {"endpoint-delay", "local-mem-bw", "boost-mode"};
  EXPECT_EQ(nearest_name("local_mem_bw", kNames, 2), "local-mem-bw");
  EXPECT_EQ(nearest_name("boost_mode", kNames, 2), "boost-mode");
  EXPECT_EQ(nearest_name("bandwidth", kNames, 2), "");
  EXPECT_EQ(nearest_name("local-mem-bw", kNames, 2), "");  // the name itself
}

}  // namespace
}  // namespace snr
