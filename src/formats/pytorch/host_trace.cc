#include "formats/pytorch/host_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <cmath>
#include <iterator>
#include <limits>
#include <unordered_set>

#include "common/error.h"
#include "common/json_input.h"
#include "formats/pytorch/json_input.h"
#include "formats/pytorch/host_trace_values.h"
#include "formats/pytorch/json_windows.h"
#include "formats/pytorch/mapped_text.h"
#include "formats/pytorch/ondemand_walker.h"

namespace snr::pytorch {

namespace {

using nlohmann::json;
using detail::ArgumentLists;
using detail::JsonNumber;
using detail::ListField;
using detail::apply_scalar;
using detail::is_scalar_field;
using detail::read_values;
namespace od = detail::od;

// The fields of one node, gathered in one pass in any key order and used
// once the node's object is complete (the layout is known only then).
struct RawNode {
  bool is_object = false;
  std::optional<uint64_t> id;  // when it is a non-negative integer
  std::string id_text;          // the id as written back, when it is a number
  std::optional<std::string> name;
  JsonNumber ctrl_deps, parent;  // present: there and not null
  bool inputs_object = false, outputs_object = false;
  ArgumentLists inputs, outputs;  // 1.0.2+ "inputs"/"outputs" objects, or the 1.0.1 flat lists
  bool has_attrs = false;
  std::vector<std::pair<std::string, std::string>> attrs;  // name, value text; in order
  std::vector<std::optional<std::string_view>> attr_texts;  // whole attribute text for unknown names, interned
  std::vector<std::pair<std::string_view, std::string>> flat_scalars;  // 1.0.1 rf_id, tid, ...
};

class HostReader : private detail::OndemandWalker {
 public:
  // Windows of about this many bytes keep simdjson's index (4 bytes per
  // structural character) and string buffer a few megabytes.
  static constexpr size_t kWindowBytes = 4 << 20;

  HostReader(std::string_view text, const std::string& source, size_t window_bytes = kWindowBytes)
      : OndemandWalker(text, source), window_bytes_(window_bytes) {}

  HostTrace read(std::string& text) {
    // Room for simdjson's padding first: growing `text` later would move it
    // from under the views of it the walk holds.
    if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING) {
      text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
    }
    text_ = text;
    return read_checked(text, &text);
  }

  // The file's text, given back to `mapped` a window at a time.
  HostTrace read_mapped(MappedText& mapped) {
    mapped_ = &mapped;
    return read_checked(mapped.text(), nullptr);
  }

 private:
  HostTrace read_checked(std::string_view text, std::string* padded) {
    try {
      return walk(text, padded);
    } catch (const Error&) {
      if (!failed_on_syntax_) throw;
      // simdjson cannot place every syntax error (stage 1 finds an unclosed
      // string or bad UTF-8 without a position); the DOM parser can, and
      // says it as every other snr reader does. Only broken input pays this.
      (void)parse_json_input(text, source_);
      throw;
    }
  }

  // `padded`: `text` itself when it is a string with room for the padding;
  // otherwise (a mapped file) what simdjson reads is copied.
  HostTrace walk(std::string_view text, std::string* padded) {
    // nlohmann, which read these traces before, ends the input at a NUL byte
    // outside a string (and refuses one inside, which the fallback above
    // reports); so does this reader.
    const size_t length = std::min(find_nul_releasing(text, mapped_), text.size());
    // The root object with "nodes" emptied is walked here, and the nodes one
    // window at a time (read_windows): simdjson's index then covers a window,
    // not the whole trace.
    std::string root_text;
    std::string* root_source = padded;
    size_t root_length = length;
    std::function<void(size_t)> passed;
    if (mapped_ != nullptr) {
      mapped_->begin_pass();
      passed = [this](size_t end) { mapped_->release_before(end); };
    }
    auto split = find_root_array_windows(text.substr(0, length), "nodes", window_bytes_, passed);
    if (split && !split->windows.empty()) {
      root_text.reserve(length - (split->array_end - split->array_begin) + 2 + simdjson::SIMDJSON_PADDING);
      root_text.append(text.substr(0, split->array_begin));
      root_text.append("[]");
      root_text.append(text.substr(split->array_end, length - split->array_end));
      root_source = &root_text;
      root_length = root_text.size();
      windows_ = &*split;
      full_text_ = text;
      trace_.nodes.reserve(split->elements);
      piece_ = {Piece::Kind::kRoot, std::string_view(text.data(), length), split->array_begin, split->array_end, 0};
    }
    if (root_source == nullptr) {
      root_text.assign(text.substr(0, length));
      root_source = &root_text;
    }
    od::parser parser;
    od::document doc;
    start(parser, doc, *root_source, "not JSON: the document is empty", root_length);
    if (type_of_document(doc) != od::json_type::object) {
      // A scalar root is not a value the on-demand API walks; parse_json_input
      // would have accepted it, so only its validity matters here.
      validate_document(doc);
      throw Error(fmt::format("{}: not a PyTorch execution trace: the document is not an object", source_));
    }
    od::object root;
    check(doc.get_object().get(root), "");
    bool have_nodes = false;
    bool nodes_not_list = false;
    for_each_field(root, std::string(), [&](std::string_view key, od::value value) {
      if (key == "nodes") {
        if (type_of(value, "nodes") != od::json_type::array) {
          validate(value, 1, "nodes");
          nodes_not_list = true;
          return;
        }
        if (windows_ != nullptr) {
          validate(value, 1, "nodes");  // the "[]" standing in for the windows
          read_windows();
        } else {
          od::array nodes;
          check(value.get_array().get(nodes), "nodes");
          read_node_array(nodes);
        }
        have_nodes = true;
        return;
      }
      std::string canonical;
      append_canonical(value, canonical, 1, std::string(key));
      trace_.root_fields[std::string(key)] = json::parse(canonical);
    });
    check_no_trailing_content();
    if (!have_nodes || nodes_not_list) {
      throw Error(fmt::format("{}: not a PyTorch execution trace: no \"nodes\" list", source_));
    }
    const json& fields = trace_.root_fields;
    const auto member = [](const json& object, const char* key) -> const json& {
      static const json kNull;
      if (!object.is_object()) return kNull;
      const auto it = object.find(key);
      return it == object.end() ? kNull : *it;
    };
    if (member(fields, "schema").is_string()) trace_.schema = member(fields, "schema").get<std::string>();
    json_to_int64(member(fields, "pid"), trace_.pid);
    int64_t rank = 0;
    if (json_to_int64(member(fields, "rank"), rank)) {
      trace_.rank = rank;
    } else if (json_to_int64(member(member(fields, "distributedInfo"), "rank"), rank)) {
      trace_.rank = rank;
    }
    trace_.linked = member(fields, "snr_linked").is_object();
    return std::move(trace_);
  }

  od::json_type type_of_document(od::document& doc) {
    od::json_type type = od::json_type::null;
    check(doc.type().get(type), "");
    return type;
  }

  void validate_document(od::document& doc) {
    od::json_type type = type_of_document(doc);
    if (type == od::json_type::array) {
      od::array array;
      check(doc.get_array().get(array), "");
      for_each_element(array, "", [&](od::value item) { validate(item, 1, ""); });
    } else if (type == od::json_type::string) {
      std::string_view s;
      check(doc.get_string().get(s), "");
    } else if (type == od::json_type::number) {
      double d = 0;
      check(doc.get_double().get(d), "");
    } else if (type == od::json_type::boolean) {
      bool b = false;
      check(doc.get_bool().get(b), "");
    } else {
      bool null = false;
      check(doc.is_null().get(null), "");
      if (!null) fail_at_location("invalid literal", "");
    }
    check_no_trailing_content();
  }

  // `depth`: the list's own nesting depth (the root object is 0).
  void read_list(od::value value, ListField& field, size_t depth, const std::string& path) {
    const od::json_type type = type_of(value, path);
    if (type == od::json_type::null) {
      validate(value, depth, path);
      field = ListField{};
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

  void read_argument_object(od::value value, ArgumentLists& lists, const std::string& path) {
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
  bool for_each_listed_object(od::value value, const std::string& path, Visit&& visit) {
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

  void read_attrs(od::value value, RawNode& raw, const std::string& path) {
    // Any list, even an empty or all-invalid one, makes the node a 1.0.2+ one.
    raw.has_attrs = for_each_listed_object(value, path, [&](od::object object) {
      std::vector<std::pair<std::string_view, std::string>> fields;
      std::optional<std::string> name;
      std::string value_text = "null";
      for_each_field(object, path, [&](std::string_view key, od::value v) {
        fields.emplace_back(key, std::string());
        append_canonical(v, fields.back().second, 5, path);
        if (key == "name") name = json_text_string(fields.back().second);
        if (key == "value") value_text = fields.back().second;
      });
      if (!name) return;
      if (is_scalar_field(*name)) {
        raw.attrs.emplace_back(std::move(*name), std::move(value_text));
        raw.attr_texts.emplace_back();
        return;
      }
      std::sort(fields.begin(), fields.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      std::string whole = "{";
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i != 0) whole.push_back(',');
        append_json_string(whole, fields[i].first);
        whole.push_back(':');
        whole += fields[i].second;
      }
      whole.push_back('}');
      raw.attrs.emplace_back(std::move(*name), std::string());
      raw.attr_texts.emplace_back(pool_.intern(whole));
    });
  }

  void read_syncs(od::value value, HostNode& node, const std::string& path) {
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

  void read_stream_waits(od::value value, HostNode& node, const std::string& path) {
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

  // Reads the field `key` of a node object into `raw` (structure) or `node`
  // (device fields of linked traces, which need no layout).
  void read_node_field(std::string_view key, od::value v, RawNode& raw, HostNode& node, const std::string& path) {
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
        // Both layouts fill the same lists; which one counts is decided at the end.
        read_argument_object(v, lists, path);
        flat_values_[key == "inputs" ? 0 : 1] = ListField{};
      } else {
        read_list(v, flat_values_[key == "inputs" ? 0 : 1], 3, path);
      }
    } else if (key == "input_shapes" || key == "input_types" || key == "input_strides" || key == "output_shapes" ||
               key == "output_types" || key == "output_strides") {
      ListField& field = flat_lists_[(key.starts_with("input") ? 0 : 3) +
                                     (key.ends_with("shapes") ? 0 : key.ends_with("types") ? 1 : 2)];
      read_list(v, field, 3, path);
    } else if (key == "attrs") {
      read_attrs(v, raw, path);
    } else if (is_scalar_field(key)) {
      raw.flat_scalars.emplace_back(key, std::string());
      append_canonical(v, raw.flat_scalars.back().second, 3, path);
    } else if (key == "snr_kind") {
      if (auto kind = string_or_other(v, 3, path)) {
        if (*kind == "kernel") node.kind = HostNodeKind::kKernel;
        if (*kind == "gpu_memcpy") node.kind = HostNodeKind::kGpuMemcpy;
        if (*kind == "gpu_memset") node.kind = HostNodeKind::kGpuMemset;
      }
    } else if (key == "ts_ns") {
      if (number(v, 3, path).to_int64(s)) node.ts_ns = s;
    } else if (key == "dur_ns") {
      if (number(v, 3, path).to_int64(s) && s >= 0) node.dur_ns = s;
    } else if (key == "launch_ts_ns") {
      if (number(v, 3, path).to_int64(s)) node.launch_ts_ns = s;
    } else if (key == "stream") {
      if (number(v, 3, path).to_int64(s)) node.stream = s;
    } else if (key == "device") {
      if (number(v, 3, path).to_int64(s)) node.device = s;
    } else if (key == "correlation") {
      if (number(v, 3, path).to_int64(s)) node.correlation = s;
    } else if (key == "syncs") {
      read_syncs(v, node, path);
    } else if (key == "stream_waits") {
      read_stream_waits(v, node, path);
    } else {
      validate(v, 3, path);
    }
  }

  // Returns "" on success or why the node was skipped.
  std::string finish_node(RawNode& raw, HostNode& node) {
    if (!raw.is_object) return "not an object";
    if (!raw.id) return "no non-negative integer \"id\"";
    node.id = *raw.id;
    if (!raw.name) return "no string \"name\"";
    node.name = std::move(*raw.name);
    const JsonNumber& parent = raw.ctrl_deps.present ? raw.ctrl_deps : raw.parent;
    uint64_t parent_id = 0;
    if (parent.to_uint64(parent_id)) node.parent_id = parent_id;

    std::string problem;
    if (raw.inputs_object || raw.outputs_object) {
      // 1.0.2+ layout: a list where an object belongs counts as no lists.
      if (!raw.inputs_object) raw.inputs = ArgumentLists{};
      if (!raw.outputs_object) raw.outputs = ArgumentLists{};
      problem = read_values(raw.inputs, node.inputs, node.input_tensors, pool_);
      if (!problem.empty()) return "inputs: " + problem;
      problem = read_values(raw.outputs, node.outputs, node.output_tensors, pool_);
      if (!problem.empty()) return "outputs: " + problem;
      for (size_t i = 0; i < raw.attrs.size(); ++i) {
        if (raw.attr_texts[i]) {
          node.extra_attrs.push_back(*raw.attr_texts[i]);
        } else {
          apply_scalar(raw.attrs[i].first, raw.attrs[i].second, node, pool_);
        }
      }
    } else {
      // 1.0.1 layout.
      ArgumentLists inputs{std::move(flat_values_[0]), std::move(flat_lists_[0]), std::move(flat_lists_[1]),
                           std::move(flat_lists_[2])};
      problem = read_values(inputs, node.inputs, node.input_tensors, pool_);
      if (!problem.empty()) return "inputs: " + problem;
      ArgumentLists outputs{std::move(flat_values_[1]), std::move(flat_lists_[3]), std::move(flat_lists_[4]),
                            std::move(flat_lists_[5])};
      problem = read_values(outputs, node.outputs, node.output_tensors, pool_);
      if (!problem.empty()) return "outputs: " + problem;
      for (const char* key : {"rf_id", "fw_parent", "seq_id", "scope", "tid", "fw_tid", "op_schema"}) {
        for (const auto& [name, text] : raw.flat_scalars) {
          if (name == key && text != "null") apply_scalar(name, text, node, pool_);
        }
      }
    }
    return "";
  }

  void read_windows() {
    const ArrayWindows& split = *windows_;
    windows_ = nullptr;
    walk_windows(split, full_text_, "not JSON: the document is empty", "nodes",
                 [this](od::array nodes) { read_node_array(nodes); });
  }

  void read_node_array(od::array nodes) {
    std::string path;
    for_each_element(nodes, "nodes", [&](od::value item) {
      const size_t index = next_index_++;
      path.assign("nodes[");
      fmt::format_to(std::back_inserter(path), "{}]", index);
      RawNode raw;
      HostNode node;
      for (auto& list : flat_values_) list = ListField{};
      for (auto& list : flat_lists_) list = ListField{};
      if (type_of(item, path) == od::json_type::object) {
        raw.is_object = true;
        od::object object;
        check(item.get_object().get(object), path);
        for_each_field(object, path,
                       [&](std::string_view key, od::value v) { read_node_field(key, v, raw, node, path); });
      } else {
        validate(item, 2, path);
      }
      std::string problem = finish_node(raw, node);
      if (problem.empty() && !seen_ids_.insert(node.id).second) problem = "duplicate id";
      if (!problem.empty()) {
        trace_.skipped.push_back({index, raw.id_text, std::move(problem)});
      } else {
        if (node.name == "## process_group:init ##") read_process_groups(node, index);
        trace_.nodes.push_back(std::move(node));
      }
    });
  }

  void read_process_groups(const HostNode& node, size_t index) {
    if (node.inputs.empty()) return;
    const auto description = json_text_string(node.inputs[0].value);
    if (!description) return;
    const auto member = [](const json& object, const char* key) -> const json& {
      static const json kNull;
      if (!object.is_object()) return kNull;
      const auto it = object.find(key);
      return it == object.end() ? kNull : *it;
    };
    try {
      const json groups = parse_json_input(*description, "");
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
        trace_.process_groups.push_back(std::move(info));
      }
    } catch (const json::exception& e) {
      trace_.skipped.push_back({index, std::to_string(node.id),
                                fmt::format("unreadable process-group description: {}", e.what())});
    } catch (const Error& e) {
      trace_.skipped.push_back({index, std::to_string(node.id),
                                fmt::format("unreadable process-group description: {}", e.what())});
    }
  }

  size_t window_bytes_;
  HostTrace trace_;
  TextPool& pool_ = *trace_.text_pool;
  std::string scratch_;  // one list element's text before it is interned
  const ArrayWindows* windows_ = nullptr;  // the "nodes" windows while not yet read
  std::string_view full_text_;
  size_t next_index_ = 0;
  std::unordered_set<uint64_t> seen_ids_;
  // The 1.0.1 flat lists of the node being read: "inputs", "outputs", then
  // input_{shapes,types,strides}, output_{shapes,types,strides}.
  ListField flat_values_[2];
  ListField flat_lists_[6];
};

}  // namespace

bool is_trace_annotation(std::string_view name) {
  if (name.starts_with("## ") && name.ends_with(" ##")) return true;
  return name.starts_with("[pytorch|profiler|execution_trace|") ||
         name.starts_with("[pytorch|profiler|execution_graph|");
}

HostTrace parse_host_trace(const json& document, const std::string& source_name) {
  std::string text = document.dump();
  return HostReader(text, source_name).read(text);
}

HostTrace parse_host_trace_text(std::string_view text, const std::string& source_name) {
  return detail::parse_host_trace_text(text, source_name, HostReader::kWindowBytes);
}

namespace detail {
HostTrace parse_host_trace_text(std::string_view text, const std::string& source_name, size_t window_bytes) {
  std::string owned = text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
                              static_cast<unsigned char>(text[1]) == 0x8b
                          ? gunzip(text, source_name)
                          : std::string(text);
  return HostReader(owned, source_name, window_bytes).read(owned);
}

HostTrace read_host_trace(const std::filesystem::path& path, size_t window_bytes) {
  if (auto mapped = MappedText::map_plain(path)) {
    return HostReader(mapped->text(), path.string(), window_bytes).read_mapped(*mapped);
  }
  std::string text = read_maybe_gzip(path);
  return HostReader(text, path.string(), window_bytes).read(text);
}
}  // namespace detail

HostTrace read_host_trace(const std::filesystem::path& path) {
  return detail::read_host_trace(path, HostReader::kWindowBytes);
}

}  // namespace snr::pytorch
