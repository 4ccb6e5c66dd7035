#include "tracker/writer_map.h"

#include <gtest/gtest.h>

#include <string>

namespace snr::tracker {
namespace {

// "step:first-last," for every written piece of [begin, end).
std::string writers(const WriterMap& map, uint64_t begin, uint64_t end) {
  std::string out;
  map.for_each_writer(begin, end, [&](uint64_t step, uint64_t first, uint64_t last) {
    out += std::to_string(step) + ":" + std::to_string(first) + "-" + std::to_string(last) + ",";
  });
  return out;
}

TEST(WriterMap, ReadsSeeTheLastWriterOfEachByte) {
  WriterMap map;
  EXPECT_EQ(writers(map, 0, 100), "");
  map.write(10, 20, 1);
  EXPECT_EQ(writers(map, 0, 100), "1:10-19,");
  EXPECT_EQ(writers(map, 15, 16), "1:15-15,");
  EXPECT_EQ(writers(map, 20, 30), "");
  // Overwrite the middle: the old range is split around it.
  map.write(12, 14, 2);
  EXPECT_EQ(writers(map, 0, 100), "1:10-11,2:12-13,1:14-19,");
  // Cover several ranges and stick out on both sides.
  map.write(5, 16, 3);
  EXPECT_EQ(writers(map, 0, 100), "3:5-15,1:16-19,");
  // Exactly the same range again.
  map.write(5, 16, 4);
  EXPECT_EQ(writers(map, 0, 100), "4:5-15,1:16-19,");
  map.write(16, 20, 5);
  EXPECT_EQ(writers(map, 0, 100), "4:5-15,5:16-19,");
}

TEST(WriterMap, BackToBackWritesOfOneStepMerge) {
  WriterMap map;
  for (uint64_t a = 0; a < 64; a += 8) map.write(a, a + 8, 7);
  EXPECT_EQ(writers(map, 0, 64), "7:0-63,");
  map.write(64, 72, 8);
  EXPECT_EQ(writers(map, 60, 70), "7:60-63,8:64-69,");
  map.write(0, 0, 9);  // empty: nothing changes
  EXPECT_EQ(writers(map, 0, 4), "7:0-3,");
}

}  // namespace
}  // namespace snr::tracker
