// Byte scans shared by the JSON readers and writers of formats/pytorch.
#pragma once

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace snr::pytorch::detail {

// The first byte in [p, end) that a JSON string cannot hold as it is (a
// quote, a backslash or a control character), or `end`; with kNonAscii,
// bytes of 0x80 and up too (where a reader checks UTF-8). Sixteen bytes at
// a time where SSE2 is there: strings are most of a trace's bytes.
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
#endif
  for (; p != end; ++p) {
    const auto byte = static_cast<unsigned char>(*p);
    if (byte == '"' || byte == '\\' || byte < 0x20 || (kNonAscii && byte >= 0x80)) return p;
  }
  return p;
}

}  // namespace snr::pytorch::detail
