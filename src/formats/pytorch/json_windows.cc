#include "formats/pytorch/json_windows.h"

#include <cstring>

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
