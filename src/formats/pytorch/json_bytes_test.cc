#include "formats/pytorch/json_bytes.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace snr::pytorch::detail {
namespace {

template <bool kNonAscii>
const char* find_bytewise(const char* p, const char* end) {
  while (p != end && !is_json_special_byte<kNonAscii>(static_cast<unsigned char>(*p))) ++p;
  return p;
}

// Every byte value at every position of a run longer than two SSE2 blocks,
// on a background of plain ASCII letters: the scans (SSE2 where the machine
// has it, the word scan of machines without it, on every machine) find
// exactly the first byte the byte-by-byte definition finds.
template <bool kNonAscii>
void check_every_byte_at_every_position() {
  for (size_t length = 0; length <= 40; ++length) {
    for (size_t at = 0; at < length; ++at) {
      for (int value = 0; value < 256; ++value) {
        std::string text(length, 'a');
        text[at] = static_cast<char>(value);
        const char* const begin = text.data();
        const char* const end = begin + text.size();
        const char* const expected = find_bytewise<kNonAscii>(begin, end);
        ASSERT_EQ(find_json_special_byte<kNonAscii>(begin, end), expected) << length << " " << at << " " << value;
        ASSERT_EQ(find_json_special_byte_in_words<kNonAscii>(begin, end), expected)
            << length << " " << at << " " << value;
      }
    }
  }
}

TEST(JsonBytes, EveryByteValueAtEveryPosition) {
  check_every_byte_at_every_position<false>();
  check_every_byte_at_every_position<true>();
}

// Several special bytes in one word or block: the first wins, including when
// a byte below it borrows into it in the word scan (0x00 before a quote,
// 0x1f before 0x80).
template <bool kNonAscii>
void check_random_mixtures() {
  const std::string alphabet = std::string("\"\\\x01\x1f\x20\x21\x5b\x5d\x7f\x80\xbf\xff", 12) + std::string(1, '\0');
  std::mt19937 random(5);
  for (int round = 0; round < 20000; ++round) {
    std::string text(random() % 48, 'x');
    for (char& c : text) {
      if (random() % 4 == 0) c = alphabet[random() % alphabet.size()];
    }
    for (size_t start = 0; start <= text.size(); start += 1 + random() % 5) {
      const char* const begin = text.data() + start;
      const char* const end = text.data() + text.size();
      const char* const expected = find_bytewise<kNonAscii>(begin, end);
      ASSERT_EQ(find_json_special_byte<kNonAscii>(begin, end), expected);
      ASSERT_EQ(find_json_special_byte_in_words<kNonAscii>(begin, end), expected);
    }
  }
}

TEST(JsonBytes, FirstOfSeveralSpecialBytesWins) {
  check_random_mixtures<false>();
  check_random_mixtures<true>();
}

}  // namespace
}  // namespace snr::pytorch::detail
