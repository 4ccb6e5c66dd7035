#include "formats/pytorch/json_windows.h"

#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace snr::pytorch {
namespace {

// The plain byte-at-a-time scan the vectorised one must agree with.
namespace reference {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t skip_space(std::string_view text, size_t at) {
  while (at < text.size() && is_space(text[at])) ++at;
  return at;
}

size_t skip_string(std::string_view text, size_t at) {
  for (++at; at < text.size(); ++at) {
    if (text[at] == '\\') {
      ++at;
    } else if (text[at] == '"') {
      return at + 1;
    }
  }
  return std::string_view::npos;
}

size_t skip_value(std::string_view text, size_t at) {
  if (at >= text.size()) return std::string_view::npos;
  if (text[at] == '"') return skip_string(text, at);
  if (text[at] != '[' && text[at] != '{') {
    while (at < text.size() && !is_space(text[at]) && text[at] != ',' && text[at] != ']' && text[at] != '}') ++at;
    return at;
  }
  size_t depth = 0;
  for (; at < text.size(); ++at) {
    const char c = text[at];
    if (c == '"') {
      at = skip_string(text, at);
      if (at == std::string_view::npos) return at;
      --at;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth == 0) return at + 1;
    }
  }
  return std::string_view::npos;
}

// The windows of the array that starts at `at`, one element per window (a
// window after the first begins just past its comma).
std::optional<std::vector<std::pair<size_t, size_t>>> elements(std::string_view text, size_t at) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t pos = skip_space(text, at + 1);
  if (pos < text.size() && text[pos] == ']') return out;
  size_t window_begin = pos;
  while (true) {
    const size_t end = skip_value(text, pos);
    if (end == std::string_view::npos || end == pos) return std::nullopt;
    out.emplace_back(window_begin, end);
    pos = skip_space(text, end);
    if (pos >= text.size()) return std::nullopt;
    if (text[pos] == ']') return out;
    if (text[pos] != ',') return std::nullopt;
    window_begin = pos + 1;
    pos = skip_space(text, pos + 1);
  }
}

}  // namespace reference

TEST(JsonWindows, AgreesWithAByteAtATimeScan) {
  // Random texts of the characters the scan stops at, around a few lengths
  // of plain runs so that both the 16-byte and the tail loops see them.
  // Half the texts have no backslash: those are scanned 64 bytes at a time.
  const std::string with_backslash = "\"\\[]{},: a1";
  const std::string without_backslash = "\"[]{},: a1";
  std::mt19937 random(7);
  for (int round = 0; round < 40000; ++round) {
    const std::string& alphabet = round % 2 == 0 ? with_backslash : without_backslash;
    std::string body;
    const size_t length = random() % 90;
    for (size_t i = 0; i < length; ++i) {
      if (random() % 8 == 0) {
        body.append(random() % 40, 'x');
      } else {
        body.push_back(alphabet[random() % alphabet.size()]);
      }
    }
    const std::string text = R"({"k": [)" + body + "]}";
    const size_t array_at = text.find('[');
    const auto expected = reference::elements(text, array_at);
    const auto split = find_root_array_windows(text, "k", 1);
    ASSERT_EQ(split.has_value(), expected.has_value()) << text;
    if (!split) continue;
    EXPECT_EQ(split->windows, *expected) << text;
    EXPECT_EQ(split->elements, expected->size()) << text;
  }
}

TEST(JsonWindows, StringsHideBracketsAndEscapedQuotes) {
  const std::string text =
      R"({"a": "]}\"[{", "k": [{"name": "x]\\", "v": [1, {"y": "\"}"}]}, "long string without any bracket in it", 3]})";
  const auto split = find_root_array_windows(text, "k", 1);
  ASSERT_TRUE(split.has_value());
  ASSERT_EQ(split->windows.size(), 3u);
  EXPECT_EQ(text.substr(split->windows[0].first, split->windows[0].second - split->windows[0].first),
            R"({"name": "x]\\", "v": [1, {"y": "\"}"}]})");
  EXPECT_EQ(text[split->array_end - 1], ']');
  EXPECT_FALSE(find_root_array_windows(R"({"k": [{"a": "unterminated]}]})", "k", 1));
}

}  // namespace
}  // namespace snr::pytorch
