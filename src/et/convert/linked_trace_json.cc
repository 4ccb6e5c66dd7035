#include "et/convert/linked_trace_json.h"

#include <charconv>
#include <span>

#include "common/file_io.h"

namespace snr::et_convert {

namespace {

using nlohmann::json;
using pytorch::HostNode;
using pytorch::HostNodeKind;
using pytorch::HostValue;

bool is_null_text(std::string_view text) { return text.empty() || text == "null"; }

// std::to_chars, not fmt into a back_inserter: a linked trace writes
// millions of integers, and fmt's iterator path costs several times more.
template <typename Integer>
void append_integer(std::string& out, Integer value) {
  char digits[24];
  const auto result = std::to_chars(digits, digits + sizeof(digits), value);
  out.append(digits, result.ptr);
}

// The values are kept as compact JSON text already; only the list around them is written.
void append_list(std::string& out, std::span<const HostValue> values, std::string_view HostValue::*field) {
  out.push_back('[');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != 0) out.push_back(',');
    const std::string_view text = values[i].*field;
    out += text.empty() ? std::string_view("null") : text;
  }
  out.push_back(']');
}

void append_values(std::string& out, std::span<const HostValue> values) {
  bool any_stride = false;
  for (const auto& v : values) any_stride = any_stride || !is_null_text(v.stride);
  out += "{\"shapes\":";
  append_list(out, values, &HostValue::shape);
  if (any_stride) {
    out += ",\"strides\":";
    append_list(out, values, &HostValue::stride);
  }
  out += ",\"types\":[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != 0) out.push_back(',');
    pytorch::append_json_string(out, values[i].type);
  }
  out += "],\"values\":";
  append_list(out, values, &HostValue::value);
  out.push_back('}');
}

template <typename Integer>
void append_attr(std::string& out, std::string_view name, std::string_view type, Integer value) {
  out += "{\"name\":\"";
  out += name;
  out += "\",\"type\":\"";
  out += type;
  out += "\",\"value\":";
  append_integer(out, value);
  out += "},";
}

const char* kind_name(HostNodeKind kind) {
  switch (kind) {
    case HostNodeKind::kKernel: return "kernel";
    case HostNodeKind::kGpuMemcpy: return "gpu_memcpy";
    case HostNodeKind::kGpuMemset: return "gpu_memset";
    case HostNodeKind::kOperator: break;
  }
  return "operator";
}

// One node exactly as nlohmann's dump() of the equivalent object writes it
// (keys in byte order), without building that object: the linked trace of
// a large run holds millions of values.
void append_node(std::string& out, const HostNode& node) {
  const bool device = node.kind != HostNodeKind::kOperator;
  out += "{\"attrs\":[";
  if (node.rf_id) append_attr(out, "rf_id", "uint64", *node.rf_id);
  append_attr(out, "fw_parent", "uint64", node.fw_parent);
  append_attr(out, "seq_id", "int64", node.seq_id);
  append_attr(out, "scope", "uint64", node.scope);
  append_attr(out, "tid", "uint64", node.tid);
  append_attr(out, "fw_tid", "uint64", node.fw_tid);
  out += "{\"name\":\"op_schema\",\"type\":\"string\",\"value\":";
  pytorch::append_json_string(out, node.op_schema);
  out.push_back('}');
  for (const auto& extra : node.extra_attrs) {
    out.push_back(',');
    out += extra;
  }
  out.push_back(']');
  if (device) {
    out += ",\"correlation\":";
    append_integer(out, node.correlation);
  }
  if (node.parent_id) {
    out += ",\"ctrl_deps\":";
    append_integer(out, *node.parent_id);
  }
  if (device) {
    out += ",\"device\":";
    append_integer(out, node.device);
  }
  if (node.dur_ns) {
    out += ",\"dur_ns\":";
    append_integer(out, *node.dur_ns);
  }
  out += ",\"id\":";
  append_integer(out, node.id);
  out += ",\"inputs\":";
  append_values(out, node.inputs);
  if (node.launch_ts_ns) {
    out += ",\"launch_ts_ns\":";
    append_integer(out, *node.launch_ts_ns);
  }
  out += ",\"name\":";
  pytorch::append_json_string(out, node.name);
  out += ",\"outputs\":";
  append_values(out, node.outputs);
  if (device) {
    out += ",\"snr_kind\":\"";
    out += kind_name(node.kind);
    out += "\",\"stream\":";
    append_integer(out, node.stream);
  }
  if (!node.stream_waits.empty()) {
    out += ",\"stream_waits\":[";
    for (size_t i = 0; i < node.stream_waits.size(); ++i) {
      const auto& w = node.stream_waits[i];
      out += i == 0 ? "{\"stream\":" : ",{\"stream\":";
      append_integer(out, w.stream);
      out += ",\"ts_ns\":";
      append_integer(out, w.ts_ns);
      out += ",\"wait_on_stream\":";
      append_integer(out, w.wait_on_stream);
      out.push_back('}');
    }
    out.push_back(']');
  }
  if (!node.syncs.empty()) {
    out += ",\"syncs\":[";
    for (size_t i = 0; i < node.syncs.size(); ++i) {
      const auto& s = node.syncs[i];
      out += i == 0 ? "{\"api\":" : ",{\"api\":";
      pytorch::append_json_string(out, s.api);
      out += ",\"stream\":";
      append_integer(out, s.stream);
      out += ",\"ts_ns\":";
      append_integer(out, s.ts_ns);
      out.push_back('}');
    }
    out.push_back(']');
  }
  if (node.ts_ns) {
    out += ",\"ts_ns\":";
    append_integer(out, *node.ts_ns);
  }
  out.push_back('}');
}

// The root object without "nodes", and its text up to where "nodes" goes last.
std::string document_head(json document) {
  std::string text = document.dump();
  text.pop_back();  // the closing brace; "nodes" goes last
  text += text.size() > 1 ? ",\n\"nodes\": [\n" : "\n\"nodes\": [\n";
  return text;
}

json root_without_nodes(const pytorch::HostTrace& trace) {
  json out = trace.root_fields;
  out["schema"] = trace.schema;
  out["pid"] = trace.pid;
  if (trace.rank) out["rank"] = *trace.rank;
  return out;
}

// Writes the nodes one per line (diffable without pretty-printing bulk) to
// `sink` in pieces of about a megabyte, so the text is never whole in memory.
template <typename Sink>
void write_nodes(const pytorch::HostTrace& trace, Sink&& sink) {
  constexpr size_t kChunkBytes = 1 << 20;
  std::string chunk;
  chunk.reserve(kChunkBytes + (kChunkBytes >> 2));
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    append_node(chunk, trace.nodes[i]);
    chunk += i + 1 < trace.nodes.size() ? ",\n" : "\n";
    if (chunk.size() >= kChunkBytes) {
      sink(chunk);
      chunk.clear();
    }
  }
  chunk += "]}\n";
  sink(chunk);
}

}  // namespace

std::string host_trace_to_json_text(const pytorch::HostTrace& trace) {
  std::string text = document_head(root_without_nodes(trace));
  write_nodes(trace, [&text](const std::string& chunk) { text += chunk; });
  return text;
}

void write_linked_trace(const std::filesystem::path& path, const pytorch::HostTrace& trace,
                        const LinkStats& stats, const std::string& device_trace_name) {
  json document = root_without_nodes(trace);
  json matched_by = json::object();
  for (size_t m = 0; m < stats.matcher_names.size(); ++m) matched_by[stats.matcher_names[m]] = stats.matched_by[m];
  json threads = json::array();
  for (const auto& t : stats.threads) {
    threads.push_back({{"host_tid", t.host_tid}, {"ops", t.ops}, {"matched", t.matched}});
  }
  json gpu_by_category = json::object();
  for (const auto& c : stats.gpu_by_category) gpu_by_category[c.category] = {{"total", c.total}, {"linked", c.linked}};
  document["snr_linked"] = {
      {"version", 2},
      {"device_trace", device_trace_name},
      {"confidence", stats.confidence},
      {"problems", stats.problems},
      {"matched_by", std::move(matched_by)},
      {"matcher_notes", stats.matcher_notes},
      {"threads", std::move(threads)},
      {"host_ops", stats.host_ops},
      {"host_ops_matched", stats.host_ops_matched},
      {"host_ops_unmatched_name_differs", stats.host_ops_unmatched_name_differs},
      {"host_ops_unmatched_absent", stats.host_ops_unmatched_absent},
      {"markers", stats.markers},
      {"markers_matched", stats.markers_matched},
      {"name_mismatches", stats.name_mismatches},
      {"kineto_cpu_ops", stats.kineto_cpu_ops},
      {"kineto_cpu_ops_matched", stats.kineto_cpu_ops_matched},
      {"gpu_activities", stats.gpu_activities},
      {"gpu_linked", stats.gpu_linked},
      {"gpu_by_category", std::move(gpu_by_category)},
      {"comm_kernels", stats.comm_kernels},
      {"comm_kernels_linked_to_collective", stats.comm_linked_to_collective},
      {"sync_calls", stats.sync_calls},
      {"syncs_linked", stats.syncs_linked},
      {"cuda_sync_events", stats.cuda_sync_events},
      {"cuda_sync_stream_waits", stats.cuda_sync_stream_waits},
      {"stream_wait_calls", stats.stream_wait_calls},
      {"stream_waits_linked", stats.stream_waits_linked},
      {"stream_waits_with_streams", stats.stream_waits_with_streams},
      {"stream_waits_unlinked", stats.stream_waits_unlinked},
  };
  if (stats.rank) {
    document["snr_linked"]["rank"] = *stats.rank;
    document["snr_linked"]["rank_source"] = stats.rank_source;
  }
  AtomicFileWriter out(path);
  out.write(document_head(std::move(document)));
  write_nodes(trace, [&out](const std::string& chunk) { out.write(chunk); });
  out.commit();
}

}  // namespace snr::et_convert
