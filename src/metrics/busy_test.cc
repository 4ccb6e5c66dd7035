// Busy profiles, interval merging and the unit mapping, by hand.
#include <gtest/gtest.h>

#include "metrics/busy.h"

namespace snr::metrics {
namespace {

TEST(BusyProfile, IntegratesOverlappingIntervalsOverInstances) {
  // [0,10) and [5,15) on a 2-instance unit: 20 instance-cycles in all;
  // over [5,10) both are busy.
  const BusyProfile p({{0, 10}, {5, 15}}, 2);
  EXPECT_EQ(p.busy_cycles(0, 20), 20u);
  EXPECT_DOUBLE_EQ(p.fraction(0, 20), 0.5);
  EXPECT_EQ(p.busy_cycles(5, 10), 10u);
  EXPECT_DOUBLE_EQ(p.fraction(5, 10), 1.0);
  EXPECT_EQ(p.busy_cycles(12, 100), 3u);
  EXPECT_EQ(p.busy_cycles(10, 10), 0u);
}

TEST(BusyProfile, CountIsCappedAtInstances) {
  // Three overlapping intervals on one instance count once.
  const BusyProfile p({{0, 10}, {0, 10}, {0, 10}}, 1);
  EXPECT_EQ(p.busy_cycles(0, 10), 10u);
  EXPECT_DOUBLE_EQ(p.fraction(0, 20), 0.5);
}

TEST(ChipBusyIntervals, MergingBackToBackSlicesKeepsEveryCount) {
  // Two MXUs: [0,4) [4,8) on one and [2,6) on the other; scalar slices at
  // 0, 1, 2 and 5. Merged or not, the counts are the same.
  ChipBusyIntervals intervals;
  intervals.add(BusyUnit::kMatrix, 0, 4);
  intervals.add(BusyUnit::kMatrix, 4, 8);
  intervals.add(BusyUnit::kMatrix, 2, 6);
  for (uint64_t c : {0, 1, 2, 5}) intervals.add(BusyUnit::kScalar, c, c + 1);
  intervals.add(BusyUnit::kVector, 3, 3);  // empty: ignored
  const std::vector<BusyProfile> p = intervals.profiles(2);
  ASSERT_EQ(p.size(), kBusyUnitCount);
  const BusyProfile& matrix = p[static_cast<size_t>(BusyUnit::kMatrix)];
  EXPECT_EQ(matrix.instances(), 2u);
  EXPECT_EQ(matrix.busy_cycles(0, 8), 12u);
  EXPECT_EQ(matrix.busy_cycles(2, 6), 8u);
  EXPECT_EQ(p[static_cast<size_t>(BusyUnit::kScalar)].busy_cycles(0, 10), 4u);
  EXPECT_EQ(p[static_cast<size_t>(BusyUnit::kScalar)].busy_cycles(3, 5), 0u);
  EXPECT_EQ(p[static_cast<size_t>(BusyUnit::kVector)].busy_cycles(0, 10), 0u);
}

TEST(BusyUnits, EveryIsaUnitCountsTowardsOneReportedUnit) {
  EXPECT_EQ(busy_unit_of(isa::Unit::kMatrix), BusyUnit::kMatrix);
  EXPECT_EQ(busy_unit_of(isa::Unit::kVector), BusyUnit::kVector);
  // DMA-issue and semaphore instructions take the scalar core's issue slot.
  EXPECT_EQ(busy_unit_of(isa::Unit::kDma), BusyUnit::kScalar);
  EXPECT_EQ(busy_unit_of(isa::Unit::kSync), BusyUnit::kScalar);
  EXPECT_EQ(busy_unit_of_name("scalar"), BusyUnit::kScalar);
  EXPECT_EQ(busy_unit_of_name(isa::unit_name(isa::Unit::kDma)), BusyUnit::kScalar);
  EXPECT_EQ(busy_unit_of_name("tensor-core"), std::nullopt);
  EXPECT_EQ(busy_unit_name(BusyUnit::kDma), "dma");
}

}  // namespace
}  // namespace snr::metrics
