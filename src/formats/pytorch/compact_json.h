// Hand validation of JSON values by snr's rules, and their compact text as
// nlohmann's dump() writes it, for the host-trace node scanner
// (host_node_scanner.h). Each function is conservative: it refuses (returns
// false) anything it cannot prove valid and written the one way nlohmann
// writes it, and the caller leaves such text to the simdjson walk.
// Internal to formats/pytorch.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include "formats/pytorch/ondemand_walker.h"

namespace snr::pytorch::detail {

// Values nested deeper than this are refused, far below the 512 levels
// snr's JSON rules allow.
inline constexpr size_t kMaxCompactJsonDepth = 64;

// Past the JSON whitespace at `p`; `compact` turns false when there was any.
// Inline: it runs between every two tokens.
inline const char* skip_json_space(const char* p, const char* end, bool& compact) {
  // Compact text has no space: one test decides the common case.
  if (p < end && static_cast<unsigned char>(*p) > ' ') return p;
  const char* const start = p;
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
  if (p != start) compact = false;
  return p;
}

// `p` on a container's opening bracket: past it and the space after it.
// True when the container is empty (then `p` is past `close`).
inline bool enter_json_container(const char*& p, const char* end, char close, bool& compact) {
  p = skip_json_space(p + 1, end, compact);
  if (p < end && *p == close) {
    ++p;
    return true;
  }
  return false;
}

// What follows a container's element: a ',' (kNext: `p` past it and the
// space after it), `close` (kClosed: `p` past it) or anything else
// (kInvalid).
enum class JsonSeparator { kNext, kClosed, kInvalid };
inline JsonSeparator after_json_element(const char*& p, const char* end, char close, bool& compact) {
  p = skip_json_space(p, end, compact);
  if (p >= end) return JsonSeparator::kInvalid;
  if (*p == close) {
    ++p;
    return JsonSeparator::kClosed;
  }
  if (*p != ',') return JsonSeparator::kInvalid;
  p = skip_json_space(p + 1, end, compact);
  return JsonSeparator::kNext;
}

// `p` on a string's opening quote; past its closing one on success. Only
// escapes nlohmann writes the same way are taken (\" \\ \b \f \n \r \t and
// \u00xx, lower case, for the other control characters); raw control
// characters and invalid UTF-8 are refused. `escaped`: it had an escape.
bool scan_json_string(const char*& p, const char* end, bool& escaped);

// `p` on an object key: the key (refused when it has escapes) and the ':'
// after it; `p` past the ':' and the space after it. `key` is the text
// between the quotes.
bool scan_json_key(const char*& p, const char* end, std::string_view& key, bool& compact);

// The number at `p`, into `number` (when given) as OndemandWalker::number
// reads it. Integers are their own compact text; for other numbers the text
// nlohmann writes for the double goes to `rewritten` (when given) if it
// differs from the token, and `compact` turns false. Refused: "-0", integers
// beyond int64_t (negative) or uint64_t, doubles out of range.
bool scan_json_number(const char*& p, const char* end, JsonNumber* number, std::string* rewritten, bool& compact);

// `literal` at `p` (then `p` is past it). Inline: with a literal of known
// length the compare is a few word compares, not a call.
inline bool scan_json_literal(const char*& p, const char* end, std::string_view literal) {
  if (static_cast<size_t>(end - p) < literal.size() || std::memcmp(p, literal.data(), literal.size()) != 0) {
    return false;
  }
  p += literal.size();
  return true;
}

// Validates the value at `p` (past it on success); `compact` turns false
// when its text is not already what write_compact_json writes. Objects are
// taken only with their keys in byte order (so no duplicates) and without
// escapes in keys.
bool scan_json_value(const char*& p, const char* end, bool& compact);

// Appends the compact text of the value at `p`, which scan_json_value took.
void write_compact_json(const char* p, const char* end, std::string& out);

// scan_json_value and write_compact_json in one pass: validates the value
// at `p` as scan_json_value does and appends its compact text to `out`
// (partly, when it fails). For text mostly not compact, where validating
// first and writing after would read each value twice.
bool scan_json_value_writing(const char*& p, const char* end, bool& compact, std::string& out);

// One past the JSON value that starts at `at` (strings and brackets only
// followed, not validated), or npos when it does not end before `end` or
// there is no value at `at`.
size_t skip_json_value(std::string_view text, size_t at, size_t end);

}  // namespace snr::pytorch::detail
