#include "formats/pytorch/json_windows.h"

#include <algorithm>
#include <cstdint>
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

// `at` is on an opening quote; returns one past the closing quote, or npos.
// Strings are most of a trace's bytes, so the quotes are found with memchr;
// a quote closes the string when an even number of backslashes precedes it.
size_t skip_string(std::string_view text, size_t at) {
  const size_t open = at;
  for (++at; at < text.size(); ++at) {
    const void* quote = std::memchr(text.data() + at, '"', text.size() - at);
    if (quote == nullptr) return std::string_view::npos;
    at = static_cast<size_t>(static_cast<const char*>(quote) - text.data());
    size_t backslashes = 0;
    while (at - backslashes - 1 > open && text[at - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return at + 1;
  }
  return std::string_view::npos;
}

// Where a container skip stands: inside a string or not, after a backslash
// in one, how deep.
struct ContainerScan {
  bool in_string = false;
  bool escaped = false;
  size_t depth = 0;
};

// Advances `scan` over the byte at `at`; true when it closes the container.
bool scan_byte(ContainerScan& scan, char c) {
  if (scan.in_string) {
    if (scan.escaped) {
      scan.escaped = false;
    } else if (c == '\\') {
      scan.escaped = true;
    } else if (c == '"') {
      scan.in_string = false;
    }
    return false;
  }
  if (c == '"') {
    scan.in_string = true;
  } else if (c == '[' || c == '{') {
    ++scan.depth;
  } else if (c == ']' || c == '}') {
    return --scan.depth == 0;
  }
  return false;
}

#if defined(__SSE2__)
constexpr size_t kBlockBytes = 64;

// Bit i set where block[i] == c.
uint64_t byte_mask(const char* block, char c) {
  const __m128i wanted = _mm_set1_epi8(c);
  uint64_t mask = 0;
  for (size_t i = 0; i < kBlockBytes; i += 16) {
    const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + i));
    mask |= static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, wanted)))) << i;
  }
  return mask;
}

// Bit i set where an odd number of quotes lie at or before i.
uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// Scans the 64-byte block at `block` without backslashes: strings are the
// spans between quotes, brackets outside them count. Returns the offset one
// past the closing bracket, or 0 when the container goes on.
size_t scan_block(ContainerScan& scan, const char* block) {
  const uint64_t quotes = byte_mask(block, '"');
  const uint64_t inside = prefix_xor(quotes) ^ (scan.in_string ? ~uint64_t{0} : 0);
  scan.in_string = (inside >> 63) != 0;
  const uint64_t opens = (byte_mask(block, '[') | byte_mask(block, '{')) & ~inside;
  const uint64_t closes = (byte_mask(block, ']') | byte_mask(block, '}')) & ~inside;
  for (uint64_t brackets = opens | closes; brackets != 0; brackets &= brackets - 1) {
    const uint64_t bit = brackets & (~brackets + 1);
    if ((opens & bit) != 0) {
      ++scan.depth;
    } else if (--scan.depth == 0) {
      return static_cast<size_t>(__builtin_ctzll(bit)) + 1;
    }
  }
  return 0;
}
#endif

// One past the container ('[' or '{') at `at`, or npos. Brackets inside
// strings do not count, and a backslash in a string escapes the next byte.
// 64 bytes at a time where SSE2 is there and the block holds no backslash
// (traces have next to none), byte by byte elsewhere: a trace is mostly
// strings and numbers between few brackets.
size_t skip_container(std::string_view text, size_t at) {
  ContainerScan scan;
  while (at < text.size()) {
#if defined(__SSE2__)
    if (!scan.escaped && at + kBlockBytes <= text.size() && byte_mask(text.data() + at, '\\') == 0) {
      const size_t closed = scan_block(scan, text.data() + at);
      if (closed != 0) return at + closed;
      at += kBlockBytes;
      continue;
    }
    // Byte by byte to the end of this block (or of the text).
    const size_t stop = std::min(text.size(), at + kBlockBytes);
#else
    const size_t stop = text.size();
#endif
    for (; at < stop; ++at) {
      if (scan_byte(scan, text[at])) return at + 1;
    }
  }
  return std::string_view::npos;
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
  return skip_container(text, at);
}

}  // namespace

size_t skip_json_space(std::string_view text, size_t at) { return skip_space(text, at); }

bool scan_array_windows_from(std::string_view text, size_t element, size_t window_begin, size_t window_bytes,
                             ArrayWindows& out, const std::function<void(size_t)>& passed) {
  size_t pos = element;
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

std::optional<size_t> find_root_array(std::string_view text, std::string_view key) {
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
      return pos;
    }
    pos = skip_value(text, pos);
    if (pos == std::string_view::npos) return std::nullopt;
    pos = skip_space(text, pos);
    if (pos >= text.size() || text[pos] != ',') return std::nullopt;
    pos = skip_space(text, pos + 1);
  }
  return std::nullopt;
}

std::optional<ArrayWindows> find_root_array_windows(std::string_view text, std::string_view key,
                                                    size_t window_bytes, const std::function<void(size_t)>& passed) {
  const auto open = find_root_array(text, key);
  if (!open) return std::nullopt;
  ArrayWindows windows;
  windows.array_begin = *open;
  const size_t first = skip_space(text, *open + 1);
  if (first < text.size() && text[first] == ']') {
    windows.array_end = first + 1;
    return windows;
  }
  if (!scan_array_windows_from(text, first, first, window_bytes, windows, passed)) return std::nullopt;
  return windows;
}

}  // namespace snr::pytorch
