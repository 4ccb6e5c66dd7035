#include "formats/pytorch/compact_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "formats/pytorch/json_bytes.h"

namespace snr::pytorch::detail {

namespace {

constexpr size_t kNpos = std::string_view::npos;

constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

// One valid UTF-8 sequence at `p` (a byte >= 0x80), as simdjson checks it:
// no overlong forms, no surrogates, nothing past U+10FFFF.
bool skip_utf8_sequence(const char*& p, const char* end) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(p[i]); };
  const auto continues = [&](size_t i, unsigned low = 0x80, unsigned high = 0xBF) {
    return p + i < end && byte(i) >= low && byte(i) <= high;
  };
  const unsigned lead = byte(0);
  size_t length = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = continues(1) ? 2 : 0;
  } else if (lead == 0xE0) {
    length = continues(1, 0xA0) && continues(2) ? 3 : 0;
  } else if (lead == 0xED) {
    length = continues(1, 0x80, 0x9F) && continues(2) ? 3 : 0;
  } else if (lead >= 0xE1 && lead <= 0xEF) {
    length = continues(1) && continues(2) ? 3 : 0;
  } else if (lead == 0xF0) {
    length = continues(1, 0x90) && continues(2) && continues(3) ? 4 : 0;
  } else if (lead >= 0xF1 && lead <= 0xF3) {
    length = continues(1) && continues(2) && continues(3) ? 4 : 0;
  } else if (lead == 0xF4) {
    length = continues(1, 0x80, 0x8F) && continues(2) && continues(3) ? 4 : 0;
  }
  p += length;
  return length != 0;
}

// The first byte in [p, end) a string scan must look at: '"', '\\', a
// control character or a non-ASCII byte.
const char* find_string_special(const char* p, const char* end) { return find_json_special_byte<true>(p, end); }

int lower_hex_digit(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // upper-case digits too: nlohmann writes lower case
}

// `p` is on a string's opening quote; on success it is past the closing one.
// Only escapes nlohmann's dump() writes the same way are accepted: \" \\ \b
// \f \n \r \t and \u00xx for the other control characters.
bool scan_string(const char*& p, const char* end, bool& escaped) {
  ++p;
  while (true) {
    p = find_string_special(p, end);
    if (p >= end) return false;
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"') {
      ++p;
      return true;
    }
    if (c == '\\') {
      escaped = true;
      if (end - p < 2) return false;
      const char e = p[1];
      if (e == '"' || e == '\\' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
        p += 2;
        continue;
      }
      if (e != 'u' || end - p < 6 || p[2] != '0' || p[3] != '0') return false;
      const int high = lower_hex_digit(p[4]);
      const int low = lower_hex_digit(p[5]);
      if (high < 0 || low < 0) return false;
      const int code = high * 16 + low;
      if (code >= 0x20 || code == '\b' || code == '\f' || code == '\n' || code == '\r' || code == '\t') return false;
      p += 6;
      continue;
    }
    if (c < 0x20 || !skip_utf8_sequence(p, end)) return false;
  }
}

// The most common number: "0" or up to 18 digits not starting with 0 (so it
// fits int64_t), not followed by a fraction or an exponent. False (and `p`
// unmoved) for anything else, which scan_number reads in general.
inline bool scan_plain_integer(const char*& p, const char* end) {
  const char* q = p;
  if (q >= end || *q < '0' || *q > '9') return false;
  if (*q++ != '0') {
    while (q < end && is_digit(*q)) ++q;
    if (q - p > 18) return false;
  }
  if (q < end && (*q == '.' || *q == 'e' || *q == 'E')) return false;
  p = q;
  return true;
}

// Reads the number at `p` into `n` as OndemandWalker::number does. Its
// compact text is the token itself for integers; for other numbers it is
// what nlohmann writes for the double, put in `*rewritten` (when given) if it
// differs from the token. Declined: integers beyond int64_t (negative) or
// uint64_t, "-0", doubles out of range.
// `n` may be null where only the text matters.
bool scan_number(const char*& p, const char* end, JsonNumber* number, std::string* rewritten, bool& compact) {
  const char* const start = p;
  if (p < end && *p == '-') ++p;
  if (p >= end) return false;
  if (*p == '0') {
    ++p;
  } else if (is_digit(*p)) {
    while (p < end && is_digit(*p)) ++p;
  } else {
    return false;
  }
  bool integral = true;
  if (p < end && *p == '.') {
    integral = false;
    ++p;
    if (p >= end || !is_digit(*p)) return false;
    while (p < end && is_digit(*p)) ++p;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    integral = false;
    ++p;
    if (p < end && (*p == '+' || *p == '-')) ++p;
    if (p >= end || !is_digit(*p)) return false;
    while (p < end && is_digit(*p)) ++p;
  }
  if (integral && number == nullptr && p - start <= 18) {
    // Too few digits to leave int64_t: valid as it is, "-0" apart.
    return !(p - start == 2 && start[0] == '-' && start[1] == '0');
  }
  JsonNumber unused;
  JsonNumber& n = number != nullptr ? *number : unused;
  n.numeric = true;
  if (integral) {
    if (p - start == 2 && start[0] == '-' && start[1] == '0') return false;  // nlohmann writes 0, simdjson reads -0.0
    return parse_json_integer(start, p, n);
  }
  const auto [stop, ec] = std::from_chars(start, p, n.real);
  if (ec != std::errc() || stop != p || !std::isfinite(n.real)) return false;
  if (rewritten != nullptr) {
    *rewritten = nlohmann::json(n.real).dump();
    if (*rewritten != std::string_view(start, static_cast<size_t>(p - start))) {
      compact = false;
    } else {
      rewritten->clear();
    }
  }
  return true;
}

// Validates the value at `p` and, with kEmit, appends its compact text to
// `out`. `compact` turns false when the text is not already compact.
template <bool kEmit>
bool scan_value(const char*& p, const char* end, size_t depth, bool& compact, std::string* out) {
  if (p >= end) return false;
  const char* const start = p;
  const auto emit = [&](std::string_view text) {
    if constexpr (kEmit) out->append(text);
  };
  switch (*p) {
    case '"': {
      bool escaped = false;
      if (!scan_string(p, end, escaped)) return false;
      emit({start, static_cast<size_t>(p - start)});
      return true;
    }
    case 't': return scan_json_literal(p, end, "true") && (emit("true"), true);
    case 'f': return scan_json_literal(p, end, "false") && (emit("false"), true);
    case 'n': return scan_json_literal(p, end, "null") && (emit("null"), true);
    case '[': {
      if (depth >= kMaxCompactJsonDepth) return false;
      emit("[");
      if (enter_json_container(p, end, ']', compact)) {
        emit("]");
        return true;
      }
      while (true) {
        // Plain integers (shapes, strides, tensor values) without a call.
        const char* const element = p;
        if (scan_plain_integer(p, end)) {
          emit({element, static_cast<size_t>(p - element)});
        } else if (!scan_value<kEmit>(p, end, depth + 1, compact, out)) {
          return false;
        }
        const JsonSeparator next = after_json_element(p, end, ']', compact);
        if (next == JsonSeparator::kInvalid) return false;
        if (next == JsonSeparator::kClosed) {
          emit("]");
          return true;
        }
        emit(",");
      }
    }
    case '{': {
      // nlohmann writes an object's keys in byte order; one written so
      // already (which also rules out duplicates) is kept, others declined.
      if (depth >= kMaxCompactJsonDepth) return false;
      emit("{");
      if (enter_json_container(p, end, '}', compact)) {
        emit("}");
        return true;
      }
      std::string_view previous_key;
      bool first = true;
      while (true) {
        std::string_view key;
        if (!scan_json_key(p, end, key, compact)) return false;
        if (!first && !(previous_key < key)) return false;
        previous_key = key;
        first = false;
        emit({key.data() - 1, key.size() + 2});  // with its quotes
        emit(":");
        if (!scan_value<kEmit>(p, end, depth + 1, compact, out)) return false;
        const JsonSeparator next = after_json_element(p, end, '}', compact);
        if (next == JsonSeparator::kInvalid) return false;
        if (next == JsonSeparator::kClosed) {
          emit("}");
          return true;
        }
        emit(",");
      }
    }
    default: {
      // Most values are short unsigned integers (tensor ids, shapes): their
      // text is the token, with no sign, fraction or exponent to look at.
      if (scan_plain_integer(p, end)) {
        emit({start, static_cast<size_t>(p - start)});
        return true;
      }
      if constexpr (kEmit) {
        std::string rewritten;
        if (!scan_number(p, end, nullptr, &rewritten, compact)) return false;
        out->append(rewritten.empty() ? std::string_view(start, static_cast<size_t>(p - start))
                                      : std::string_view(rewritten));
        return true;
      } else {
        thread_local std::string rewritten;
        return scan_number(p, end, nullptr, &rewritten, compact);
      }
    }
  }
}

}  // namespace

bool scan_json_string(const char*& p, const char* end, bool& escaped) { return scan_string(p, end, escaped); }

bool scan_json_key(const char*& p, const char* end, std::string_view& key, bool& compact) {
  if (p >= end || *p != '"') return false;
  const char* const start = p;
  bool escaped = false;
  if (!scan_string(p, end, escaped) || escaped) return false;
  key = std::string_view(start + 1, static_cast<size_t>(p - start) - 2);
  p = skip_json_space(p, end, compact);
  if (p >= end || *p != ':') return false;
  p = skip_json_space(p + 1, end, compact);
  return true;
}

bool scan_json_number(const char*& p, const char* end, JsonNumber* number, std::string* rewritten, bool& compact) {
  return scan_number(p, end, number, rewritten, compact);
}

bool scan_json_value(const char*& p, const char* end, bool& compact) {
  return scan_value<false>(p, end, 0, compact, nullptr);
}

bool scan_json_value_writing(const char*& p, const char* end, bool& compact, std::string& out) {
  return scan_value<true>(p, end, 0, compact, &out);
}

void write_compact_json(const char* p, const char* end, std::string& out) {
  bool ignored = true;
  (void)scan_value<true>(p, end, 0, ignored, &out);
}

size_t skip_json_value(std::string_view text, size_t at, size_t end) {
  end = std::min(end, text.size());
  if (at >= end) return kNpos;
  const auto skip_string = [&](size_t open) -> size_t {
    for (size_t i = open + 1; i < end; ++i) {
      if (text[i] == '\\') {
        ++i;
      } else if (text[i] == '"') {
        return i + 1;
      }
    }
    return kNpos;
  };
  const char first = text[at];
  if (first == '"') return skip_string(at);
  if (first != '[' && first != '{') {
    const size_t start = at;
    while (at < end && !is_space(text[at]) && text[at] != ',' && text[at] != ']' && text[at] != '}') ++at;
    return at == start ? kNpos : at;  // no value here (",]")
  }
  size_t depth = 0;
  for (; at < end; ++at) {
    const char c = text[at];
    if (c == '"') {
      at = skip_string(at);
      if (at == kNpos) return kNpos;
      --at;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth == 0) return at + 1;
    }
  }
  return kNpos;
}

}  // namespace snr::pytorch::detail
