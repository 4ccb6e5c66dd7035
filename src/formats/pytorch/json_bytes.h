// Byte scans shared by the JSON readers and writers of formats/pytorch.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace snr::pytorch::detail {

// The bytes the scans below stop at: a quote, a backslash or a control
// character (a byte a JSON string cannot hold as it is); with kNonAscii,
// bytes of 0x80 and up too (where a reader checks UTF-8).
template <bool kNonAscii>
constexpr bool is_json_special_byte(unsigned char byte) {
  return byte == '"' || byte == '\\' || byte < 0x20 || (kNonAscii && byte >= 0x80);
}

// find_json_special_byte eight bytes at a time in plain word arithmetic: the
// scan of targets without SSE2, kept callable everywhere so that the tests
// check it on every machine.
template <bool kNonAscii = false>
inline const char* find_json_special_byte_in_words(const char* p, const char* end) {
  if constexpr (std::endian::native == std::endian::little) {
    constexpr uint64_t kOnes = 0x0101010101010101ull;
    constexpr uint64_t kHigh = 0x8080808080808080ull;
    while (end - p >= 8) {
      uint64_t word = 0;
      std::memcpy(&word, p, 8);
      const uint64_t quote = word ^ (kOnes * '"');
      const uint64_t backslash = word ^ (kOnes * '\\');
      // A byte's high bit is set below for a zero byte of `quote` or
      // `backslash`, a byte under 0x20 (or of 0x80 and up, when asked);
      // borrows only run upwards from such a byte, so the lowest one found
      // is exact even where the ones above it are not.
      uint64_t hits = ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) |
                      ((word - kOnes * 0x20) & ~word);
      if constexpr (kNonAscii) hits |= word;
      hits &= kHigh;
      if (hits != 0) return p + (std::countr_zero(hits) >> 3);
      p += 8;
    }
  }
  for (; p != end; ++p) {
    if (is_json_special_byte<kNonAscii>(static_cast<unsigned char>(*p))) return p;
  }
  return p;
}

// The first byte in [p, end) that is_json_special_byte<kNonAscii> names, or
// `end`. Sixteen bytes at a time where SSE2 is there, else eight: strings
// are most of a trace's bytes.
template <bool kNonAscii = false>
inline const char* find_json_special_byte(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control_max = _mm_set1_epi8(0x1f);
  const __m128i space = _mm_set1_epi8(0x20);
  while (end - p >= 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Signed, bytes of 0x80 and up are below a space too.
    const __m128i flagged = kNonAscii ? _mm_cmplt_epi8(chunk, space)
                                      : _mm_cmpeq_epi8(_mm_max_epu8(chunk, control_max), control_max);
    const __m128i is_special =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)), flagged);
    const int mask = _mm_movemask_epi8(is_special);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
  for (; p != end; ++p) {
    if (is_json_special_byte<kNonAscii>(static_cast<unsigned char>(*p))) return p;
  }
  return p;
#else
  return find_json_special_byte_in_words<kNonAscii>(p, end);
#endif
}

}  // namespace snr::pytorch::detail
