// A fast reader of the common host-trace node, straight from the text: the
// nodes `snr et link` writes (compact JSON, sorted keys) and most of what
// PyTorch's observer writes. Internal to the host-trace reader.
//
// The simdjson walk (host_trace.cc) reads every value and writes it out
// again as compact JSON text (OndemandWalker::append_canonical); most values
// already are that text, byte for byte, or are it once the spaces between
// tokens are dropped. This scanner validates a node by hand and keeps such
// values as they are written. It declines (returns npos) whatever it does not
// fully understand or cannot prove canonical: escapes nlohmann writes
// differently (\u00e9, \/), "-0", numbers beyond int64/uint64 integers or a
// double, objects inside values whose keys are not already in byte order,
// keys with escapes, duplicate keys, "syncs"/"stream_waits", nesting deeper
// than kMaxValueDepth, and anything that is not valid JSON. The reader then
// walks that node with simdjson, and reads the whole text again with the
// walk alone if anything fails, so errors are worded as before; a node the
// scanner accepts is one the walk would read into the same RawNode and
// HostNode (host_trace_windows_fuzzer compares the two).
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/pytorch/compact_json.h"
#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/host_trace_values.h"
#include "formats/pytorch/ondemand_walker.h"

namespace snr::pytorch::detail {

class HostNodeScanner {
 public:
  // Values nested deeper than this inside a node are left to the walk, far
  // below the 512 levels snr's JSON rules allow.
  static constexpr size_t kMaxValueDepth = kMaxCompactJsonDepth;

  explicit HostNodeScanner(TextPool& pool) : pool_(pool) {}

  // Strides and extra attributes left out are only validated, not kept.
  void set_options(const HostReadOptions& options) { options_ = options; }

  // Reads the node whose text starts at `at` (an element of "nodes") into
  // `raw` and `node`, scanning no further than `end`; returns one past the
  // node, or npos when it declines (then `raw` and `node` are to be reset).
  size_t scan_node(std::string_view text, size_t at, size_t end, RawNode& raw, HostNode& node);

  // The compact JSON text of the single value `text` (spaces around it
  // allowed), as OndemandWalker::append_canonical writes it; nullopt where
  // the scanner declines. For tests.
  static std::optional<std::string> canonical_text(std::string_view text);

 private:
  const char* end_ = nullptr;
  TextPool& pool_;
  HostReadOptions options_;
  std::string scratch_;  // a value's compact text when it is not already written so
  std::string object_;   // an unknown attribute's sorted object
  bool last_value_rewritten_ = false;  // canonical's last value was not compact
  // One attribute's fields, and the compact texts of those not already
  // compact (a deque: its strings stay where they are as it grows).
  std::vector<std::pair<std::string_view, std::string_view>> attr_fields_;
  std::deque<std::string> attr_texts_;
  // Keys of the node, and of the argument or attribute object inside it
  // being read, to refuse duplicates.
  std::vector<std::string_view> node_keys_, inner_keys_;

  // Reads the object at `p` (on its '{'), calling field(key, p) for each
  // value; false: declined.
  template <typename Field>
  bool scan_keyed_object(const char*& p, std::vector<std::string_view>& keys, Field&& field);
  bool read_field(std::string_view key, const char*& p, RawNode& raw, HostNode& node);
  bool read_list(const char*& p, ListField& field);
  bool read_argument_object(const char*& p, ArgumentLists& lists);
  bool read_attrs(const char*& p, RawNode& raw);
  // The usual attribute, {"name": "...", "type": "...", "value": ...} in that
  // order, added to `raw` without the general object walk; false (nothing
  // taken) for any other shape, which read_attrs then reads in general.
  bool read_common_attr(const char*& p, RawNode& raw);
  template <bool kSpaced>
  bool read_common_attr_spelled(const char*& p, RawNode& raw);
  // Adds the attribute read from [begin, end) to `raw`: a scalar field's
  // value, or the attribute whole (as written when it is `compact` and
  // `value_text` is in it, else written again).
  void add_common_attr(const char* begin, const char* end, std::string_view name_text, std::string_view type_text,
                       std::string_view value_text, bool compact, RawNode& raw);
  // `object` (an attribute just read, its fields in attr_fields_) when it is
  // already the compact, key-sorted text add_attribute would write; else "".
  [[nodiscard]] std::string_view compact_object(std::string_view object, size_t count) const;
  bool read_number(const char*& p, JsonNumber& number);
  bool read_string_or_other(const char*& p, std::optional<std::string_view>& text);
  // The value at `p` as compact text: a view of the input when it is
  // written so, else of `buffer`.
  bool canonical(const char*& p, std::string& buffer, std::string_view& text);
  bool skip_value(const char*& p);
};

}  // namespace snr::pytorch::detail
