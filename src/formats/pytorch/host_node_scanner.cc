#include "formats/pytorch/host_node_scanner.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

namespace snr::pytorch::detail {

namespace {

constexpr size_t kNpos = std::string_view::npos;

constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Skips JSON whitespace; `compact` turns false when there was any (the
// value's text then differs from its compact form).
const char* skip_space(const char* p, const char* end, bool& compact) {
  const char* const start = p;
  while (p < end && is_space(*p)) ++p;
  if (p != start) compact = false;
  return p;
}

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
// control character or a non-ASCII byte. Eight bytes at a time: strings are
// most of a trace's bytes.
const char* find_string_special(const char* p, const char* end) {
  if constexpr (std::endian::native == std::endian::little) {
    constexpr uint64_t kOnes = 0x0101010101010101ull;
    constexpr uint64_t kHigh = 0x8080808080808080ull;
    while (end - p >= 8) {
      uint64_t word = 0;
      std::memcpy(&word, p, 8);
      const uint64_t quote = word ^ (kOnes * '"');
      const uint64_t backslash = word ^ (kOnes * '\\');
      // A byte's high bit is set below for a zero byte of `quote` or
      // `backslash`, a byte under 0x20 or a byte of 0x80 and up; borrows only
      // run upwards from such a byte, so the lowest one found is exact.
      const uint64_t hits = (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) |
                             ((word - kOnes * 0x20) & ~word) | word) &
                            kHigh;
      if (hits != 0) return p + (std::countr_zero(hits) >> 3);
      p += 8;
    }
  }
  for (; p < end; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) return p;
  }
  return end;
}

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
    if (*start == '-') {
      if (p - start == 2 && start[1] == '0') return false;  // nlohmann writes 0, simdjson reads -0.0
      const auto [stop, ec] = std::from_chars(start, p, n.integer);
      n.integral = true;
      return ec == std::errc() && stop == p;
    }
    const auto [stop, ec] = std::from_chars(start, p, n.unsigned_integer);
    if (ec != std::errc() || stop != p) return false;
    if (n.unsigned_integer <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      n.integral = true;
      n.integer = static_cast<int64_t>(n.unsigned_integer);
    } else {
      n.big_unsigned = true;
      n.real = static_cast<double>(n.unsigned_integer);
    }
    return true;
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

bool scan_literal(const char*& p, const char* end, std::string_view literal) {
  if (static_cast<size_t>(end - p) < literal.size() || std::memcmp(p, literal.data(), literal.size()) != 0) {
    return false;
  }
  p += literal.size();
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
    case 't': return scan_literal(p, end, "true") && (emit("true"), true);
    case 'f': return scan_literal(p, end, "false") && (emit("false"), true);
    case 'n': return scan_literal(p, end, "null") && (emit("null"), true);
    case '[': {
      if (depth >= HostNodeScanner::kMaxValueDepth) return false;
      emit("[");
      p = skip_space(p + 1, end, compact);
      if (p < end && *p == ']') {
        ++p;
        emit("]");
        return true;
      }
      while (true) {
        if (!scan_value<kEmit>(p, end, depth + 1, compact, out)) return false;
        p = skip_space(p, end, compact);
        if (p >= end) return false;
        if (*p == ']') {
          ++p;
          emit("]");
          return true;
        }
        if (*p != ',') return false;
        emit(",");
        p = skip_space(p + 1, end, compact);
      }
    }
    case '{': {
      // nlohmann writes an object's keys in byte order; one written so
      // already (which also rules out duplicates) is kept, others declined.
      if (depth >= HostNodeScanner::kMaxValueDepth) return false;
      emit("{");
      p = skip_space(p + 1, end, compact);
      if (p < end && *p == '}') {
        ++p;
        emit("}");
        return true;
      }
      std::string_view previous_key;
      bool first = true;
      while (true) {
        if (p >= end || *p != '"') return false;
        const char* const key_start = p;
        bool escaped = false;
        if (!scan_string(p, end, escaped) || escaped) return false;
        const std::string_view key(key_start + 1, static_cast<size_t>(p - key_start) - 2);
        if (!first && !(previous_key < key)) return false;
        previous_key = key;
        first = false;
        emit({key_start, static_cast<size_t>(p - key_start)});
        p = skip_space(p, end, compact);
        if (p >= end || *p != ':') return false;
        emit(":");
        p = skip_space(p + 1, end, compact);
        if (!scan_value<kEmit>(p, end, depth + 1, compact, out)) return false;
        p = skip_space(p, end, compact);
        if (p >= end) return false;
        if (*p == '}') {
          ++p;
          emit("}");
          return true;
        }
        if (*p != ',') return false;
        emit(",");
        p = skip_space(p + 1, end, compact);
      }
    }
    default: {
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

std::optional<std::string> HostNodeScanner::canonical_text(std::string_view text) {
  const char* const end = text.data() + text.size();
  bool ignored = true;
  const char* p = skip_space(text.data(), end, ignored);
  const char* const start = p;
  bool compact = true;
  if (!scan_value<false>(p, end, 0, compact, nullptr)) return std::nullopt;
  if (skip_space(p, end, ignored) != end) return std::nullopt;
  std::string out;
  p = start;
  (void)scan_value<true>(p, end, 0, ignored, &out);
  return out;
}

bool HostNodeScanner::canonical(const char*& p, std::string& buffer, std::string_view& text) {
  const char* const start = p;
  bool compact = true;
  if (!scan_value<false>(p, end_, 0, compact, nullptr)) return false;
  if (compact) {
    text = {start, static_cast<size_t>(p - start)};
    return true;
  }
  // Spaces between tokens (PyTorch's own output) or a double written in
  // another form: written again, compact. The text is valid by now.
  buffer.clear();
  const char* again = start;
  bool ignored = true;
  (void)scan_value<true>(again, end_, 0, ignored, &buffer);
  text = buffer;
  return true;
}

bool HostNodeScanner::skip_value(const char*& p) {
  bool ignored = true;
  return scan_value<false>(p, end_, 0, ignored, nullptr);
}

bool HostNodeScanner::read_number(const char*& p, JsonNumber& number) {
  number = JsonNumber{};
  number.present = true;
  if (p < end_ && (*p == '-' || is_digit(*p))) {
    bool ignored = true;
    return scan_number(p, end_, &number, nullptr, ignored);
  }
  return skip_value(p);
}

bool HostNodeScanner::read_string_or_other(const char*& p, std::optional<std::string_view>& text) {
  text.reset();
  if (p >= end_ || *p != '"') return skip_value(p);
  const char* const start = p;
  bool escaped = false;
  // The walk would unescape; a string with escapes is left to it.
  if (!scan_string(p, end_, escaped) || escaped) return false;
  text.emplace(start + 1, static_cast<size_t>(p - start) - 2);
  return true;
}

template <typename Field>
bool HostNodeScanner::scan_keyed_object(const char*& p, std::vector<std::string_view>& keys, Field&& field) {
  keys.clear();
  bool ignored = true;
  p = skip_space(p + 1, end_, ignored);
  if (p < end_ && *p == '}') {
    ++p;
    return true;
  }
  while (true) {
    if (p >= end_ || *p != '"') return false;
    const char* const key_start = p;
    bool escaped = false;
    if (!scan_string(p, end_, escaped) || escaped) return false;
    const std::string_view key(key_start + 1, static_cast<size_t>(p - key_start) - 2);
    for (std::string_view seen : keys) {
      if (seen == key) return false;  // the walk words the error
    }
    keys.push_back(key);
    p = skip_space(p, end_, ignored);
    if (p >= end_ || *p != ':') return false;
    p = skip_space(p + 1, end_, ignored);
    if (p >= end_ || !field(key, p)) return false;
    p = skip_space(p, end_, ignored);
    if (p >= end_) return false;
    if (*p == '}') {
      ++p;
      return true;
    }
    if (*p != ',') return false;
    p = skip_space(p + 1, end_, ignored);
  }
}

bool HostNodeScanner::read_list(const char*& p, ListField& field) {
  if (*p == 'n') {
    if (!skip_value(p)) return false;
    field.reset();
    return true;
  }
  field.present = true;
  field.elements.clear();
  field.is_list = *p == '[';
  if (!field.is_list) return skip_value(p);
  bool ignored = true;
  p = skip_space(p + 1, end_, ignored);
  if (p < end_ && *p == ']') {
    ++p;
    return true;
  }
  while (true) {
    std::string_view text;
    if (!canonical(p, scratch_, text)) return false;
    field.elements.push_back(pool_.intern(text));
    p = skip_space(p, end_, ignored);
    if (p >= end_) return false;
    if (*p == ']') {
      ++p;
      return true;
    }
    if (*p != ',') return false;
    p = skip_space(p + 1, end_, ignored);
  }
}

bool HostNodeScanner::read_argument_object(const char*& p, ArgumentLists& lists) {
  return scan_keyed_object(p, inner_keys_, [&](std::string_view key, const char*& q) {
    if (key == "values") return read_list(q, lists.values);
    if (key == "shapes") return read_list(q, lists.shapes);
    if (key == "types") return read_list(q, lists.types);
    if (key == "strides") return read_list(q, lists.strides);
    return skip_value(q);
  });
}

std::string_view HostNodeScanner::compact_object(std::string_view object, size_t count) const {
  // Compact exactly when the braces, keys, colons, commas and values add up
  // to the whole text (no space anywhere) and each value is its own text.
  size_t written_bytes = 2 + (count == 0 ? 0 : count - 1);
  for (size_t i = 0; i < count; ++i) {
    const auto& [key, text] = attr_fields_[i];
    if (i != 0 && !(attr_fields_[i - 1].first < key)) return {};
    if (text.data() < object.data() || text.data() + text.size() > object.data() + object.size()) return {};
    written_bytes += key.size() + 3 + text.size();
  }
  return written_bytes == object.size() ? object : std::string_view();
}

bool HostNodeScanner::read_common_attr(const char*& p, RawNode& raw) {
  const char* q = p;
  bool compact = true;
  // `key` and the colon after it.
  const auto key = [&](std::string_view quoted) {
    q = skip_space(q, end_, compact);
    if (!scan_literal(q, end_, quoted)) return false;
    q = skip_space(q, end_, compact);
    if (q >= end_ || *q != ':') return false;
    q = skip_space(q + 1, end_, compact);
    return q < end_;
  };
  const auto comma = [&] {
    q = skip_space(q, end_, compact);
    if (q >= end_ || *q != ',') return false;
    ++q;
    return true;
  };
  ++q;
  bool escaped = false;
  if (!key("\"name\"") || *q != '"') return false;
  const char* const name_start = q;
  if (!scan_string(q, end_, escaped) || escaped) return false;
  const std::string_view name_text(name_start, static_cast<size_t>(q - name_start));
  if (!comma() || !key("\"type\"") || *q != '"') return false;
  const char* const type_start = q;
  if (!scan_string(q, end_, escaped)) return false;
  const std::string_view type_text(type_start, static_cast<size_t>(q - type_start));
  std::string_view value_text;
  if (!comma() || !key("\"value\"") || !canonical(q, scratch_, value_text)) return false;
  q = skip_space(q, end_, compact);
  if (q >= end_ || *q != '}') return false;
  ++q;
  const std::string_view name = name_text.substr(1, name_text.size() - 2);
  if (const std::string_view scalar = scalar_field_name(name); !scalar.empty()) {
    raw.attrs.push_back({scalar, raw.attr_values.size(), value_text.size(), {}});
    raw.attr_values.append(value_text);
  } else if (compact && value_text.data() > p && value_text.data() < q) {
    raw.attrs.push_back({{}, 0, 0, pool_.intern({p, static_cast<size_t>(q - p)})});
  } else {
    object_.assign("{\"name\":");
    object_.append(name_text);
    object_.append(",\"type\":");
    object_.append(type_text);
    object_.append(",\"value\":");
    object_.append(value_text);
    object_.push_back('}');
    raw.attrs.push_back({{}, 0, 0, pool_.intern(object_)});
  }
  p = q;
  return true;
}

bool HostNodeScanner::read_attrs(const char*& p, RawNode& raw) {
  // Any list, even an empty or all-invalid one, makes the node a 1.0.2+ one.
  raw.has_attrs = *p == '[';
  if (!raw.has_attrs) return skip_value(p);
  bool ignored = true;
  p = skip_space(p + 1, end_, ignored);
  if (p < end_ && *p == ']') {
    ++p;
    return true;
  }
  while (true) {
    if (p >= end_) return false;
    if (*p != '{') {
      if (!skip_value(p)) return false;
    } else if (!read_common_attr(p, raw)) {
      const char* const object_start = p;
      size_t count = 0;
      std::optional<size_t> name_field, value_field;
      const bool read = scan_keyed_object(p, inner_keys_, [&](std::string_view key, const char*& q) {
        if (count == attr_fields_.size()) attr_fields_.emplace_back();
        if (count == attr_texts_.size()) attr_texts_.emplace_back();
        std::string_view text;
        if (!canonical(q, attr_texts_[count], text)) return false;
        attr_fields_[count] = {key, text};
        if (key == "name") name_field = count;
        if (key == "value") value_field = count;
        ++count;
        return true;
      });
      if (!read) return false;
      add_attribute(attr_fields_.data(), count, name_field, value_field, raw, pool_, object_,
                    compact_object({object_start, static_cast<size_t>(p - object_start)}, count));
    }
    p = skip_space(p, end_, ignored);
    if (p >= end_) return false;
    if (*p == ']') {
      ++p;
      return true;
    }
    if (*p != ',') return false;
    p = skip_space(p + 1, end_, ignored);
  }
}

// Mirrors HostReader::read_node_field (host_trace.cc) key for key.
bool HostNodeScanner::read_field(std::string_view key, const char*& p, RawNode& raw, HostNode& node) {
  JsonNumber n;
  int64_t s = 0;
  if (key == "id") {
    if (*p != '-' && !is_digit(*p)) return skip_value(p);
    std::string_view text;
    if (!canonical(p, scratch_, text)) return false;
    raw.id_text.assign(text);
    uint64_t id = 0;
    if (json_text_to_uint64(raw.id_text, id)) raw.id = id;
    return true;
  }
  if (key == "name") {
    std::optional<std::string_view> name;
    if (!read_string_or_other(p, name)) return false;
    if (name) raw.name.emplace(*name);
    return true;
  }
  if (key == "ctrl_deps" || key == "parent") {
    JsonNumber& target = key == "ctrl_deps" ? raw.ctrl_deps : raw.parent;
    if (*p != 'n') return read_number(p, target);
    target = JsonNumber{};
    return skip_value(p);
  }
  if (key == "inputs" || key == "outputs") {
    const bool inputs = key == "inputs";
    ArgumentLists& flat = inputs ? raw.flat_inputs : raw.flat_outputs;
    if (*p != '{') return read_list(p, flat.values);
    (inputs ? raw.inputs_object : raw.outputs_object) = true;
    if (!read_argument_object(p, inputs ? raw.inputs : raw.outputs)) return false;
    flat.values.reset();
    return true;
  }
  if (key == "input_shapes" || key == "input_types" || key == "input_strides" || key == "output_shapes" ||
      key == "output_types" || key == "output_strides") {
    ArgumentLists& lists = key.starts_with("input") ? raw.flat_inputs : raw.flat_outputs;
    ListField& field = key.ends_with("shapes") ? lists.shapes : key.ends_with("types") ? lists.types : lists.strides;
    return read_list(p, field);
  }
  if (key == "attrs") return read_attrs(p, raw);
  if (is_scalar_field(key)) {
    std::string_view text;
    if (!canonical(p, scratch_, text)) return false;
    if (raw.flat_scalar_count == raw.flat_scalars.size()) raw.flat_scalars.emplace_back();
    auto& scalar = raw.flat_scalars[raw.flat_scalar_count++];
    scalar.first = key;
    scalar.second.assign(text);
    return true;
  }
  if (key == "snr_kind") {
    std::optional<std::string_view> kind;
    if (!read_string_or_other(p, kind)) return false;
    if (kind == "kernel") node.kind = HostNodeKind::kKernel;
    if (kind == "gpu_memcpy") node.kind = HostNodeKind::kGpuMemcpy;
    if (kind == "gpu_memset") node.kind = HostNodeKind::kGpuMemset;
    return true;
  }
  if (key == "ts_ns" || key == "dur_ns" || key == "launch_ts_ns" || key == "stream" || key == "device" ||
      key == "correlation") {
    if (!read_number(p, n)) return false;
    if (!n.to_int64(s)) return true;
    if (key == "ts_ns") node.ts_ns = s;
    if (key == "dur_ns" && s >= 0) node.dur_ns = s;
    if (key == "launch_ts_ns") node.launch_ts_ns = s;
    if (key == "stream") node.stream = s;
    if (key == "device") node.device = s;
    if (key == "correlation") node.correlation = s;
    return true;
  }
  // Rare, and read by the walk alone.
  if (key == "syncs" || key == "stream_waits") return false;
  return skip_value(p);
}

size_t HostNodeScanner::scan_node(std::string_view text, size_t at, size_t end, RawNode& raw, HostNode& node) {
  end_ = text.data() + std::min(end, text.size());
  const char* p = text.data() + at;
  if (p >= end_ || *p != '{') return kNpos;
  raw.is_object = true;
  const bool read = scan_keyed_object(
      p, node_keys_, [&](std::string_view key, const char*& q) { return read_field(key, q, raw, node); });
  return read ? static_cast<size_t>(p - text.data()) : kNpos;
}

}  // namespace snr::pytorch::detail
