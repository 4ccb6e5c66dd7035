// The compact JSON text the host-trace reader keeps for verbatim values
// (host_trace.h): reading numbers, strings and list elements back out of it,
// and writing strings the way nlohmann's dump() escapes them.
#include <fmt/format.h>

#include <charconv>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <iterator>
#include <limits>

#include <nlohmann/json.hpp>

#include "formats/pytorch/host_trace.h"
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
  if (integer_literal) {
    if (text.front() == '-') {
      const auto [end, ec] = std::from_chars(first, last, n.integer);
      if (ec == std::errc() && end == last) {
        n.numeric = n.integral = true;
        return true;
      }
    } else if (const auto [end, ec] = std::from_chars(first, last, n.unsigned_integer);
               ec == std::errc() && end == last) {
      n.numeric = true;
      if (n.unsigned_integer <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        n.integral = true;
        n.integer = static_cast<int64_t>(n.unsigned_integer);
      } else {
        n.big_unsigned = true;
        n.real = static_cast<double>(n.unsigned_integer);
      }
      return true;
    }
  }
  const auto [end, ec] = std::from_chars(first, last, n.real);
  n.numeric = ec == std::errc() && end == last;
  return n.numeric;
}

}  // namespace

bool json_text_to_int64(std::string_view text, int64_t& out) {
  JsonNumber n;
  return parse_number_text(text, n) && n.to_int64(out);
}

bool json_text_to_uint64(std::string_view text, uint64_t& out) {
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

bool json_text_elements(std::string_view text, std::vector<std::string_view>& out) {
  out.clear();
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return false;
  int depth = 0;
  bool in_string = false;
  size_t start = 1;
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    const char c = text[i];
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
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (text.size() > 2) out.push_back(text.substr(start, text.size() - 1 - start));
  return true;
}

void append_json_string(std::string& out, std::string_view text) {
  out.push_back('"');
  size_t run_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
#if defined(__SSE2__)
    // Almost every byte is copied as it is: pass sixteen at a time while
    // none is a quote, a backslash or a control character.
    while (i + 16 <= text.size()) {
      const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
      const __m128i control_max = _mm_set1_epi8(0x1f);
      const __m128i special = _mm_or_si128(
          _mm_or_si128(_mm_cmpeq_epi8(chunk, _mm_set1_epi8('"')), _mm_cmpeq_epi8(chunk, _mm_set1_epi8('\\'))),
          _mm_cmpeq_epi8(_mm_max_epu8(chunk, control_max), control_max));
      const int mask = _mm_movemask_epi8(special);
      if (mask != 0) {
        i += static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
        break;
      }
      i += 16;
    }
    if (i >= text.size()) break;
#endif
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.data() + run_start, i - run_start);
    run_start = i + 1;
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
  }
  out.append(text.data() + run_start, text.size() - run_start);
  out.push_back('"');
}

}  // namespace snr::pytorch
