#include "compiler/vmem_liveness.h"

#include <gtest/gtest.h>

namespace snr::compiler {
namespace {

TEST(VmemLiveness, UsedOnlyBetweenAWriteAndItsLastRead) {
  VmemLivenessTracker t(10);
  t.access(0, 3, true);  // before the window: not seen
  t.start(100);
  t.access(100, 0, true);
  t.access(300, 0, false);  // page 0 used over [100, 300]
  t.access(100, 5, true);   // page 5 written, never read: unused
  t.access(150, 9, true);
  t.access(160, 9, false);
  t.access(170, 9, true);   // the first value of page 9 ends at 160
  t.access(390, 9, false);  // the second lives [170, 390]
  t.access(200, 3, false);  // read of a value written before the window
  t.stop(400);
  t.access(450, 1, true);   // after the window: not seen
  const VmemLiveness v = t.finish(4);  // samples at 100, 175, 250, 325
  ASSERT_EQ(v.sample_cycle, (std::vector<uint64_t>{100, 175, 250, 325}));
  // used pages: {0} at 100; {0, 9} at 175 and 250; {9} at 325.
  EXPECT_DOUBLE_EQ(v.unused_fraction[0], 0.9);
  EXPECT_DOUBLE_EQ(v.unused_fraction[1], 0.8);
  EXPECT_DOUBLE_EQ(v.unused_fraction[3], 0.9);
  EXPECT_DOUBLE_EQ(v.largest_unused_fraction[0], 0.9);  // pages 1-9
  EXPECT_DOUBLE_EQ(v.largest_unused_fraction[1], 0.8);  // pages 1-8
  EXPECT_DOUBLE_EQ(v.largest_unused_fraction[3], 0.9);  // pages 0-8
  EXPECT_DOUBLE_EQ(v.median_unused_fraction(), 0.9);
}

TEST(VmemLiveness, AnIslandSplitsTheFreeSpace) {
  VmemLivenessTracker t(100);
  t.start(0);
  t.access(0, 40, true);
  t.access(1000, 40, false);
  t.stop(1000);
  const VmemLiveness v = t.finish(10);
  EXPECT_DOUBLE_EQ(v.median_unused_fraction(), 0.99);
  EXPECT_DOUBLE_EQ(v.median_largest_unused_fraction(), 0.59);
}

}  // namespace
}  // namespace snr::compiler
