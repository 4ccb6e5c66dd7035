#include "pathfind/inputs/quantity.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace snr::pathfind {
namespace {

TEST(PathfindQuantity, ParsesSiUnits) {
  EXPECT_DOUBLE_EQ(parse_power_w("400W"), 400);
  EXPECT_DOUBLE_EQ(parse_power_w("1.5kW"), 1500);
  EXPECT_DOUBLE_EQ(parse_voltage_v("750mV"), 0.75);
  EXPECT_DOUBLE_EQ(parse_energy_j("2pJ"), 2e-12);
  EXPECT_DOUBLE_EQ(parse_area_mm2("826mm2"), 826);
  EXPECT_DOUBLE_EQ(parse_length_mm("2.5mm"), 2.5);
  EXPECT_DOUBLE_EQ(parse_flops_per_s("312TFLOP/s"), 312e12);
  EXPECT_DOUBLE_EQ(parse_flops_per_s("78 TFLOPS"), 78e12);
}

TEST(PathfindQuantity, RejectsMissingOrWrongUnits) {
  EXPECT_THROW((void)parse_power_w("400"), Error);
  EXPECT_THROW((void)parse_power_w("400V"), Error);
  EXPECT_THROW((void)parse_area_mm2("826"), Error);
  EXPECT_THROW((void)parse_voltage_v("-1V"), Error);
  EXPECT_THROW((void)parse_flops_per_s("1e400TFLOPS"), Error);
}

TEST(PathfindStrictMap, UnknownKeyNamesFileLineAndKnownKeys) {
  YAML::Node node = load_yaml_text("a: 1\nb: 2W\nc: 3\n", "x.yaml");
  StrictMap m(node, "x.yaml", "top");
  EXPECT_EQ(m.count("a", 0, 5), 1u);
  EXPECT_EQ(m.count("a", 0, 5), 1u);  // asked twice, listed once below
  EXPECT_DOUBLE_EQ(m.quantity("b", parse_power_w, 0, 10), 2);
  try {
    m.finish();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x.yaml:3: top.c: unknown key (this section reads: a, b)"), std::string::npos)
        << e.what();
  }
}

TEST(PathfindStrictMap, RangeAndTypeErrorsNameTheField) {
  YAML::Node node = load_yaml_text("u: 1.5\nn: abc\n", "y.yaml");
  StrictMap m(node, "y.yaml", "");
  EXPECT_THROW((void)m.number("u", 0, 1), Error);
  try {
    (void)m.count("n", 0, 5);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("y.yaml:2: n: 'abc' is not a non-negative integer"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)m.string("missing"), Error);
}

}  // namespace
}  // namespace snr::pathfind
