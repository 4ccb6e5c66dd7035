#include "formats/pytorch/host_node_walk.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace snr::pytorch::detail {

void HostNodeWalk::read_list(od::value value, ListField& field, size_t depth, const std::string& path) {
  const od::json_type type = type_of(value, path);
  if (type == od::json_type::null) {
    validate(value, depth, path);
    field.reset();
    return;
  }
  field.present = true;
  field.elements.clear();
  field.is_list = type == od::json_type::array;
  if (!field.is_list) {
    validate(value, depth, path);
    return;
  }
  od::array array;
  check(value.get_array().get(array), path);
  for_each_element(array, path, [&](od::value item) {
    scratch_.clear();
    append_canonical(item, scratch_, depth + 1, path);
    field.elements.push_back(pool_.intern(scratch_));
  });
}

void HostNodeWalk::read_argument_object(od::value value, ArgumentLists& lists, const std::string& path) {
  od::object object;
  check(value.get_object().get(object), path);
  for_each_field(object, path, [&](std::string_view key, od::value v) {
    if (key == "values") {
      read_list(v, lists.values, 4, path);
    } else if (key == "shapes") {
      read_list(v, lists.shapes, 4, path);
    } else if (key == "types") {
      read_list(v, lists.types, 4, path);
    } else if (key == "strides") {
      read_list(v, lists.strides, 4, path);
    } else {
      validate(v, 4, path);
    }
  });
}

// Visits the objects of a node's list field (`value` at depth 3); a value
// that is not a list, or an element that is not an object, is validated
// and skipped (the reader is lenient there). False: not a list.
template <typename Visit>
bool HostNodeWalk::for_each_listed_object(od::value value, const std::string& path, Visit&& visit) {
  if (type_of(value, path) != od::json_type::array) {
    validate(value, 3, path);
    return false;
  }
  od::array array;
  check(value.get_array().get(array), path);
  for_each_element(array, path, [&](od::value item) {
    if (type_of(item, path) != od::json_type::object) {
      validate(item, 4, path);
      return;
    }
    od::object object;
    check(item.get_object().get(object), path);
    visit(object);
  });
  return true;
}

void HostNodeWalk::read_attrs(od::value value, RawNode& raw, const std::string& path) {
  // Any list, even an empty or all-invalid one, makes the node a 1.0.2+ one.
  raw.has_attrs = for_each_listed_object(value, path, [&](od::object object) {
    // The attribute's fields go to attr_fields_, whose strings are reused.
    size_t count = 0;
    std::optional<size_t> name_field, value_field;
    for_each_field(object, path, [&](std::string_view key, od::value v) {
      if (count == attr_fields_.size()) attr_fields_.emplace_back();
      auto& field = attr_fields_[count];
      field.first = key;
      field.second.clear();
      append_canonical(v, field.second, 5, path);
      if (key == "name") name_field = count;
      if (key == "value") value_field = count;
      ++count;
    });
    add_attribute(attr_fields_.data(), count, name_field, value_field, raw, pool_, scratch_);
  });
}

void HostNodeWalk::read_syncs(od::value value, HostNode& node, const std::string& path) {
  for_each_listed_object(value, path, [&](od::object object) {
    std::optional<std::string_view> api;
    JsonNumber ts, stream;
    for_each_field(object, path, [&](std::string_view key, od::value v) {
      if (key == "api") {
        api = string_or_other(v, 5, path);
      } else if (key == "ts_ns") {
        ts = number(v, 5, path);
      } else if (key == "stream") {
        stream = number(v, 5, path);
      } else {
        validate(v, 5, path);
      }
    });
    HostSyncCall call;
    if (!api || !ts.to_int64(call.ts_ns)) return;
    call.api.assign(api->data(), api->size());
    (void)stream.to_int64(call.stream);
    node.syncs.push_back(std::move(call));
  });
}

void HostNodeWalk::read_stream_waits(od::value value, HostNode& node, const std::string& path) {
  for_each_listed_object(value, path, [&](od::object object) {
    JsonNumber ts, stream, wait_on;
    for_each_field(object, path, [&](std::string_view key, od::value v) {
      if (key == "ts_ns") {
        ts = number(v, 5, path);
      } else if (key == "stream") {
        stream = number(v, 5, path);
      } else if (key == "wait_on_stream") {
        wait_on = number(v, 5, path);
      } else {
        validate(v, 5, path);
      }
    });
    HostStreamWait wait;
    if (!ts.to_int64(wait.ts_ns)) return;
    (void)stream.to_int64(wait.stream);
    (void)wait_on.to_int64(wait.wait_on_stream);
    node.stream_waits.push_back(wait);
  });
}

void HostNodeWalk::read_node_field(std::string_view key, od::value v, RawNode& raw, HostNode& node, const std::string& path) {
  int64_t s = 0;
  if (key == "id") {
    if (type_of(v, path) == od::json_type::number) {
      append_canonical(v, raw.id_text, 3, path);
      uint64_t id = 0;
      if (json_text_to_uint64(raw.id_text, id)) raw.id = id;
    } else {
      validate(v, 3, path);
    }
  } else if (key == "name") {
    if (auto name = string_or_other(v, 3, path)) raw.name.emplace(*name);
  } else if (key == "ctrl_deps" || key == "parent") {
    JsonNumber& target = key == "ctrl_deps" ? raw.ctrl_deps : raw.parent;
    if (type_of(v, path) == od::json_type::null) {
      validate(v, 3, path);
      target = JsonNumber{};
    } else {
      target = number(v, 3, path);
    }
  } else if (key == "inputs" || key == "outputs") {
    ArgumentLists& lists = key == "inputs" ? raw.inputs : raw.outputs;
    if (type_of(v, path) == od::json_type::object) {
      (key == "inputs" ? raw.inputs_object : raw.outputs_object) = true;
      // Both layouts are read; which one counts is decided at the end.
      read_argument_object(v, lists, path);
      (key == "inputs" ? raw.flat_inputs : raw.flat_outputs).values.reset();
    } else {
      read_list(v, (key == "inputs" ? raw.flat_inputs : raw.flat_outputs).values, 3, path);
    }
  } else if (key == "input_shapes" || key == "input_types" || key == "input_strides" || key == "output_shapes" ||
             key == "output_types" || key == "output_strides") {
    ArgumentLists& lists = key.starts_with("input") ? raw.flat_inputs : raw.flat_outputs;
    ListField& field = key.ends_with("shapes") ? lists.shapes : key.ends_with("types") ? lists.types : lists.strides;
    read_list(v, field, 3, path);
  } else if (key == "attrs") {
    read_attrs(v, raw, path);
  } else if (is_scalar_field(key)) {
    if (raw.flat_scalar_count == raw.flat_scalars.size()) raw.flat_scalars.emplace_back();
    auto& scalar = raw.flat_scalars[raw.flat_scalar_count++];
    scalar.first = key;
    scalar.second.clear();
    append_canonical(v, scalar.second, 3, path);
  } else if (key == "snr_kind") {
    if (auto kind = string_or_other(v, 3, path)) {
      if (*kind == "kernel") node.kind = HostNodeKind::kKernel;
      if (*kind == "gpu_memcpy") node.kind = HostNodeKind::kGpuMemcpy;
      if (*kind == "gpu_memset") node.kind = HostNodeKind::kGpuMemset;
    }
  } else if (key == "ts_ns" || key == "dur_ns" || key == "launch_ts_ns" || key == "stream" || key == "device" ||
             key == "correlation") {
    if (!number(v, 3, path).to_int64(s) || (key == "dur_ns" && s < 0)) {
      if (raw.bad_device_field.empty()) raw.bad_device_field = key;
    } else if (key == "ts_ns") {
      node.ts_ns = s;
    } else if (key == "dur_ns") {
      node.dur_ns = s;
    } else if (key == "launch_ts_ns") {
      node.launch_ts_ns = s;
    } else if (key == "stream") {
      node.stream = s;
    } else if (key == "device") {
      node.device = s;
    } else {
      node.correlation = s;
    }
  } else if (key == "syncs") {
    read_syncs(v, node, path);
  } else if (key == "stream_waits") {
    read_stream_waits(v, node, path);
  } else {
    validate(v, 3, path);
  }
}

std::string HostNodeWalk::finish_node(RawNode& raw, HostNode& node) {
  if (!raw.is_object) return "not an object";
  if (!raw.id) return "no non-negative integer \"id\"";
  node.id = *raw.id;
  if (!raw.name) return "no string \"name\"";
  node.name = std::move(*raw.name);
  if (!raw.bad_device_field.empty()) {
    return fmt::format("\"{}\" is not {}", raw.bad_device_field,
                       raw.bad_device_field == "dur_ns" ? "a non-negative integer" : "an integer");
  }
  const JsonNumber& parent = raw.ctrl_deps.present ? raw.ctrl_deps : raw.parent;
  uint64_t parent_id = 0;
  if (parent.to_uint64(parent_id)) node.parent_id = parent_id;

  std::string problem;
  if (raw.inputs_object || raw.outputs_object) {
    // 1.0.2+ layout: a list where an object belongs counts as no lists.
    if (!raw.inputs_object) raw.inputs.reset();
    if (!raw.outputs_object) raw.outputs.reset();
    problem = read_values(raw.inputs, node.inputs, pool_, options_.keep_strides);
    if (!problem.empty()) return "inputs: " + problem;
    problem = read_values(raw.outputs, node.outputs, pool_, options_.keep_strides);
    if (!problem.empty()) return "outputs: " + problem;
    // Sized once: the lists' memory is not given back as they grow.
    if (options_.keep_extra_attrs) {
      node.extra_attrs.reserve(static_cast<size_t>(std::count_if(
          raw.attrs.begin(), raw.attrs.end(), [](const RawAttr& attr) { return !attr.whole.empty(); })));
    }
    for (const RawAttr& attr : raw.attrs) {
      if (!attr.whole.empty()) {
        if (options_.keep_extra_attrs) node.extra_attrs.push_back(attr.whole);
      } else {
        apply_scalar(attr.scalar, std::string_view(raw.attr_values).substr(attr.value_begin, attr.value_size),
                     node, pool_);
      }
    }
  } else {
    // 1.0.1 layout.
    problem = read_values(raw.flat_inputs, node.inputs, pool_, options_.keep_strides);
    if (!problem.empty()) return "inputs: " + problem;
    problem = read_values(raw.flat_outputs, node.outputs, pool_, options_.keep_strides);
    if (!problem.empty()) return "outputs: " + problem;
    for (const char* key : {"rf_id", "fw_parent", "seq_id", "scope", "tid", "fw_tid", "op_schema"}) {
      for (size_t i = 0; i < raw.flat_scalar_count; ++i) {
        const auto& [name, text] = raw.flat_scalars[i];
        if (name == key && text != "null") apply_scalar(scalar_field_of(name), text, node, pool_);
      }
    }
  }
  // Tensor sizes are read when asked for, and only the communication
  // records' are (their bytes): only theirs are checked here, where a bad
  // one skips the record instead of a message of 0 bytes.
  if (node.name == "record_param_comms" || node.name.starts_with("c10d::")) {
    problem = tensor_size_problem(node.inputs);
    if (!problem.empty()) return "inputs: " + problem;
    problem = tensor_size_problem(node.outputs);
    if (!problem.empty()) return "outputs: " + problem;
  }
  return "";
}

}  // namespace snr::pytorch::detail
