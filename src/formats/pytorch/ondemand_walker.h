// Shared machinery of the streaming PyTorch readers (host execution traces,
// Kineto traces): simdjson on-demand walking with the acceptance rules every
// snr JSON reader has (no duplicate keys, numbers within a double, nesting
// <= 512, nothing after the document) and errors naming the file, line,
// column, byte and key path. Internal to formats/pytorch.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "formats/pytorch/json_windows.h"
#include "formats/pytorch/mapped_text.h"

namespace snr::pytorch::detail {

namespace od = simdjson::ondemand;

inline constexpr size_t kMaxJsonDepth = 512;  // as snr::parse_json_input

// A JSON value as the readers keep it: absent, not a number, or the number.
struct JsonNumber {
  bool present = false;
  bool numeric = false;
  bool integral = false;  // fits int64_t
  int64_t integer = 0;
  bool big_unsigned = false;  // an integer beyond int64_t within uint64_t, in `unsigned_integer`
  uint64_t unsigned_integer = 0;
  double real = 0;        // when numeric && !integral (floats, integers beyond int64_t)

  [[nodiscard]] std::optional<int64_t> as_int64() const {
    return numeric && integral ? std::optional(integer) : std::nullopt;
  }
  // Integral doubles count, as json_to_int64 lets them.
  [[nodiscard]] bool to_int64(int64_t& out) const;
  [[nodiscard]] bool to_uint64(uint64_t& out) const;
};

// The integer token [first, last) (digits after an optional '-') into `n`:
// as int64_t where it fits, else, when positive, as uint64_t (big_unsigned,
// with `real`). False, `n` untouched, where it fits neither or is not all
// digits.
bool parse_json_integer(const char* first, const char* last, JsonNumber& n);

class OndemandWalker {
 protected:
  OndemandWalker(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  // Starts `doc` on the first `length` bytes of `text` (all of it by
  // default), reserving simdjson's padding past its end; throws
  // `empty_message` (after the source name) for a document without any token.
  void start(od::parser& parser, od::document& doc, std::string& text, std::string_view empty_message,
             size_t length = std::string::npos);
  // At the end, the document has no current location; anything else is
  // content after the root value.
  void check_no_trailing_content();

  void check(simdjson::error_code error, std::string_view path) {
    if (error != simdjson::SUCCESS) fail_at_location(simdjson::error_message(error), path);
  }
  [[noreturn]] void fail_at_location(std::string_view reason, std::string_view path);

  // Calls visit(key, value) for every field of `object` in document order,
  // refusing a key that repeats.
  template <typename Visit>
  void for_each_field(od::object object, const std::string& path, Visit&& visit) {
    KeySet keys;
    for (auto field_result : object) {
      od::field field;
      check(std::move(field_result).get(field), path);
      std::string_view key;
      check(field.unescaped_key().get(key), path);
      keys.insert(key, *this, path);
      visit(key, field.value());
    }
  }

  // Calls visit(value) for every element of `array`.
  template <typename Visit>
  void for_each_element(od::array array, const std::string& path, Visit&& visit) {
    for (auto element : array) {
      od::value item;
      check(std::move(element).get(item), path);
      visit(item);
    }
  }

  od::json_type type_of(od::value value, const std::string& path) {
    od::json_type type = od::json_type::null;
    check(value.type().get(type), path);
    return type;
  }

  // Walks a value the reader does not use, so that it is validated.
  void validate(od::value value, size_t depth, const std::string& path);
  // A floating-point literal's value (`parsed` is its get_number result).
  static double parsed_double(od::value& value, od::number& parsed);
  JsonNumber number(od::value value, size_t depth, const std::string& path);
  std::optional<std::string_view> string_or_other(od::value value, size_t depth, const std::string& path);

  // Appends `value` as compact JSON exactly as nlohmann::json::dump() writes
  // the same value after nlohmann's parse: object keys sorted, strings
  // re-escaped, integers as integers, other numbers in nlohmann's shortest
  // round-trip form. Readers keep verbatim values this way instead of as
  // trees, and writers copy the text out unchanged.
  void append_canonical(od::value value, std::string& out, size_t depth, const std::string& path);

  // Walks the big array's windows of `full_text` one at a time, each parsed
  // as a document of its own ("[" + window + "]") so that the parser's
  // index follows the window; `read_array` gets each window's array. Error
  // positions stay the document's (Piece::Kind::kWindow).
  template <typename ReadArray>
  void walk_windows(const ArrayWindows& split, std::string_view full_text, std::string_view empty_message,
                    std::string_view array_path, ReadArray&& read_array) {
    const WalkState root = save_state();
    od::parser parser;
    od::document doc;
    std::string window;
    if (mapped_ != nullptr) mapped_->begin_pass();
    for (const auto& [begin, end] : split.windows) {
      walk_window(parser, doc, window, root.piece.document, full_text.substr(begin, end - begin), begin,
                  empty_message, array_path, read_array);
    }
    restore_state(root);
  }

  // One window of walk_windows: `elements` (the text of whole array
  // elements at byte `begin` of `document`) walked as "[" + elements + "]"
  // with `parser` and `doc`, `window` holding that text. Leaves the walker
  // on the window (restore_state goes back).
  template <typename ReadArray>
  void walk_window(od::parser& parser, od::document& doc, std::string& window, std::string_view document,
                   std::string_view elements, size_t begin, std::string_view empty_message,
                   std::string_view array_path, ReadArray&& read_array) {
    window.clear();
    window.reserve(elements.size() + 2 + simdjson::SIMDJSON_PADDING);
    window.push_back('[');
    window.append(elements);
    window.push_back(']');
    if (mapped_ != nullptr) mapped_->release_before(begin + elements.size());
    piece_ = {Piece::Kind::kWindow, document, 0, 0, begin};
    start(parser, doc, window, empty_message);
    od::array items;
    check(doc.get_array().get(items), array_path);
    read_array(items);
    check_no_trailing_content();
  }

  // Where the text being walked sits in the document the user gave, so that
  // error positions are the document's: the whole of it; the root piece (the
  // document with its array [array_begin, array_end) replaced by "[]"); or a
  // window ("[" + document[window_begin, window_end) + "]").
  struct Piece {
    enum class Kind { kWhole, kRoot, kWindow } kind = Kind::kWhole;
    std::string_view document;
    size_t array_begin = 0, array_end = 0;  // kRoot
    size_t window_begin = 0;                // kWindow
  };

  // What walk_window changes, to go back to the root document after it.
  struct WalkState {
    std::string_view text;
    od::document* doc = nullptr;
    Piece piece;
  };
  [[nodiscard]] WalkState save_state() const { return {text_, doc_, piece_}; }
  void restore_state(const WalkState& state) {
    text_ = state.text;
    doc_ = state.doc;
    piece_ = state.piece;
  }

  std::string_view text_;
  const std::string& source_;
  od::document* doc_ = nullptr;
  Piece piece_;
  bool failed_on_syntax_ = false;  // set by fail_at_location: the text itself is at fault
  MappedText* mapped_ = nullptr;   // the mapped file being read, given back a window at a time

 private:
  // Keys of one object, to refuse duplicates (JSON leaves them undefined and
  // a reader would silently keep one).
  class KeySet {
   public:
    void insert(std::string_view key, OndemandWalker& walker, const std::string& path);

   private:
    std::array<std::string_view, 16> small_{};
    size_t small_count_ = 0;
    std::vector<std::string_view> more_;
  };

  void append_canonical_number(od::value value, std::string& out, size_t depth, const std::string& path);
};

}  // namespace snr::pytorch::detail
