// Internal to the host-trace reader: a node's argument lists as compact
// JSON text, the tensors found in them, and the scalar fields a node may
// carry either flat (schema 1.0.1) or as attributes (1.0.2+).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/pytorch/host_trace.h"

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

// Turns argument lists into values and the tensors in them (the types,
// unescaped, interned in `pool`); returns an error reason or "".
std::string read_values(const ArgumentLists& lists, std::vector<HostValue>& out, std::vector<TensorRef>& tensors,
                        TextPool& pool);

// The scalar node fields (rf_id, tid, op_schema, ...), by name.
bool is_scalar_field(std::string_view name);
// The literal spelling of a scalar node field's name, so that it outlives
// the buffer `name` is in; empty for other names.
std::string_view scalar_field_name(std::string_view name);
// The text of a compact JSON string literal without escapes, unquoted;
// nullopt when `text` is not such a literal.
std::optional<std::string_view> plain_string_text(std::string_view text);

// Adds the process groups a "## process_group:init ##" node describes (its
// first input, a JSON list as a string) to `trace`; an unreadable
// description is a skipped record at `index`.
void read_process_groups(const HostNode& node, size_t index, HostTrace& trace);
// Sets the scalar field `name` of `node` from its JSON text; a value of the
// wrong type leaves the field as it was (the reader is lenient there).
// Text fields are interned in `pool`.
void apply_scalar(std::string_view name, std::string_view value, HostNode& node, TextPool& pool);

}  // namespace snr::pytorch::detail
