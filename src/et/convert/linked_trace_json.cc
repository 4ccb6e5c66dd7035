#include "et/convert/linked_trace_json.h"

#include "common/file_io.h"

namespace snr::et_convert {

namespace {

using nlohmann::json;
using pytorch::HostNode;
using pytorch::HostNodeKind;
using pytorch::HostValue;

json values_to_json(const std::vector<HostValue>& values) {
  json out = {{"values", json::array()}, {"shapes", json::array()}, {"types", json::array()}};
  bool any_stride = false;
  for (const auto& v : values) any_stride = any_stride || !v.stride.is_null();
  if (any_stride) out["strides"] = json::array();
  for (const auto& v : values) {
    out["values"].push_back(v.value);
    out["shapes"].push_back(v.shape);
    out["types"].push_back(v.type);
    if (any_stride) out["strides"].push_back(v.stride);
  }
  return out;
}

json attr(const char* name, const char* type, json value) {
  return {{"name", name}, {"type", type}, {"value", std::move(value)}};
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

json node_to_json(const HostNode& node) {
  json out = {{"id", node.id}, {"name", node.name}};
  if (node.parent_id) out["ctrl_deps"] = *node.parent_id;
  out["inputs"] = values_to_json(node.inputs);
  out["outputs"] = values_to_json(node.outputs);
  json attrs = json::array();
  if (node.rf_id) attrs.push_back(attr("rf_id", "uint64", *node.rf_id));
  attrs.push_back(attr("fw_parent", "uint64", node.fw_parent));
  attrs.push_back(attr("seq_id", "int64", node.seq_id));
  attrs.push_back(attr("scope", "uint64", node.scope));
  attrs.push_back(attr("tid", "uint64", node.tid));
  attrs.push_back(attr("fw_tid", "uint64", node.fw_tid));
  attrs.push_back(attr("op_schema", "string", node.op_schema));
  for (const auto& extra : node.extra_attrs) attrs.push_back(extra);
  out["attrs"] = std::move(attrs);
  if (node.kind != HostNodeKind::kOperator) {
    out["snr_kind"] = kind_name(node.kind);
    out["stream"] = node.stream;
    out["device"] = node.device;
    out["correlation"] = node.correlation;
  }
  if (node.ts_ns) out["ts_ns"] = *node.ts_ns;
  if (node.dur_ns) out["dur_ns"] = *node.dur_ns;
  if (node.launch_ts_ns) out["launch_ts_ns"] = *node.launch_ts_ns;
  if (!node.syncs.empty()) {
    json syncs = json::array();
    for (const auto& s : node.syncs) {
      syncs.push_back({{"api", s.api}, {"ts_ns", s.ts_ns}, {"stream", s.stream}});
    }
    out["syncs"] = std::move(syncs);
  }
  if (!node.stream_waits.empty()) {
    json waits = json::array();
    for (const auto& w : node.stream_waits) {
      waits.push_back({{"ts_ns", w.ts_ns}, {"stream", w.stream}, {"wait_on_stream", w.wait_on_stream}});
    }
    out["stream_waits"] = std::move(waits);
  }
  return out;
}

}  // namespace

json host_trace_to_json(const pytorch::HostTrace& trace) {
  json out = trace.root_fields;
  out["schema"] = trace.schema;
  out["pid"] = trace.pid;
  if (trace.rank) out["rank"] = *trace.rank;
  json nodes = json::array();
  for (const auto& node : trace.nodes) nodes.push_back(node_to_json(node));
  out["nodes"] = std::move(nodes);
  return out;
}

void write_linked_trace(const std::filesystem::path& path, const pytorch::HostTrace& trace,
                        const LinkStats& stats, const std::string& device_trace_name) {
  json document = host_trace_to_json(trace);
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
  // One node per line keeps the file diffable without pretty-printing bulk.
  json nodes = std::move(document["nodes"]);
  document.erase("nodes");
  std::string text = document.dump();
  text.pop_back();  // the closing brace; "nodes" goes last
  text += text.size() > 1 ? ",\n\"nodes\": [\n" : "\n\"nodes\": [\n";
  for (size_t i = 0; i < nodes.size(); ++i) {
    text += nodes[i].dump();
    text += i + 1 < nodes.size() ? ",\n" : "\n";
  }
  text += "]}\n";
  write_file_atomic(path, text);
}

}  // namespace snr::et_convert
