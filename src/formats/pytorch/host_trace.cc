#include "formats/pytorch/host_trace.h"

#include <fmt/format.h>

#include <unordered_set>

#include "common/error.h"
#include "common/json_input.h"
#include "formats/pytorch/json_input.h"

namespace snr::pytorch {

namespace {

using nlohmann::json;

struct DtypeSize {
  std::string_view name;
  uint64_t bytes;
};

// Names as c10::toString(ScalarType) prints them inside "Tensor(...)".
constexpr DtypeSize kDtypeSizes[] = {
    {"float", 4},          {"double", 8},         {"c10::Half", 2},       {"c10::BFloat16", 2},
    {"half", 2},           {"bfloat16", 2},       {"long int", 8},        {"long", 8},
    {"int64_t", 8},        {"int", 4},            {"short int", 2},       {"short", 2},
    {"signed char", 1},    {"unsigned char", 1},  {"bool", 1},            {"c10::complex<float>", 8},
    {"c10::complex<double>", 16}, {"c10::complex<c10::Half>", 4},
    {"c10::Float8_e4m3fn", 1}, {"c10::Float8_e5m2", 1}, {"c10::Float8_e4m3fnuz", 1},
    {"c10::Float8_e5m2fnuz", 1}, {"c10::qint8", 1}, {"c10::quint8", 1}, {"c10::qint32", 4},
    {"unsigned short", 2}, {"unsigned int", 4}, {"unsigned long", 8},
};

// Splits the comma-separated element types of "GenericList[a,b]" at top level.
std::vector<std::string_view> split_element_types(std::string_view inner) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < inner.size(); ++i) {
    const char c = inner[i];
    if (c == '[' || c == '(' || c == '<') ++depth;
    if (c == ']' || c == ')' || c == '>') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(inner.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start < inner.size()) parts.push_back(inner.substr(start));
  return parts;
}

bool tensor_from_value(std::string_view type, const json& value, const json& shape, TensorRef& out) {
  if (!value.is_array() || value.size() < 5) return false;
  uint64_t fields[5];
  for (size_t i = 0; i < 5; ++i) {
    if (!json_to_uint64(value[i], fields[i])) return false;
  }
  out.tensor_id = fields[0];
  out.storage_id = fields[1];
  out.offset = fields[2];
  out.num_elem = fields[3];
  out.elem_bytes = fields[4];
  out.device = value.size() > 5 && value[5].is_string() ? value[5].get<std::string>() : "";
  const auto open = type.find('(');
  const auto close = type.rfind(')');
  uint64_t element_bytes = 0;
  if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
    element_bytes = dtype_size_bytes(type.substr(open + 1, close - open - 1));
  }
  bool shape_ok = shape.is_array() && element_bytes != 0;
  uint64_t elements = 1;
  if (shape_ok) {
    for (const auto& dim : shape) {
      uint64_t d = 0;
      if (!json_to_uint64(dim, d)) {
        shape_ok = false;
        break;
      }
      elements *= d;
    }
  }
  out.size_bytes = shape_ok ? elements * element_bytes : out.num_elem * out.elem_bytes;
  return true;
}

void collect_tensors(std::string_view type, const json& value, const json& shape,
                     std::vector<TensorRef>& out, int depth) {
  if (depth > 16) return;  // lists of lists this deep do not occur; stop runaway input
  if (type.starts_with("Tensor(") || type == "Tensor") {
    TensorRef tensor;
    if (tensor_from_value(type, value, shape, tensor)) out.push_back(std::move(tensor));
    return;
  }
  const auto open = type.find('[');
  if (open == std::string_view::npos || !type.ends_with("]") || !value.is_array()) return;
  const auto element_types = split_element_types(type.substr(open + 1, type.size() - open - 2));
  if (element_types.empty()) return;
  for (size_t i = 0; i < value.size(); ++i) {
    const std::string_view element_type = element_types[std::min(i, element_types.size() - 1)];
    const json& element_shape = shape.is_array() && i < shape.size() ? shape[i] : json();
    collect_tensors(element_type, value[i], element_shape, out, depth + 1);
  }
}

// Reads one argument list; returns an error reason or "".
std::string read_values(const json& values, const json& shapes, const json& types,
                        const json& strides, std::vector<HostValue>& out,
                        std::vector<TensorRef>& tensors) {
  if (values.is_null() && types.is_null()) return "";
  if (!values.is_array() || !types.is_array()) return "values/types are not lists";
  if (values.size() != types.size()) {
    return fmt::format("{} values but {} types", values.size(), types.size());
  }
  out.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (!types[i].is_string()) return fmt::format("type {} is not a string", i);
    HostValue v;
    v.type = types[i].get<std::string>();
    v.value = values[i];
    v.shape = shapes.is_array() && i < shapes.size() ? shapes[i] : json();
    v.stride = strides.is_array() && i < strides.size() ? strides[i] : json();
    collect_tensors(v.type, v.value, v.shape, tensors, 0);
    out.push_back(std::move(v));
  }
  return "";
}

const json& member(const json& object, const char* key) {
  static const json kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

void read_scalar_fields(const json& source, HostNode& node, bool from_attrs) {
  auto apply = [&node](std::string_view name, const json& value) -> bool {
    uint64_t u = 0;
    int64_t s = 0;
    if (name == "rf_id") {
      if (json_to_uint64(value, u)) node.rf_id = u;
    } else if (name == "fw_parent") {
      if (json_to_uint64(value, u)) node.fw_parent = u;
    } else if (name == "seq_id") {
      if (json_to_int64(value, s)) node.seq_id = s;
    } else if (name == "scope") {
      if (json_to_uint64(value, u)) node.scope = u;
    } else if (name == "tid") {
      if (json_to_uint64(value, u)) node.tid = u;
    } else if (name == "fw_tid") {
      if (json_to_uint64(value, u)) node.fw_tid = u;
    } else if (name == "op_schema") {
      if (value.is_string()) node.op_schema = value.get<std::string>();
    } else {
      return false;
    }
    return true;
  };
  if (from_attrs) {
    for (const auto& attr : source) {
      if (!attr.is_object()) continue;
      const json& name = member(attr, "name");
      if (!name.is_string()) continue;
      if (!apply(name.get<std::string>(), member(attr, "value"))) node.extra_attrs.push_back(attr);
    }
    return;
  }
  for (const char* key : {"rf_id", "fw_parent", "seq_id", "scope", "tid", "fw_tid", "op_schema"}) {
    const json& value = member(source, key);
    if (!value.is_null()) apply(key, value);
  }
}

void read_device_fields(const json& object, HostNode& node) {
  const json& kind = member(object, "snr_kind");
  if (kind.is_string()) {
    const auto& k = kind.get_ref<const std::string&>();
    if (k == "kernel") node.kind = HostNodeKind::kKernel;
    if (k == "gpu_memcpy") node.kind = HostNodeKind::kGpuMemcpy;
    if (k == "gpu_memset") node.kind = HostNodeKind::kGpuMemset;
  }
  int64_t value = 0;
  if (json_to_int64(member(object, "ts_ns"), value)) node.ts_ns = value;
  if (json_to_int64(member(object, "dur_ns"), value) && value >= 0) node.dur_ns = value;
  if (json_to_int64(member(object, "launch_ts_ns"), value)) node.launch_ts_ns = value;
  if (json_to_int64(member(object, "stream"), value)) node.stream = value;
  if (json_to_int64(member(object, "device"), value)) node.device = value;
  if (json_to_int64(member(object, "correlation"), value)) node.correlation = value;
  const json& syncs = member(object, "syncs");
  if (syncs.is_array()) {
    for (const auto& s : syncs) {
      HostSyncCall call;
      if (!s.is_object() || !member(s, "api").is_string() ||
          !json_to_int64(member(s, "ts_ns"), call.ts_ns)) {
        continue;
      }
      call.api = member(s, "api").get<std::string>();
      json_to_int64(member(s, "stream"), call.stream);
      node.syncs.push_back(std::move(call));
    }
  }
  const json& waits = member(object, "stream_waits");
  if (waits.is_array()) {
    for (const auto& w : waits) {
      HostStreamWait wait;
      if (!w.is_object() || !json_to_int64(member(w, "ts_ns"), wait.ts_ns)) continue;
      json_to_int64(member(w, "stream"), wait.stream);
      json_to_int64(member(w, "wait_on_stream"), wait.wait_on_stream);
      node.stream_waits.push_back(wait);
    }
  }
}

std::string node_id_text(const json& object) {
  const json& id = member(object, "id");
  return id.is_number() ? id.dump() : "";
}

// Returns "" on success or why the node was skipped.
std::string read_node(const json& object, HostNode& node) {
  if (!object.is_object()) return "not an object";
  if (!json_to_uint64(member(object, "id"), node.id)) return "no non-negative integer \"id\"";
  const json& name = member(object, "name");
  if (!name.is_string()) return "no string \"name\"";
  node.name = name.get<std::string>();

  uint64_t parent = 0;
  const json& ctrl_deps = member(object, "ctrl_deps");
  const json& parent_field = ctrl_deps.is_null() ? member(object, "parent") : ctrl_deps;
  if (json_to_uint64(parent_field, parent)) node.parent_id = parent;

  const json& inputs = member(object, "inputs");
  const json& outputs = member(object, "outputs");
  std::string problem;
  if (inputs.is_object() || outputs.is_object()) {
    // 1.0.2+ layout.
    problem = read_values(member(inputs, "values"), member(inputs, "shapes"),
                          member(inputs, "types"), member(inputs, "strides"), node.inputs,
                          node.input_tensors);
    if (!problem.empty()) return "inputs: " + problem;
    problem = read_values(member(outputs, "values"), member(outputs, "shapes"),
                          member(outputs, "types"), member(outputs, "strides"), node.outputs,
                          node.output_tensors);
    if (!problem.empty()) return "outputs: " + problem;
    const json& attrs = member(object, "attrs");
    if (attrs.is_array()) read_scalar_fields(attrs, node, true);
  } else {
    // 1.0.1 layout.
    problem = read_values(inputs, member(object, "input_shapes"), member(object, "input_types"),
                          member(object, "input_strides"), node.inputs, node.input_tensors);
    if (!problem.empty()) return "inputs: " + problem;
    problem = read_values(outputs, member(object, "output_shapes"),
                          member(object, "output_types"), member(object, "output_strides"),
                          node.outputs, node.output_tensors);
    if (!problem.empty()) return "outputs: " + problem;
    read_scalar_fields(object, node, false);
  }
  read_device_fields(object, node);
  return "";
}

void read_process_groups(const HostNode& node, HostTrace& trace, size_t index) {
  if (node.inputs.empty() || !node.inputs[0].value.is_string()) return;
  try {
    const json groups = parse_json_input(node.inputs[0].value.get<std::string>(), "");
    if (!groups.is_array()) throw json::type_error::create(302, "not a list", nullptr);
    for (const auto& g : groups) {
      ProcessGroupInfo info;
      if (member(g, "pg_name").is_string()) info.pg_name = member(g, "pg_name").get<std::string>();
      if (member(g, "backend_config").is_string()) {
        info.backend_config = member(g, "backend_config").get<std::string>();
      }
      json_to_int64(member(g, "group_size"), info.group_size);
      json_to_int64(member(g, "backend_id"), info.backend_id);
      if (member(g, "ranks").is_array()) {
        for (const auto& r : member(g, "ranks")) {
          int64_t rank = 0;
          if (json_to_int64(r, rank)) info.ranks.push_back(rank);
        }
      }
      trace.process_groups.push_back(std::move(info));
    }
  } catch (const json::exception& e) {
    trace.skipped.push_back({index, std::to_string(node.id),
                             fmt::format("unreadable process-group description: {}", e.what())});
  } catch (const Error& e) {
    trace.skipped.push_back({index, std::to_string(node.id),
                             fmt::format("unreadable process-group description: {}", e.what())});
  }
}

}  // namespace

uint64_t dtype_size_bytes(std::string_view dtype) {
  for (const auto& entry : kDtypeSizes) {
    if (entry.name == dtype) return entry.bytes;
  }
  return 0;
}

bool is_trace_annotation(std::string_view name) {
  if (name.starts_with("## ") && name.ends_with(" ##")) return true;
  return name.starts_with("[pytorch|profiler|execution_trace|") ||
         name.starts_with("[pytorch|profiler|execution_graph|");
}

HostTrace parse_host_trace(const json& document, const std::string& source_name) {
  if (!document.is_object()) {
    throw Error(fmt::format("{}: not a PyTorch execution trace: the document is not an object",
                            source_name));
  }
  const json& nodes = member(document, "nodes");
  if (!nodes.is_array()) {
    throw Error(fmt::format("{}: not a PyTorch execution trace: no \"nodes\" list", source_name));
  }
  HostTrace trace;
  if (member(document, "schema").is_string()) trace.schema = member(document, "schema").get<std::string>();
  json_to_int64(member(document, "pid"), trace.pid);
  int64_t rank = 0;
  if (json_to_int64(member(document, "rank"), rank)) trace.rank = rank;
  else if (json_to_int64(member(member(document, "distributedInfo"), "rank"), rank)) trace.rank = rank;
  trace.linked = member(document, "snr_linked").is_object();
  for (auto it = document.begin(); it != document.end(); ++it) {
    if (it.key() != "nodes") trace.root_fields[it.key()] = it.value();
  }

  std::unordered_set<uint64_t> seen_ids;
  seen_ids.reserve(nodes.size());
  trace.nodes.reserve(nodes.size());
  for (size_t index = 0; index < nodes.size(); ++index) {
    HostNode node;
    std::string problem = read_node(nodes[index], node);
    if (problem.empty() && !seen_ids.insert(node.id).second) {
      problem = "duplicate id";
    }
    if (!problem.empty()) {
      trace.skipped.push_back({index, node_id_text(nodes[index]), std::move(problem)});
      continue;
    }
    if (node.name == "## process_group:init ##") read_process_groups(node, trace, index);
    trace.nodes.push_back(std::move(node));
  }
  return trace;
}

HostTrace parse_host_trace_text(std::string_view text, const std::string& source_name) {
  return parse_host_trace(parse_json_document(text, source_name), source_name);
}

HostTrace read_host_trace(const std::filesystem::path& path) {
  return parse_host_trace(parse_json_document(read_maybe_gzip(path), path.string()), path.string());
}

}  // namespace snr::pytorch
