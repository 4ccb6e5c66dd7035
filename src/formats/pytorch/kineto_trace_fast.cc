#include "formats/pytorch/kineto_trace_fast.h"

#include <charconv>
#include <cstring>

#include <simdjson.h>

#include "formats/pytorch/compact_json.h"
#include "formats/pytorch/json_bytes.h"

namespace snr::pytorch::detail {

namespace {

// Far below the walker's 512: deeper values are left to it.
constexpr size_t kMaxFastDepth = 64;
// Objects with more keys than this are left to the walker (the duplicate
// check here is a linear scan).
constexpr size_t kMaxFastKeys = 32;

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
// What may follow a scalar: the walker refuses "12x" or "truex".
bool ends_scalar(char c) { return is_space(c) || c == ',' || c == '}' || c == ']'; }

class FastEventReader {
 public:
  explicit FastEventReader(std::string_view text, size_t at = 0)
      : at_(text.data() + at), end_(text.data() + text.size()) {}

  // One event: the offset one past it from the text's start, or npos.
  size_t read_one(KinetoRawEvent& raw, const char* text_begin) {
    if (!read_event(raw)) return std::string_view::npos;
    return static_cast<size_t>(at_ - text_begin);
  }

  bool read(const std::function<void(const KinetoRawEvent&)>& visit) {
    while (true) {
      skip_space();
      KinetoRawEvent raw;
      if (!read_event(raw)) return false;
      visit(raw);
      skip_space();
      if (at_ == end_) return true;
      if (*at_ != ',') return false;
      ++at_;
    }
  }

 private:
  void skip_space() {
    while (at_ != end_ && is_space(*at_)) ++at_;
  }

  bool consume(char c) {
    skip_space();
    if (at_ == end_ || *at_ != c) return false;
    ++at_;
    return true;
  }

  // `at_` on the opening quote. The string must hold neither escapes nor
  // control characters (the walker unescapes or refuses those).
  bool read_string(std::string_view& out) {
    const char* const begin = ++at_;
    return finish_string(begin, find_json_special_byte(begin, end_), out);
  }

  bool finish_string(const char* begin, const char* p, std::string_view& out) {
    if (p == end_ || *p != '"') return false;
    out = std::string_view(begin, static_cast<size_t>(p - begin));
    at_ = p + 1;
    return true;
  }

  // A JSON number converted as simdjson's get_number() does; the forms whose
  // conversion could differ ("-0", integers beyond int64_t, more than 19
  // significant digits, doubles that overflow or underflow) are left to the
  // walker.
  bool read_number(JsonNumber& n) { return read_number(&n); }

  // `n` null: the number is only checked (a value the reader does not keep).
  bool read_number(JsonNumber* n) {
    const char* const begin = at_;
    const char* p = at_;
    const bool negative = p != end_ && *p == '-';
    if (negative) ++p;
    const char* const digits = p;
    if (p == end_ || !is_digit(*p)) return false;
    if (*p == '0') {
      ++p;
    } else {
      while (p != end_ && is_digit(*p)) ++p;
    }
    const size_t digit_count = static_cast<size_t>(p - digits);
    bool integral = true;
    size_t fraction_digits = 0;
    if (p != end_ && *p == '.') {
      integral = false;
      ++p;
      const char* const fraction = p;
      while (p != end_ && is_digit(*p)) ++p;
      fraction_digits = static_cast<size_t>(p - fraction);
      if (fraction_digits == 0) return false;
    }
    // Beyond 19 digits simdjson rounds by another route: leave those to it.
    if (digit_count + fraction_digits > 19) return false;
    bool exponent = false;
    if (p != end_ && (*p == 'e' || *p == 'E')) {
      integral = false;
      exponent = true;
      ++p;
      if (p != end_ && (*p == '+' || *p == '-')) ++p;
      if (p == end_ || !is_digit(*p)) return false;
      while (p != end_ && is_digit(*p)) ++p;
    }
    if (p == end_ || !ends_scalar(*p)) return false;
    if (n == nullptr && !exponent) {
      // At most 19 digits and no exponent: always within a double's range,
      // so the walker accepts it ("-0" included) and nothing is converted.
      at_ = p;
      return true;
    }
    JsonNumber ignored;
    if (n == nullptr) n = &ignored;
    n->present = true;
    n->numeric = true;
    if (integral) {
      if (negative && digit_count == 1 && *digits == '0') return false;  // "-0"
      int64_t value = 0;
      const auto [stop, ec] = std::from_chars(begin, p, value);
      if (ec != std::errc() || stop != p) return false;
      n->integral = true;
      n->integer = value;
    } else {
      const auto [stop, ec] = std::from_chars(begin, p, n->real);
      if (ec != std::errc() || stop != p) return false;
    }
    at_ = p;
    return true;
  }

  bool read_literal(std::string_view word) {
    if (static_cast<size_t>(end_ - at_) <= word.size() || std::memcmp(at_, word.data(), word.size()) != 0 ||
        !ends_scalar(at_[word.size()])) {
      return false;
    }
    at_ += word.size();
    return true;
  }

  // Calls field(key) with `at_` on each value, which field must consume.
  template <typename Field>
  bool read_object(Field&& field) {
    if (enter_json_container(at_, end_, '}', compact_text_)) return true;
    // Left uninitialised: only the first key_count are read, and clearing
    // the array for every event and its args was a tenth of the reading.
    struct Key {
      const char* data;
      size_t size;
    };
    Key keys[kMaxFastKeys];
    size_t key_count = 0;
    while (true) {
      if (at_ == end_ || *at_ != '"') return false;
      std::string_view key;
      if (!read_string(key)) return false;
      if (key_count == kMaxFastKeys) return false;
      for (size_t i = 0; i < key_count; ++i) {
        // A repeated key: the walker names the duplicate.
        if (keys[i].size == key.size() && std::memcmp(keys[i].data, key.data(), key.size()) == 0) return false;
      }
      keys[key_count++] = {key.data(), key.size()};
      if (!consume(':')) return false;
      skip_space();
      if (at_ == end_ || !field(key)) return false;
      const JsonSeparator next = after_json_element(at_, end_, '}', compact_text_);
      if (next != JsonSeparator::kNext) return next == JsonSeparator::kClosed;
    }
  }

  // A value the reader does not keep: only checked.
  bool skip_value(size_t depth) {
    switch (*at_) {
      case '"': {
        std::string_view ignored;
        return read_string(ignored);
      }
      case '{':
        if (depth >= kMaxFastDepth) return false;
        return read_object([this, depth](std::string_view) { return skip_value(depth + 1); });
      case '[': {
        if (depth >= kMaxFastDepth) return false;
        if (enter_json_container(at_, end_, ']', compact_text_)) return true;
        while (true) {
          if (at_ == end_ || !skip_value(depth + 1)) return false;
          const JsonSeparator next = after_json_element(at_, end_, ']', compact_text_);
          if (next != JsonSeparator::kNext) return next == JsonSeparator::kClosed;
        }
      }
      case 't': return read_literal("true");
      case 'f': return read_literal("false");
      case 'n': return read_literal("null");
      default: return read_number(nullptr);
    }
  }

  // As OndemandWalker::number: a number, or present but not numeric.
  bool read_number_field(JsonNumber& n, size_t depth) {
    if (*at_ == '-' || is_digit(*at_)) return read_number(n);
    n.present = true;
    return skip_value(depth);
  }

  // As OndemandWalker::string_or_other.
  bool read_string_field(std::optional<std::string_view>& out, size_t depth) {
    if (*at_ != '"') {
      out.reset();
      return skip_value(depth);
    }
    std::string_view s;
    if (!read_string(s)) return false;
    out = s;
    return true;
  }

  bool read_args(KinetoRawEvent& raw) {
    if (*at_ != '{') return skip_value(3);
    return read_object([this, &raw](std::string_view key) {
      if (key == "External id") return read_number_field(raw.external_id, 4);
      if (key == "Record function id") return read_number_field(raw.record_function_id, 4);
      if (key == "correlation") return read_number_field(raw.correlation, 4);
      if (key == "stream") return read_number_field(raw.stream, 4);
      if (key == "device") return read_number_field(raw.device, 4);
      if (key == "wait_on_stream") return read_number_field(raw.wait_on_stream, 4);
      return skip_value(4);
    });
  }

  bool read_event(KinetoRawEvent& raw) {
    if (at_ == end_ || *at_ != '{') return false;
    return read_object([this, &raw](std::string_view key) {
      if (key == "ph") return read_string_field(raw.ph, 2);
      if (key == "cat") return read_string_field(raw.cat, 2);
      if (key == "name") {
        raw.name_seen = true;
        return read_string_field(raw.name, 2);
      }
      if (key == "ts") return read_number_field(raw.ts, 3);
      if (key == "dur") return read_number_field(raw.dur, 3);
      if (key == "pid") return read_number_field(raw.pid, 3);
      if (key == "tid") return read_number_field(raw.tid, 3);
      if (key == "args") return read_args(raw);
      return skip_value(3);
    });
  }

  const char* at_;
  bool compact_text_ = true;  // whether spaces were met: the shared bracket steps note it, unread here
  const char* const end_;
};

}  // namespace

bool read_kineto_events_fast(std::string_view elements, const std::function<void(const KinetoRawEvent&)>& visit) {
  // The walker's first stage refuses invalid UTF-8 anywhere in the window.
  if (!simdjson::validate_utf8(elements.data(), elements.size())) return false;
  return FastEventReader(elements).read(visit);
}

size_t read_kineto_event_fast(std::string_view text, size_t at, KinetoRawEvent& raw) {
  return FastEventReader(text, at).read_one(raw, text.data());
}

}  // namespace snr::pytorch::detail
