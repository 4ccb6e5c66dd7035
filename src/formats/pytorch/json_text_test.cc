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

}  // namespace
}  // namespace snr::pytorch
