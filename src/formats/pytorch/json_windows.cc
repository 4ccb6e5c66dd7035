#include "formats/pytorch/json_windows.h"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace snr::pytorch {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t skip_space(std::string_view text, size_t at) {
  while (at < text.size() && is_space(text[at])) ++at;
  return at;
}

// The first byte at or after `at` for which `wanted` holds, or text.size().
// Sixteen bytes at a time where SSE2 is there: string bytes and numbers are
// most of a trace, and the scan only stops at quotes, backslashes and
// brackets.
template <typename Wanted, typename WantedMask>
size_t find_first(std::string_view text, size_t at, Wanted&& wanted, WantedMask&& wanted_mask) {
#if defined(__SSE2__)
  while (at + 16 <= text.size()) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + at));
    const int mask = _mm_movemask_epi8(wanted_mask(chunk));
    if (mask != 0) return at + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    at += 16;
  }
#else
  (void)wanted_mask;
#endif
  while (at < text.size() && !wanted(text[at])) ++at;
  return at;
}

#if defined(__SSE2__)
__m128i equal_to(__m128i chunk, char c) { return _mm_cmpeq_epi8(chunk, _mm_set1_epi8(c)); }
#endif

size_t find_quote_or_backslash(std::string_view text, size_t at) {
  return find_first(
      text, at, [](char c) { return c == '"' || c == '\\'; },
      [](auto chunk) {
#if defined(__SSE2__)
        return _mm_or_si128(equal_to(chunk, '"'), equal_to(chunk, '\\'));
#else
        return chunk;
#endif
      });
}

// Quotes and brackets: what a skip over a container stops at.
size_t find_quote_or_bracket(std::string_view text, size_t at) {
  return find_first(
      text, at, [](char c) { return c == '"' || c == '[' || c == ']' || c == '{' || c == '}'; },
      [](auto chunk) {
#if defined(__SSE2__)
        const __m128i brackets = _mm_or_si128(_mm_or_si128(equal_to(chunk, '['), equal_to(chunk, ']')),
                                              _mm_or_si128(equal_to(chunk, '{'), equal_to(chunk, '}')));
        return _mm_or_si128(equal_to(chunk, '"'), brackets);
#else
        return chunk;
#endif
      });
}

// `at` is on an opening quote; returns one past the closing quote, or npos.
size_t skip_string(std::string_view text, size_t at) {
  for (++at;; at += 2) {
    at = find_quote_or_backslash(text, at);
    if (at >= text.size()) return std::string_view::npos;
    if (text[at] == '"') return at + 1;
  }
}

// One past the value starting at `at`, or npos.
size_t skip_value(std::string_view text, size_t at) {
  if (at >= text.size()) return std::string_view::npos;
  const char first = text[at];
  if (first == '"') return skip_string(text, at);
  if (first != '[' && first != '{') {
    while (at < text.size() && !is_space(text[at]) && text[at] != ',' && text[at] != ']' && text[at] != '}') ++at;
    return at;
  }
  size_t depth = 0;
  while (true) {
    at = find_quote_or_bracket(text, at);
    if (at >= text.size()) return std::string_view::npos;
    const char c = text[at];
    if (c == '"') {
      at = skip_string(text, at);
      if (at == std::string_view::npos) return at;
      continue;
    }
    if (c == '[' || c == '{') {
      ++depth;
    } else if (--depth == 0) {
      return at + 1;
    }
    ++at;
  }
}

// Scans the array whose '[' is at `at` into `out`; false when malformed.
bool scan_array(std::string_view text, size_t at, size_t window_bytes, ArrayWindows& out,
                const std::function<void(size_t)>& passed) {
  out.array_begin = at;
  size_t pos = skip_space(text, at + 1);
  if (pos < text.size() && text[pos] == ']') {
    out.array_end = pos + 1;
    return true;
  }
  size_t window_begin = pos;
  while (true) {
    const size_t end = skip_value(text, pos);
    if (end == std::string_view::npos || end == pos) return false;
    ++out.elements;
    pos = skip_space(text, end);
    if (pos >= text.size()) return false;
    if (text[pos] == ']') {
      out.windows.emplace_back(window_begin, end);
      out.array_end = pos + 1;
      return true;
    }
    if (text[pos] != ',') return false;
    if (end - window_begin >= window_bytes) {
      out.windows.emplace_back(window_begin, end);
      window_begin = pos + 1;
      if (passed) passed(end);
    }
    pos = skip_space(text, pos + 1);
  }
}

}  // namespace

std::optional<ArrayWindows> find_root_array_windows(std::string_view text, std::string_view key,
                                                    size_t window_bytes, const std::function<void(size_t)>& passed) {
  size_t pos = skip_space(text, 0);
  if (pos >= text.size() || text[pos] != '{') return std::nullopt;
  pos = skip_space(text, pos + 1);
  while (pos < text.size() && text[pos] == '"') {
    const size_t key_end = skip_string(text, pos);
    if (key_end == std::string_view::npos) return std::nullopt;
    const std::string_view name = text.substr(pos + 1, key_end - pos - 2);
    pos = skip_space(text, key_end);
    if (pos >= text.size() || text[pos] != ':') return std::nullopt;
    pos = skip_space(text, pos + 1);
    if (name == key) {
      if (pos >= text.size() || text[pos] != '[') return std::nullopt;
      ArrayWindows windows;
      if (!scan_array(text, pos, window_bytes, windows, passed)) return std::nullopt;
      return windows;
    }
    pos = skip_value(text, pos);
    if (pos == std::string_view::npos) return std::nullopt;
    pos = skip_space(text, pos);
    if (pos >= text.size() || text[pos] != ',') return std::nullopt;
    pos = skip_space(text, pos + 1);
  }
  return std::nullopt;
}

}  // namespace snr::pytorch
