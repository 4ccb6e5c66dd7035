#include "common/json_input.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"

namespace snr {

std::string describe_json_position(std::string_view text, size_t byte) {
  byte = std::min(byte, text.size());
  const std::string_view before = text.substr(0, byte);
  const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t line_start = before.rfind('\n');
  const size_t column = line_start == std::string_view::npos ? byte + 1 : byte - line_start;
  return fmt::format("line {}, column {} (byte {})", line, column, byte);
}

namespace {

// A pointer into the text that publishes how far the parser has read, so a
// failure the parser does not locate itself (a duplicate key) still gets a
// position. nlohmann reads one byte at a time through operator* and ++.
struct TrackedPointer {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* at = nullptr;
  const char** read_up_to = nullptr;

  reference operator*() const { return *at; }
  TrackedPointer& operator++() {
    *read_up_to = ++at;
    return *this;
  }
  TrackedPointer operator++(int) {
    TrackedPointer before = *this;
    ++*this;
    return before;
  }
  bool operator==(const TrackedPointer& other) const { return at == other.at; }
};

// nlohmann's messages start with "[json.exception.<kind>.<id>] " and parse
// errors repeat a position as "parse error at line L, column C: "; the
// position is reported once, by us.
std::string reason_from(const std::string& what) {
  std::string_view text(what);
  if (text.starts_with("[json.exception.")) {
    const size_t close = text.find("] ");
    if (close != std::string_view::npos) text.remove_prefix(close + 2);
  }
  if (text.starts_with("parse error")) {
    const size_t colon = text.find(": ");
    if (colon != std::string_view::npos) text.remove_prefix(colon + 2);
  }
  return std::string(text);
}

// Builds the document from parser events, keeping the path of keys and
// indices that leads to the value being read, for error messages.
template <typename BasicJson>
class DocumentBuilder {
 public:
  using number_integer_t = typename BasicJson::number_integer_t;
  using number_unsigned_t = typename BasicJson::number_unsigned_t;
  using number_float_t = typename BasicJson::number_float_t;
  using string_t = typename BasicJson::string_t;
  using binary_t = typename BasicJson::binary_t;

  explicit DocumentBuilder(const JsonInputOptions& options) : options_(options) {}

  bool null() { return add(BasicJson(nullptr)); }
  bool boolean(bool value) { return add(BasicJson(value)); }
  bool number_integer(number_integer_t value) { return add(BasicJson(value)); }
  bool number_unsigned(number_unsigned_t value) { return add(BasicJson(value)); }
  bool number_float(number_float_t value, const string_t& /*text*/) { return add(BasicJson(value)); }
  bool string(string_t& value) { return add(BasicJson(std::move(value))); }
  bool binary(binary_t& value) { return add(BasicJson::binary(std::move(value))); }

  bool start_object(std::size_t /*size*/) { return open(BasicJson::object()); }
  bool start_array(std::size_t /*size*/) { return open(BasicJson::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(string_t& name) {
    Frame& top = stack_.back();
    top.key = std::move(name);
    top.has_key = true;
    if (!options_.allow_duplicate_keys && top.value->contains(top.key)) {
      failure_ = Failure{std::nullopt, fmt::format("duplicate key '{}'", top.key)};
      return false;
    }
    return true;
  }

  template <typename Exception>
  bool parse_error(std::size_t position, const std::string& /*last_token*/, const Exception& error) {
    failure_ = Failure{position, reason_from(error.what())};
    return false;
  }

  struct Failure {
    std::optional<size_t> position;  // where the parser located it, if it did
    std::string reason;
  };

  BasicJson& root() { return root_; }
  const std::optional<Failure>& failure() const { return failure_; }

  // "a.b[2].c": where the value being read sits in the document.
  std::string path() const {
    std::string out;
    for (const Frame& frame : stack_) {
      if (frame.value->is_array()) {
        out += fmt::format("[{}]", frame.value->size() - (frame.child_open ? 1 : 0));
      } else if (frame.has_key) {
        if (!out.empty()) out += '.';
        out += frame.key;
      }
    }
    return out;
  }

 private:
  struct Frame {
    BasicJson* value;
    string_t key;
    bool has_key = false;
    bool child_open = false;
  };
  // Places `value` in the innermost open container (or as the root) and
  // returns where it now lives.
  BasicJson* place(BasicJson&& value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Frame& top = stack_.back();
    if (top.value->is_array()) {
      top.value->push_back(std::move(value));
      return &top.value->back();
    }
    BasicJson& slot = (*top.value)[top.key];
    slot = std::move(value);
    return &slot;
  }

  bool add(BasicJson&& value) {
    place(std::move(value));
    if (!stack_.empty()) stack_.back().has_key = false;
    return true;
  }

  bool open(BasicJson&& container) {
    if (stack_.size() >= options_.max_depth) {
      failure_ = Failure{std::nullopt, fmt::format("nested deeper than {} levels", options_.max_depth)};
      return false;
    }
    BasicJson* placed = place(std::move(container));
    if (!stack_.empty()) stack_.back().child_open = true;
    stack_.push_back(Frame{placed, {}, false, false});
    return true;
  }

  bool close() {
    stack_.pop_back();
    if (!stack_.empty()) {
      stack_.back().child_open = false;
      stack_.back().has_key = false;
    }
    return true;
  }

  const JsonInputOptions& options_;
  BasicJson root_;
  std::vector<Frame> stack_;
  std::optional<Failure> failure_;
};

template <typename BasicJson>
BasicJson parse_with_location(std::string_view text, std::string_view source, const JsonInputOptions& options) {
  DocumentBuilder<BasicJson> builder(options);
  const char* read_up_to = text.data();
  const TrackedPointer first{text.data(), &read_up_to};
  const TrackedPointer last{text.data() + text.size(), &read_up_to};
  const bool ok = BasicJson::sax_parse(first, last, &builder, nlohmann::json::input_format_t::json, true);
  if (ok) return std::move(builder.root());

  const auto& failure = builder.failure();
  // The parser reports the byte after the offending token; a failure the
  // builder raised itself sits where the reading stopped.
  size_t byte = static_cast<size_t>(read_up_to - text.data());
  std::string reason = "invalid JSON";
  if (failure) {
    if (failure->position) byte = *failure->position;
    reason = failure->reason;
  }
  std::string message = source.empty() ? "" : fmt::format("{}: ", source);
  message += describe_json_position(text, byte);
  const std::string path = builder.path();
  if (!path.empty()) message += fmt::format(", key '{}'", path);
  message += ": " + reason;
  throw Error(std::move(message));
}

}  // namespace

nlohmann::json parse_json_input(std::string_view text, std::string_view source, const JsonInputOptions& options) {
  return parse_with_location<nlohmann::json>(text, source, options);
}

nlohmann::ordered_json parse_ordered_json_input(std::string_view text, std::string_view source,
                                                const JsonInputOptions& options) {
  return parse_with_location<nlohmann::ordered_json>(text, source, options);
}

}  // namespace snr
