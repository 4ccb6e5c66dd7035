#include "pathfind/age/voltage_frequency.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace snr::pathfind::age {
namespace {

// Vn 1.0 V, Vth 0.2 V, [0.5, 1.2] V, 1 GHz at nominal. Speed (V-Vth)^2/V:
// 0.64 at 1.0 V, 0.4^2/0.6 = 0.266667 at 0.6 V, 0.09/0.5 = 0.18 at 0.5 V,
// 1.0/1.2 = 0.833333 at 1.2 V.
VoltageRange range() { return {1.0, 0.2, 0.5, 1.2, 1e9}; }

TEST(PathfindAgeVoltageFrequency, AlphaPowerLawByHand) {
  EXPECT_NEAR(frequency_at_hz(range(), 1.0), 1e9, 1e-3);
  EXPECT_NEAR(frequency_at_hz(range(), 0.6), 1e9 * 0.266667 / 0.64, 1e3);  // 416.667 MHz
  // Energy per operation scales with V^2: 0.36 * 0.416667 = 0.15.
  EXPECT_NEAR(power_ratio_at(range(), 0.6), 0.15, 1e-9);
  EXPECT_NEAR(power_ratio_at(range(), 0.5), 0.25 * 0.18 / 0.64, 1e-12);   // 0.0703125
  EXPECT_NEAR(power_ratio_at(range(), 1.2), 1.44 * 0.833333 / 0.64, 1e-6);  // 1.875
}

TEST(PathfindAgeVoltageFrequency, BudgetInsideTheRangeSetsTheVoltage) {
  // 10 units of 1 W nominal with 1.5 W: ratio 0.15, reached at exactly 0.6 V.
  OperatingPoint op = operating_point(range(), 1.0, 10, 1.5);
  EXPECT_EQ(op.clamp, VoltageClamp::kNone);
  EXPECT_NEAR(op.voltage_v, 0.6, 1e-9);
  EXPECT_NEAR(op.frequency_hz, 416.6667e6, 1e3);
  EXPECT_NEAR(op.power_w, 1.5, 1e-9);
}

TEST(PathfindAgeVoltageFrequency, ClampsAtTheEnds) {
  OperatingPoint high = operating_point(range(), 1.0, 10, 100.0);
  EXPECT_EQ(high.clamp, VoltageClamp::kMaxVoltage);
  EXPECT_DOUBLE_EQ(high.voltage_v, 1.2);
  EXPECT_NEAR(high.power_w, 18.75, 1e-9);  // budget left unspent
  EXPECT_NEAR(high.frequency_hz, 1e9 * 0.833333 / 0.64, 1e3);

  OperatingPoint low = operating_point(range(), 1.0, 10, 0.5);  // 0.703 W even at 0.5 V
  EXPECT_EQ(low.clamp, VoltageClamp::kMinVoltage);
  EXPECT_DOUBLE_EQ(low.voltage_v, 0.5);
  EXPECT_NEAR(low.frequency_hz, 281.25e6, 1);
  EXPECT_NEAR(low.power_w, 0.703125, 1e-12);
}

TEST(PathfindAgeVoltageFrequency, ImpossibleVoltagesNameTheField) {
  VoltageRange r = range();
  r.min_v = 0.2;  // at the threshold: nothing switches
  try {
    r.validate("component 'mac'");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("min_voltage"), std::string::npos) << e.what();
  }
  r = range();
  r.nominal_v = 1.3;
  EXPECT_THROW(r.validate("x"), Error);
  r = range();
  r.nominal_hz = 0;
  EXPECT_THROW(r.validate("x"), Error);
}

}  // namespace
}  // namespace snr::pathfind::age
