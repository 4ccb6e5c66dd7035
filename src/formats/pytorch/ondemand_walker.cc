#include "formats/pytorch/ondemand_walker.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/json_input.h"
#include "formats/pytorch/host_trace.h"

namespace snr::pytorch::detail {

bool JsonNumber::to_int64(int64_t& out) const {
  if (!numeric) return false;
  if (integral) {
    out = integer;
    return true;
  }
  if (!std::isfinite(real) || real != std::floor(real) || std::fabs(real) > 9.0e18) return false;
  out = static_cast<int64_t>(real);
  return true;
}

bool parse_json_integer(const char* first, const char* last, JsonNumber& n) {
  if (first != last && *first == '-') {
    int64_t value = 0;
    const auto [stop, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || stop != last) return false;
    n.numeric = n.integral = true;
    n.integer = value;
    return true;
  }
  uint64_t value = 0;
  const auto [stop, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || stop != last) return false;
  n.numeric = true;
  n.unsigned_integer = value;
  if (value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    n.integral = true;
    n.integer = static_cast<int64_t>(value);
  } else {
    n.big_unsigned = true;
    n.real = static_cast<double>(value);
  }
  return true;
}

bool JsonNumber::to_uint64(uint64_t& out) const {
  if (big_unsigned) {
    out = unsigned_integer;
    return true;
  }
  int64_t signed_value = 0;
  if (!to_int64(signed_value) || signed_value < 0) return false;
  out = static_cast<uint64_t>(signed_value);
  return true;
}

void OndemandWalker::KeySet::insert(std::string_view key, OndemandWalker& walker, const std::string& path) {
  for (size_t i = 0; i < small_count_; ++i) {
    if (small_[i] == key) walker.fail_at_location(fmt::format("duplicate key '{}'", key), path);
  }
  for (std::string_view k : more_) {
    if (k == key) walker.fail_at_location(fmt::format("duplicate key '{}'", key), path);
  }
  if (small_count_ < small_.size()) {
    small_[small_count_++] = key;
  } else {
    more_.push_back(key);
  }
}

void OndemandWalker::start(od::parser& parser, od::document& doc, std::string& text, std::string_view empty_message,
                           size_t length) {
  length = std::min(length, text.size());
  // simdjson 3.0's on-demand parser reads its (unallocated) structural index
  // on a document without any token instead of reporting it empty.
  if (std::string_view(text.data(), length).find_first_not_of(" \t\r\n") == std::string_view::npos) {
    failed_on_syntax_ = true;
    throw Error(fmt::format("{}: {}", source_, empty_message));
  }
  if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING) text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  text_ = std::string_view(text.data(), length);
  const simdjson::padded_string_view input(text.data(), length, text.capacity());
  // A document that failed to start (stage 1 rejects bad UTF-8 and
  // unescaped control characters) has no position to ask for; nor has the
  // parser's previous document (a window before), whose buffers it reuses.
  doc_ = nullptr;
  check(parser.iterate(input).get(doc), "");
  doc_ = &doc;
}

void OndemandWalker::check_no_trailing_content() {
  const char* trailing = nullptr;
  if (doc_->current_location().get(trailing) == simdjson::SUCCESS) {
    fail_at_location("trailing content after the document", "");
  }
}

void OndemandWalker::fail_at_location(std::string_view reason, std::string_view path) {
  failed_on_syntax_ = true;
  std::string message = fmt::format("{}: ", source_);
  const char* location = nullptr;
  if (doc_ != nullptr && doc_->current_location().get(location) == simdjson::SUCCESS && location >= text_.data() &&
      location <= text_.data() + text_.size()) {
    const size_t at = static_cast<size_t>(location - text_.data());
    switch (piece_.kind) {
      case Piece::Kind::kWhole: message += describe_json_position(text_, at); break;
      case Piece::Kind::kRoot: {
        // Past the "[]" stand-in, the document has the whole array instead.
        const size_t byte = at <= piece_.array_begin + 1 ? at : at - 2 + (piece_.array_end - piece_.array_begin);
        message += describe_json_position(piece_.document, byte);
        break;
      }
      case Piece::Kind::kWindow:
        message += describe_json_position(piece_.document, piece_.window_begin + (at == 0 ? 0 : at - 1));
        break;
    }
  } else {
    message += "invalid JSON";
  }
  if (!path.empty()) message += fmt::format(", key '{}'", path);
  message += fmt::format(": {}", reason);
  throw Error(std::move(message));
}

void OndemandWalker::validate(od::value value, size_t depth, const std::string& path) {
  switch (type_of(value, path)) {
    case od::json_type::object: {
      if (depth >= kMaxJsonDepth) fail_at_location(fmt::format("nesting deeper than {}", kMaxJsonDepth), path);
      od::object object;
      check(value.get_object().get(object), path);
      for_each_field(object, path, [&](std::string_view, od::value v) { validate(v, depth + 1, path); });
      break;
    }
    case od::json_type::array: {
      if (depth >= kMaxJsonDepth) fail_at_location(fmt::format("nesting deeper than {}", kMaxJsonDepth), path);
      od::array array;
      check(value.get_array().get(array), path);
      for_each_element(array, path, [&](od::value item) { validate(item, depth + 1, path); });
      break;
    }
    case od::json_type::number: (void)number(value, depth, path); break;
    case od::json_type::string: {
      std::string_view s;
      check(value.get_string().get(s), path);
      break;
    }
    case od::json_type::boolean: {
      bool b = false;
      check(value.get_bool().get(b), path);
      break;
    }
    case od::json_type::null: {
      bool null = false;
      check(value.is_null().get(null), path);
      if (!null) fail_at_location("invalid literal", path);
      break;
    }
  }
}

JsonNumber OndemandWalker::number(od::value value, size_t depth, const std::string& path) {
  JsonNumber n;
  n.present = true;
  if (type_of(value, path) != od::json_type::number) {
    validate(value, depth, path);
    return n;
  }
  od::number parsed;
  const simdjson::error_code error = value.get_number().get(parsed);
  n.numeric = true;
  if (error == simdjson::NUMBER_ERROR) {
    // An integer literal beyond 64 bits is a double, as in nlohmann; a
    // number beyond a double's range (1e400) is an error, as everywhere.
    if (value.get_double().get(n.real) != simdjson::SUCCESS) {
      fail_at_location("not a number, or out of the range of a double", path);
    }
    return n;
  }
  check(error, path);
  switch (parsed.get_number_type()) {
    case od::number_type::signed_integer:
      n.integral = true;
      n.integer = parsed.get_int64();
      break;
    case od::number_type::unsigned_integer:
      n.big_unsigned = true;
      n.unsigned_integer = parsed.get_uint64();
      n.real = static_cast<double>(n.unsigned_integer);
      break;
    case od::number_type::floating_point_number: n.real = parsed_double(value, parsed); break;
  }
  return n;
}

double OndemandWalker::parsed_double(od::value& value, od::number& parsed) {
  // simdjson's get_number reads some fractions with more than 19
  // significant digits as 0 (3333331111111111111.7); the literal, valid by
  // now, is read again to the nearest double, as nlohmann reads it.
  std::string_view raw = value.raw_json_token();
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\r' || raw.back() == '\n')) {
    raw.remove_suffix(1);
  }
  size_t digits = 0;
  for (const char c : raw) {
    if (c == 'e' || c == 'E') break;
    digits += c >= '0' && c <= '9' ? 1 : 0;
  }
  constexpr size_t kExactDigits = 19;
  if (digits <= kExactDigits) return parsed.get_double();
  double real = 0;
  const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), real);
  return ec == std::errc() && end == raw.data() + raw.size() ? real : parsed.get_double();
}

std::optional<std::string_view> OndemandWalker::string_or_other(od::value value, size_t depth,
                                                                const std::string& path) {
  if (type_of(value, path) != od::json_type::string) {
    validate(value, depth, path);
    return std::nullopt;
  }
  std::string_view s;
  check(value.get_string().get(s), path);
  return s;
}

void OndemandWalker::append_canonical_number(od::value value, std::string& out, size_t depth,
                                             const std::string& path) {
  std::string_view raw = value.raw_json_token();
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\r' || raw.back() == '\n')) {
    raw.remove_suffix(1);
  }
  const JsonNumber n = number(value, depth, path);  // validates the literal
  if (raw.find_first_of(".eE") == std::string_view::npos) {
    // nlohmann keeps an integer literal as int64_t or uint64_t when it fits
    // ("-0" included, as 0) and as a double only beyond that.
    char digits[24];
    if (!raw.empty() && raw.front() == '-') {
      int64_t v = 0;
      const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), v);
      if (ec == std::errc() && end == raw.data() + raw.size()) {
        const auto r = std::to_chars(digits, digits + sizeof(digits), v);
        out.append(digits, r.ptr);
        return;
      }
    } else {
      uint64_t v = 0;
      const auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), v);
      if (ec == std::errc() && end == raw.data() + raw.size()) {
        const auto r = std::to_chars(digits, digits + sizeof(digits), v);
        out.append(digits, r.ptr);
        return;
      }
    }
  }
  const double real = n.integral ? static_cast<double>(n.integer) : n.real;
  out += nlohmann::json(real).dump();
}

void OndemandWalker::append_canonical(od::value value, std::string& out, size_t depth, const std::string& path) {
  switch (type_of(value, path)) {
    case od::json_type::object: {
      if (depth >= kMaxJsonDepth) fail_at_location(fmt::format("nesting deeper than {}", kMaxJsonDepth), path);
      od::object object;
      check(value.get_object().get(object), path);
      // nlohmann keeps objects in a std::map: keys come out in byte order.
      std::vector<std::pair<std::string_view, std::string>> fields;
      for_each_field(object, path, [&](std::string_view key, od::value v) {
        fields.emplace_back(key, std::string());
        append_canonical(v, fields.back().second, depth + 1, path);
      });
      std::sort(fields.begin(), fields.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      out.push_back('{');
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i != 0) out.push_back(',');
        pytorch::append_json_string(out, fields[i].first);
        out.push_back(':');
        out += fields[i].second;
      }
      out.push_back('}');
      break;
    }
    case od::json_type::array: {
      if (depth >= kMaxJsonDepth) fail_at_location(fmt::format("nesting deeper than {}", kMaxJsonDepth), path);
      od::array array;
      check(value.get_array().get(array), path);
      out.push_back('[');
      bool first = true;
      for_each_element(array, path, [&](od::value item) {
        if (!first) out.push_back(',');
        first = false;
        append_canonical(item, out, depth + 1, path);
      });
      out.push_back(']');
      break;
    }
    case od::json_type::number: append_canonical_number(value, out, depth, path); break;
    case od::json_type::string: {
      std::string_view s;
      check(value.get_string().get(s), path);
      pytorch::append_json_string(out, s);
      break;
    }
    case od::json_type::boolean: {
      bool b = false;
      check(value.get_bool().get(b), path);
      out += b ? "true" : "false";
      break;
    }
    case od::json_type::null: {
      bool null = false;
      check(value.is_null().get(null), path);
      if (!null) fail_at_location("invalid literal", path);
      out += "null";
      break;
    }
  }
}

}  // namespace snr::pytorch::detail
