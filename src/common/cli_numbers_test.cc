#include "common/cli_numbers.h"

#include <gtest/gtest.h>

namespace snr {
namespace {

TEST(CliNumbers, AcceptsDecimalAndHexInRange) {
  EXPECT_EQ(parse_unsigned("42").value(), 42u);
  EXPECT_EQ(parse_unsigned("0x10000").value(), 0x10000u);
  EXPECT_EQ(parse_unsigned("18446744073709551615").value(), UINT64_MAX);
  EXPECT_EQ(parse_unsigned(" 7 ", 1, 8).value(), 7u);
}

TEST(CliNumbers, RejectsSignsJunkOverflowAndRange) {
  for (const char* bad : {"-1", "-5", "+3", "", "1e3", "12abc", "0x", "18446744073709551616", "1.5"}) {
    EXPECT_FALSE(parse_unsigned(bad).ok()) << bad;
  }
  auto zero = parse_unsigned("0", 1, 256);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(std::string(zero.error().what()).find("[1, 256]"), std::string::npos);
  EXPECT_FALSE(parse_unsigned("257", 1, 256).ok());
}

}  // namespace
}  // namespace snr
