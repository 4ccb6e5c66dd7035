// The compact JSON text the host-trace reader keeps for verbatim values
// (host_trace.h): reading numbers, strings and list elements back out of it,
// and writing strings the way nlohmann's dump() escapes them.
#include <fmt/format.h>

#include <charconv>

#include <iterator>
#include <limits>

#include <nlohmann/json.hpp>

#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/json_bytes.h"
#include "formats/pytorch/ondemand_walker.h"

namespace snr::pytorch {

namespace {

using detail::JsonNumber;

bool parse_number_text(std::string_view text, JsonNumber& n) {
  if (text.empty()) return false;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  bool integer_literal = true;  // no '.', 'e' or 'E': one pass, these texts are short
  for (const char c : text) {
    if (c == '.' || c == 'e' || c == 'E') {
      integer_literal = false;
      break;
    }
  }
  if (integer_literal && detail::parse_json_integer(first, last, n)) return true;
  const auto [end, ec] = std::from_chars(first, last, n.real);
  n.numeric = ec == std::errc() && end == last;
  return n.numeric;
}

// Plain digits without a leading zero ("0" itself apart), at most
// `max_digits` of them: their value, which cannot overflow. The common
// number of a trace (ids, thread ids, sizes); anything else is left to
// parse_number_text.
bool plain_digits(std::string_view text, size_t max_digits, uint64_t& value) {
  if (text.empty() || text.size() > max_digits || (text[0] == '0' && text.size() != 1)) return false;
  value = 0;
  for (const char c : text) {
    const auto digit = static_cast<unsigned char>(c - '0');
    if (digit > 9) return false;
    value = value * 10 + digit;
  }
  return true;
}

}  // namespace

bool json_text_to_int64(std::string_view text, int64_t& out) {
  const bool negative = text.starts_with('-');
  uint64_t magnitude = 0;
  // ("-0" is left to the general parse, which decides what it reads as.)
  if (plain_digits(text.substr(negative ? 1 : 0), 18, magnitude) && !(negative && magnitude == 0)) {
    out = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
    return true;
  }
  JsonNumber n;
  return parse_number_text(text, n) && n.to_int64(out);
}

bool json_text_to_uint64(std::string_view text, uint64_t& out) {
  uint64_t value = 0;
  if (plain_digits(text, 19, value)) {
    out = value;
    return true;
  }
  JsonNumber n;
  return parse_number_text(text, n) && n.to_uint64(out);
}

std::optional<std::string> json_text_string(std::string_view text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return std::nullopt;
  const std::string_view inner = text.substr(1, text.size() - 2);
  if (inner.find('\\') == std::string_view::npos) return std::string(inner);
  try {
    return nlohmann::json::parse(text).get<std::string>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

bool JsonTextElements::next(std::string_view& element) {
  if (at_ >= text_.size()) return false;
  int depth = 0;
  bool in_string = false;
  const size_t start = at_;
  for (size_t i = start; i + 1 < text_.size(); ++i) {
    const char c = text_[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      element = text_.substr(start, i - start);
      at_ = i + 1;
      return true;
    }
  }
  element = text_.substr(start, text_.size() - 1 - start);
  at_ = text_.size();
  return true;
}

bool json_text_elements(std::string_view text, std::vector<std::string_view>& out) {
  out.clear();
  JsonTextElements elements(text);
  std::string_view element;
  while (elements.next(element)) out.push_back(element);
  return elements.is_array();
}

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  const char* p = text.data();
  const char* const end = text.data() + text.size();
  while (true) {
    // Almost every byte is copied as it is.
    const char* const special = detail::find_json_special_byte(p, end);
    out.append(p, static_cast<size_t>(special - p));
    if (special == end) break;
    const auto c = static_cast<unsigned char>(*special);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: fmt::format_to(std::back_inserter(out), "\\u{:04x}", c); break;
    }
    p = special + 1;
  }
  out.push_back('"');
}

}  // namespace snr::pytorch
