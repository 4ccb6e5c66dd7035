// Internal to the host-trace reader: a node's argument lists as compact
// JSON text and the scalar fields a node may carry either flat (schema
// 1.0.1) or as attributes (1.0.2+). (The tensors in argument values are
// found on demand: find_tensors in host_trace.h.)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/ondemand_walker.h"

namespace snr::pytorch::detail {

// One of the argument lists of a node (values, shapes, types or strides) as
// compact JSON text per element.
struct ListField {
  bool present = false;   // there and not null
  bool is_list = false;
  std::vector<std::string_view> elements;  // in the trace's TextPool

  // Absent again, keeping the element storage for the next node.
  void reset() {
    present = false;
    is_list = false;
    elements.clear();
  }
};

struct ArgumentLists {
  ListField values, shapes, types, strides;

  void reset() {
    for (ListField* list : {&values, &shapes, &types, &strides}) list->reset();
  }
};

// The scalar node fields a node carries flat (1.0.1) or as attributes
// (1.0.2+), by name: rf_id, fw_parent, seq_id, scope, tid, fw_tid,
// op_schema. Looked up once per attribute (ten on every node of a 1.0.2+
// trace), so by length and a byte or two rather than by comparing names.
enum class ScalarField : uint8_t { kNone, kRfId, kFwParent, kSeqId, kScope, kTid, kFwTid, kOpSchema };
inline ScalarField scalar_field_of(std::string_view name) {
  const auto is = [&](std::string_view known, ScalarField field) { return name == known ? field : ScalarField::kNone; };
  switch (name.size()) {
    case 3: return is("tid", ScalarField::kTid);
    case 5: return name[0] == 'r' ? is("rf_id", ScalarField::kRfId) : is("scope", ScalarField::kScope);
    case 6: return name[0] == 's' ? is("seq_id", ScalarField::kSeqId) : is("fw_tid", ScalarField::kFwTid);
    case 9: return name[0] == 'f' ? is("fw_parent", ScalarField::kFwParent) : is("op_schema", ScalarField::kOpSchema);
    default: return ScalarField::kNone;
  }
}

// One entry of a node's "attrs" list: a scalar field (its value text in
// RawNode::attr_values) or, for any other name, the whole attribute as
// interned compact JSON.
struct RawAttr {
  ScalarField scalar = ScalarField::kNone;
  size_t value_begin = 0, value_size = 0;
  std::string_view whole;
};

// The fields of one node, gathered in one pass in any key order and used
// once the node's object is complete (the layout is known only then). One
// RawNode is reset and reused for every node, so its lists and strings keep
// their storage instead of being allocated again per node.
struct RawNode {
  bool is_object = false;
  std::optional<uint64_t> id;  // when it is a non-negative integer
  std::string id_text;          // the id as written back, when it is a number
  std::optional<std::string> name;
  JsonNumber ctrl_deps, parent;  // present: there and not null
  bool inputs_object = false, outputs_object = false;
  ArgumentLists inputs, outputs;  // 1.0.2+ "inputs"/"outputs" objects
  ArgumentLists flat_inputs, flat_outputs;  // the 1.0.1 "inputs"/"input_*" and "outputs"/"output_*" lists
  bool has_attrs = false;
  std::vector<RawAttr> attrs;  // in order
  std::string attr_values;     // the scalar attributes' value texts, back to back
  std::vector<std::pair<std::string_view, std::string>> flat_scalars;  // 1.0.1 rf_id, tid, ...
  size_t flat_scalar_count = 0;  // flat_scalars in use (the rest keep their storage)
  // The first device field of a linked trace (ts_ns, dur_ns, ...) whose
  // value is unusable: the node is skipped, as a record whose values cannot
  // be read is, rather than converted with a time of 0.
  std::string bad_device_field;

  void reset() {
    is_object = false;
    id.reset();
    id_text.clear();
    name.reset();
    ctrl_deps = JsonNumber{};
    parent = JsonNumber{};
    inputs_object = outputs_object = false;
    for (ArgumentLists* lists : {&inputs, &outputs, &flat_inputs, &flat_outputs}) lists->reset();
    has_attrs = false;
    attrs.clear();
    attr_values.clear();
    flat_scalar_count = 0;
    bad_device_field.clear();
  }
};

// Turns argument lists into values (the types, unescaped, interned in
// `pool`; strides left "null" without `keep_strides`); returns an error
// reason or "".
std::string read_values(const ArgumentLists& lists, ArenaList<HostValue>& out, TextPool& pool, bool keep_strides);

// The scalar node fields (rf_id, tid, op_schema, ...), by name.
inline bool is_scalar_field(std::string_view name) { return scalar_field_of(name) != ScalarField::kNone; }
// The text of a compact JSON string literal without escapes, unquoted;
// nullopt when `text` is not such a literal.
std::optional<std::string_view> plain_string_text(std::string_view text);

// Adds one "attrs" entry, given as its fields (key, compact value text) in
// document order, to `raw`: a scalar field by name, or any other attribute
// whole, its keys sorted as nlohmann's dump() writes an object. Both node
// readers (the simdjson walk and HostNodeScanner) end an attribute here.
// `Text` is std::string or std::string_view; `fields` is reordered.
// `written`, when not empty, is the attribute's text already in that form.
template <typename Text>
void add_attribute(std::pair<std::string_view, Text>* fields, size_t count, std::optional<size_t> name_field,
                   std::optional<size_t> value_field, RawNode& raw, TextPool& pool, std::string& scratch,
                   std::string_view written = {}) {
  if (!name_field) return;
  const std::string_view name_text = fields[*name_field].second;
  std::optional<std::string> unescaped;
  std::optional<std::string_view> name = plain_string_text(name_text);
  if (!name) {
    unescaped = json_text_string(name_text);
    if (!unescaped) return;  // a name that is not a string
    name = *unescaped;
  }
  if (const ScalarField scalar = scalar_field_of(*name); scalar != ScalarField::kNone) {
    const std::string_view value_text =
        value_field ? std::string_view(fields[*value_field].second) : std::string_view("null");
    raw.attrs.push_back({scalar, raw.attr_values.size(), value_text.size(), {}});
    raw.attr_values.append(value_text);
    return;
  }
  if (!written.empty()) {
    raw.attrs.push_back({ScalarField::kNone, 0, 0, pool.intern(written)});
    return;
  }
  std::sort(fields, fields + count, [](const auto& a, const auto& b) { return a.first < b.first; });
  scratch.assign("{");
  for (size_t i = 0; i < count; ++i) {
    if (i != 0) scratch.push_back(',');
    append_json_string(scratch, fields[i].first);
    scratch.push_back(':');
    scratch += fields[i].second;
  }
  scratch.push_back('}');
  raw.attrs.push_back({ScalarField::kNone, 0, 0, pool.intern(scratch)});
}

// Adds the process groups a "## process_group:init ##" node describes (its
// first input, a JSON list as a string) to `trace`; an unreadable
// description is a skipped record at `index`.
void read_process_groups(const HostNode& node, size_t index, HostTrace& trace);
// Sets the scalar field `field` of `node` from its JSON text; a value of
// the wrong type leaves the field as it was (the reader is lenient there).
// Text fields are interned in `pool`.
void apply_scalar(ScalarField field, std::string_view value, HostNode& node, TextPool& pool);

}  // namespace snr::pytorch::detail
