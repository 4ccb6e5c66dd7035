#include <gtest/gtest.h>

#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "formats/pytorch/host_trace.h"

namespace snr::pytorch {
namespace {

// Strings are written as nlohmann's dump() writes them, whatever their
// length and wherever the characters to escape fall.
TEST(JsonText, StringsAreEscapedAsNlohmannDoes) {
  const std::string alphabet = std::string("\"\\\n\t\x01\x1f abcXYZ09\x7f") + "\xc3\xa9";
  std::mt19937 random(11);
  for (int round = 0; round < 5000; ++round) {
    std::string text;
    const size_t pieces = random() % 12;
    for (size_t i = 0; i < pieces; ++i) {
      if (random() % 3 == 0) {
        text.append(random() % 40, 'q');
      } else {
        const size_t at = random() % (alphabet.size() - 1);
        // Keep the two bytes of "é" together so the text stays UTF-8.
        text += at == alphabet.size() - 2 ? alphabet.substr(at, 2) : alphabet.substr(at, 1);
      }
    }
    std::string written;
    append_json_string(written, text);
    ASSERT_EQ(written, nlohmann::json(text).dump()) << text;
  }
}

// Integers (valid JSON numbers, as these texts always are) read as
// nlohmann reads them: in range, out of range (then the output is left
// alone), signed and unsigned, and the forms that are not plain digits
// ("-0", fractions, exponents).
TEST(JsonText, IntegersReadAsNlohmannReadsThem) {
  for (const char* text : {"0", "7", "-7", "42", "123456789012345678", "999999999999999999", "1000000000000000000",
                           "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                           "-9223372036854775809", "18446744073709551615", "18446744073709551616",
                           "99999999999999999999", "-0", "1.0", "1e3", "-1.5"}) {
    SCOPED_TRACE(text);
    const auto parsed = nlohmann::json::parse(text, nullptr, false);
    uint64_t u = 12345;
    const bool u_read = json_text_to_uint64(text, u);
    int64_t s = 12345;
    const bool s_read = json_text_to_int64(text, s);
    if (parsed.is_number_unsigned() || (parsed.is_number_integer() && parsed.get<int64_t>() >= 0)) {
      ASSERT_TRUE(u_read);
      EXPECT_EQ(u, parsed.get<uint64_t>());
    } else if (!parsed.is_number_float()) {
      EXPECT_FALSE(u_read);
      EXPECT_EQ(u, 12345u);
    }
    if (parsed.is_number_integer() && !parsed.is_number_unsigned()) {
      ASSERT_TRUE(s_read);
      EXPECT_EQ(s, parsed.get<int64_t>());
    } else if (parsed.is_number_unsigned() && parsed.get<uint64_t>() <= 9223372036854775807ull) {
      ASSERT_TRUE(s_read);
      EXPECT_EQ(s, static_cast<int64_t>(parsed.get<uint64_t>()));
    } else if (!parsed.is_number_float()) {
      EXPECT_FALSE(s_read);
      EXPECT_EQ(s, 12345);
    }
  }
}

}  // namespace
}  // namespace snr::pytorch
