#include "formats/pytorch/host_node_scanner.h"

#include <algorithm>

#include "formats/pytorch/compact_json.h"
#include "formats/pytorch/json_bytes.h"

namespace snr::pytorch::detail {

namespace {

constexpr size_t kNpos = std::string_view::npos;

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<std::string> HostNodeScanner::canonical_text(std::string_view text) {
  const char* const end = text.data() + text.size();
  bool ignored = true;
  const char* p = skip_json_space(text.data(), end, ignored);
  const char* const start = p;
  bool compact = true;
  if (!scan_json_value(p, end, compact)) return std::nullopt;
  if (skip_json_space(p, end, ignored) != end) return std::nullopt;
  std::string out;
  write_compact_json(start, end, out);
  return out;
}

bool HostNodeScanner::canonical(const char*& p, std::string& buffer, std::string_view& text) {
  const char* const start = p;
  bool compact = true;
  if (last_value_rewritten_) {
    // After a value that was not compact the next one rarely is (PyTorch's
    // own spacing): validated and written in one pass.
    buffer.clear();
    if (!scan_json_value_writing(p, end_, compact, buffer)) return false;
    last_value_rewritten_ = !compact;
    text = compact ? std::string_view(start, static_cast<size_t>(p - start)) : std::string_view(buffer);
    return true;
  }
  if (!scan_json_value(p, end_, compact)) return false;
  if (compact) {
    text = {start, static_cast<size_t>(p - start)};
    return true;
  }
  // Spaces between tokens (PyTorch's own output) or a double written in
  // another form: written again, compact. The text is valid by now.
  last_value_rewritten_ = true;
  buffer.clear();
  write_compact_json(start, end_, buffer);
  text = buffer;
  return true;
}

bool HostNodeScanner::skip_value(const char*& p) {
  bool ignored = true;
  return scan_json_value(p, end_, ignored);
}

bool HostNodeScanner::read_number(const char*& p, JsonNumber& number) {
  number = JsonNumber{};
  number.present = true;
  if (p < end_ && (*p == '-' || is_digit(*p))) {
    bool ignored = true;
    return scan_json_number(p, end_, &number, nullptr, ignored);
  }
  return skip_value(p);
}

bool HostNodeScanner::read_string_or_other(const char*& p, std::optional<std::string_view>& text) {
  text.reset();
  if (p >= end_ || *p != '"') return skip_value(p);
  const char* const start = p;
  bool escaped = false;
  // The walk would unescape; a string with escapes is left to it.
  if (!scan_json_string(p, end_, escaped) || escaped) return false;
  text.emplace(start + 1, static_cast<size_t>(p - start) - 2);
  return true;
}

template <typename Field>
bool HostNodeScanner::scan_keyed_object(const char*& p, std::vector<std::string_view>& keys, Field&& field) {
  keys.clear();
  bool ignored = true;
  if (enter_json_container(p, end_, '}', ignored)) return true;
  while (true) {
    std::string_view key;
    if (!scan_json_key(p, end_, key, ignored)) return false;
    for (std::string_view seen : keys) {
      if (seen == key) return false;  // the walk words the error
    }
    keys.push_back(key);
    if (p >= end_ || !field(key, p)) return false;
    const JsonSeparator next = after_json_element(p, end_, '}', ignored);
    if (next != JsonSeparator::kNext) return next == JsonSeparator::kClosed;
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
  const char* const list = p;
  bool ignored = true;
  if (enter_json_container(p, end_, ']', ignored)) return true;
  // Elements written compact stay views of the input until the list is
  // read; one written again is interned at once (its text is in scratch_).
  const auto in_list = [&](std::string_view text) { return text.data() > list && text.data() < p; };
  size_t element_bytes = 0;
  while (true) {
    std::string_view text;
    if (!canonical(p, scratch_, text)) return false;
    field.elements.push_back(in_list(text) ? text : pool_.intern(text));
    element_bytes += text.size();
    const JsonSeparator next = after_json_element(p, end_, ']', ignored);
    if (next == JsonSeparator::kInvalid) return false;
    if (next == JsonSeparator::kClosed) break;
  }
  const size_t count = field.elements.size();
  if (element_bytes + count + 1 == static_cast<size_t>(p - list) &&
      std::all_of(field.elements.begin(), field.elements.end(), in_list)) {
    // A compact list (brackets, commas and its elements' own texts): stored
    // once whole, its elements views of that copy. Lists of shapes, types
    // and strides repeat from node to node far more often than not, and
    // one lookup per list costs less than one per element.
    const std::string_view whole = pool_.intern({list, static_cast<size_t>(p - list)});
    for (std::string_view& element : field.elements) {
      element = whole.substr(static_cast<size_t>(element.data() - list), element.size());
    }
  } else {
    for (std::string_view& element : field.elements) {
      if (in_list(element)) element = pool_.intern(element);
    }
  }
  return true;
}

bool HostNodeScanner::read_argument_object(const char*& p, ArgumentLists& lists) {
  return scan_keyed_object(p, inner_keys_, [&](std::string_view key, const char*& q) {
    if (key == "values") return read_list(q, lists.values);
    if (key == "shapes") return read_list(q, lists.shapes);
    if (key == "types") return read_list(q, lists.types);
    if (key == "strides") return options_.keep_strides ? read_list(q, lists.strides) : skip_value(q);
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

// The usual attribute in one of the two spellings met in practice: compact
// ({"name":"...","type":"...","value":...}, as `snr et link` writes every
// one) or with one space after each colon and comma (as PyTorch's observer
// writes them). Its pieces are found with fixed compares and one byte
// search per string. False, having taken nothing, for anything else
// (read_common_attr's general path then reads it). The spelling is a
// template parameter so that its literals' lengths are constants: each
// compare is then a few word compares, not a call.
template <bool kSpaced>
bool HostNodeScanner::read_common_attr_spelled(const char*& p, RawNode& raw) {
  constexpr std::string_view kName = kSpaced ? R"({"name": )" : R"({"name":)";
  constexpr std::string_view kType = kSpaced ? R"(, "type": )" : R"(,"type":)";
  constexpr std::string_view kValue = kSpaced ? R"(, "value": )" : R"(,"value":)";
  const char* q = p;
  // A string with no escape, control or non-ASCII byte (what
  // scan_json_string takes without `escaped`, minus UTF-8), `q` on its
  // opening quote; its text with the quotes.
  const auto plain_string = [&](std::string_view& text) {
    if (q >= end_ || *q != '"') return false;
    const char* const close = find_json_special_byte<true>(q + 1, end_);
    if (close >= end_ || *close != '"') return false;
    text = {q, static_cast<size_t>(close + 1 - q)};
    q = close + 1;
    return true;
  };
  std::string_view name_text, type_text, value_text;
  if (!scan_json_literal(q, end_, kName) || !plain_string(name_text)) return false;
  if (!scan_json_literal(q, end_, kType) || !plain_string(type_text)) return false;
  if (!scan_json_literal(q, end_, kValue) || q >= end_ || *q == ' ' || !canonical(q, scratch_, value_text)) {
    return false;
  }
  if (q >= end_ || *q != '}') return false;
  ++q;
  add_common_attr(p, q, name_text, type_text, value_text, !kSpaced, raw);
  p = q;
  return true;
}

void HostNodeScanner::add_common_attr(const char* begin, const char* end, std::string_view name_text,
                                      std::string_view type_text, std::string_view value_text, bool compact,
                                      RawNode& raw) {
  const std::string_view name = name_text.substr(1, name_text.size() - 2);
  if (const ScalarField scalar = scalar_field_of(name); scalar != ScalarField::kNone) {
    raw.attrs.push_back({scalar, raw.attr_values.size(), value_text.size(), {}});
    raw.attr_values.append(value_text);
  } else if (!options_.keep_extra_attrs) {
    // Left out: read and checked only.
  } else if (compact && value_text.data() > begin && value_text.data() < end) {
    raw.attrs.push_back({ScalarField::kNone, 0, 0, pool_.intern({begin, static_cast<size_t>(end - begin)})});
  } else {
    object_.assign("{\"name\":");
    object_.append(name_text);
    object_.append(",\"type\":");
    object_.append(type_text);
    object_.append(",\"value\":");
    object_.append(value_text);
    object_.push_back('}');
    raw.attrs.push_back({ScalarField::kNone, 0, 0, pool_.intern(object_)});
  }
}

bool HostNodeScanner::read_common_attr(const char*& p, RawNode& raw) {
  // `{"name":` then a space or not decides the spelling to try.
  const bool spaced = end_ - p > 8 && p[8] == ' ';
  if (spaced ? read_common_attr_spelled<true>(p, raw) : read_common_attr_spelled<false>(p, raw)) return true;
  const char* q = p;
  bool compact = true;
  // `key` and the colon after it.
  const auto key = [&](std::string_view quoted) {
    q = skip_json_space(q, end_, compact);
    if (!scan_json_literal(q, end_, quoted)) return false;
    q = skip_json_space(q, end_, compact);
    if (q >= end_ || *q != ':') return false;
    q = skip_json_space(q + 1, end_, compact);
    return q < end_;
  };
  const auto comma = [&] {
    q = skip_json_space(q, end_, compact);
    if (q >= end_ || *q != ',') return false;
    ++q;
    return true;
  };
  ++q;
  bool escaped = false;
  if (!key("\"name\"") || *q != '"') return false;
  const char* const name_start = q;
  if (!scan_json_string(q, end_, escaped) || escaped) return false;
  const std::string_view name_text(name_start, static_cast<size_t>(q - name_start));
  if (!comma() || !key("\"type\"") || *q != '"') return false;
  const char* const type_start = q;
  if (!scan_json_string(q, end_, escaped)) return false;
  const std::string_view type_text(type_start, static_cast<size_t>(q - type_start));
  std::string_view value_text;
  if (!comma() || !key("\"value\"") || !canonical(q, scratch_, value_text)) return false;
  q = skip_json_space(q, end_, compact);
  if (q >= end_ || *q != '}') return false;
  ++q;
  add_common_attr(p, q, name_text, type_text, value_text, compact, raw);
  p = q;
  return true;
}

bool HostNodeScanner::read_attrs(const char*& p, RawNode& raw) {
  // Any list, even an empty or all-invalid one, makes the node a 1.0.2+ one.
  raw.has_attrs = *p == '[';
  if (!raw.has_attrs) return skip_value(p);
  bool ignored = true;
  if (enter_json_container(p, end_, ']', ignored)) return true;
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
    const JsonSeparator next = after_json_element(p, end_, ']', ignored);
    if (next != JsonSeparator::kNext) return next == JsonSeparator::kClosed;
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
    if (!n.to_int64(s) || (key == "dur_ns" && s < 0)) {
      if (raw.bad_device_field.empty()) raw.bad_device_field = key;
      return true;
    }
    if (key == "ts_ns") node.ts_ns = s;
    if (key == "dur_ns") node.dur_ns = s;
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
