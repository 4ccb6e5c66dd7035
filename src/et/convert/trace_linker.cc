#include "et/convert/trace_linker.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "common/error.h"

namespace snr::et_convert {

namespace {

using pytorch::HostNode;
using pytorch::HostNodeKind;
using pytorch::KinetoCategory;
using pytorch::KinetoEvent;

constexpr size_t kNone = std::numeric_limits<size_t>::max();

bool is_cpu_category(KinetoCategory c) {
  return c == KinetoCategory::kCpuOp || c == KinetoCategory::kUserAnnotation;
}
bool is_runtime_category(KinetoCategory c) {
  return c == KinetoCategory::kCudaRuntime || c == KinetoCategory::kCudaDriver;
}
bool is_gpu_category(KinetoCategory c) {
  return c == KinetoCategory::kKernel || c == KinetoCategory::kGpuMemcpy ||
         c == KinetoCategory::kGpuMemset;
}
bool is_sync_call(std::string_view name) {
  return name == "cudaDeviceSynchronize" || name == "cudaStreamSynchronize" ||
         name == "cudaEventSynchronize" || name == "hipDeviceSynchronize" ||
         name == "hipStreamSynchronize" || name == "hipEventSynchronize";
}

HostNodeKind kind_of(KinetoCategory c) {
  if (c == KinetoCategory::kGpuMemcpy) return HostNodeKind::kGpuMemcpy;
  if (c == KinetoCategory::kGpuMemset) return HostNodeKind::kGpuMemset;
  return HostNodeKind::kKernel;
}

struct Attribution {
  // Per event index: the host node index of the nearest Kineto CPU op (itself
  // or an enclosing one) matched to the host trace, else kNone. Runtime calls
  // get the value of their innermost enclosing CPU op.
  std::vector<size_t> host_of;
  // Per event index: a runtime call inside some Kineto CPU op.
  std::vector<bool> enclosed;
};

Attribution attribute_to_host(const std::vector<KinetoEvent>& events,
                              const std::vector<size_t>& direct_match) {
  Attribution result;
  result.host_of.assign(events.size(), kNone);
  result.enclosed.assign(events.size(), false);
  auto& host_of = result.host_of;
  std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> by_thread;
  for (size_t i = 0; i < events.size(); ++i) {
    const auto c = events[i].category;
    if (is_cpu_category(c) || is_runtime_category(c)) by_thread[{events[i].pid, events[i].tid}].push_back(i);
  }
  for (auto& [thread, indices] : by_thread) {
    // Enclosing ops first: earlier start, CPU ops before runtime calls at the
    // same instant, longer first, then file order.
    std::sort(indices.begin(), indices.end(), [&events](size_t a, size_t b) {
      const auto& ea = events[a];
      const auto& eb = events[b];
      if (ea.ts_ns != eb.ts_ns) return ea.ts_ns < eb.ts_ns;
      const bool ra = is_runtime_category(ea.category);
      const bool rb = is_runtime_category(eb.category);
      if (ra != rb) return !ra;
      if (ea.dur_ns != eb.dur_ns) return ea.dur_ns > eb.dur_ns;
      return a < b;
    });
    std::vector<size_t> open_ops;
    for (size_t index : indices) {
      const auto& event = events[index];
      while (!open_ops.empty()) {
        const auto& top = events[open_ops.back()];
        if (top.ts_ns + top.dur_ns >= event.ts_ns) break;
        open_ops.pop_back();
      }
      const size_t enclosing_host = open_ops.empty() ? kNone : host_of[open_ops.back()];
      if (is_runtime_category(event.category)) {
        host_of[index] = enclosing_host;
        result.enclosed[index] = !open_ops.empty();
        continue;
      }
      host_of[index] = direct_match[index] != kNone ? direct_match[index] : enclosing_host;
      open_ops.push_back(index);
    }
  }
  return result;
}

}  // namespace

pytorch::HostTrace link_traces(const pytorch::HostTrace& host, const pytorch::KinetoTrace& device,
                               LinkStats& stats) {
  if (host.linked) {
    throw Error("the host trace is already linked (it has \"snr_linked\"); link the original "
                "execution trace instead");
  }
  pytorch::HostTrace out = host;
  stats = LinkStats{};
  const auto& events = device.events;

  std::unordered_map<uint64_t, size_t> host_by_rf_id;
  host_by_rf_id.reserve(out.nodes.size());
  uint64_t max_id = 0;
  for (size_t i = 0; i < out.nodes.size(); ++i) {
    const HostNode& node = out.nodes[i];
    max_id = std::max(max_id, node.id);
    if (node.kind != HostNodeKind::kOperator) continue;
    if (!pytorch::is_trace_annotation(node.name)) ++stats.host_ops;
    if (node.rf_id) host_by_rf_id.emplace(*node.rf_id, i);
  }

  const bool has_record_function_ids = std::any_of(events.begin(), events.end(), [](const auto& e) {
    return is_cpu_category(e.category) && e.record_function_id.has_value();
  });
  stats.key = has_record_function_ids ? LinkKey::kRecordFunctionId : LinkKey::kExternalId;

  std::vector<size_t> direct_match(events.size(), kNone);
  std::vector<bool> host_matched(out.nodes.size(), false);
  for (size_t i = 0; i < events.size(); ++i) {
    const KinetoEvent& event = events[i];
    if (!is_cpu_category(event.category)) continue;
    ++stats.kineto_cpu_ops;
    const auto key = has_record_function_ids ? event.record_function_id : event.external_id;
    if (!key || *key < 0) continue;
    const auto it = host_by_rf_id.find(static_cast<uint64_t>(*key));
    if (it == host_by_rf_id.end() || host_matched[it->second]) continue;
    HostNode& node = out.nodes[it->second];
    // External ids restart per profiler session and need not be rf_ids; a
    // name check keeps unrelated ops apart.
    if (!has_record_function_ids && node.name != event.name) {
      ++stats.name_mismatches;
      continue;
    }
    host_matched[it->second] = true;
    direct_match[i] = it->second;
    node.ts_ns = event.ts_ns;
    node.dur_ns = event.dur_ns;
    ++stats.host_ops_matched;
  }

  const Attribution attribution = attribute_to_host(events, direct_match);
  const std::vector<size_t>& host_of = attribution.host_of;

  std::unordered_map<int64_t, size_t> runtime_by_correlation;
  for (size_t i = 0; i < events.size(); ++i) {
    const KinetoEvent& event = events[i];
    if (!is_runtime_category(event.category)) continue;
    if (event.correlation) runtime_by_correlation.emplace(*event.correlation, i);
    if (is_sync_call(event.name) && host_of[i] != kNone) {
      out.nodes[host_of[i]].syncs.push_back({event.name, event.ts_ns, event.stream});
      ++stats.syncs_linked;
    }
  }

  struct Launch {
    size_t gpu_index;
    size_t runtime_index;
    size_t host_index;
  };
  std::vector<Launch> launches;
  for (size_t i = 0; i < events.size(); ++i) {
    const KinetoEvent& event = events[i];
    if (!is_gpu_category(event.category)) continue;
    ++stats.gpu_activities;
    const auto runtime = event.correlation ? runtime_by_correlation.find(*event.correlation)
                                           : runtime_by_correlation.end();
    if (runtime == runtime_by_correlation.end()) {
      ++stats.gpu_without_runtime;
      continue;
    }
    const size_t host_index = host_of[runtime->second];
    if (host_index == kNone) {
      if (attribution.enclosed[runtime->second]) {
        ++stats.gpu_without_host_op;
      } else {
        ++stats.gpu_without_cpu_op;
      }
      continue;
    }
    launches.push_back({i, runtime->second, host_index});
  }
  // Device nodes in launch order (ties by correlation): stable ids.
  std::sort(launches.begin(), launches.end(), [&events](const Launch& a, const Launch& b) {
    const auto& ra = events[a.runtime_index];
    const auto& rb = events[b.runtime_index];
    if (ra.ts_ns != rb.ts_ns) return ra.ts_ns < rb.ts_ns;
    return events[a.gpu_index].correlation < events[b.gpu_index].correlation;
  });
  uint64_t next_id = max_id + 1;
  out.nodes.reserve(out.nodes.size() + launches.size());
  for (const Launch& launch : launches) {
    const KinetoEvent& gpu = events[launch.gpu_index];
    HostNode node;
    node.id = next_id++;
    node.name = gpu.name;
    node.parent_id = out.nodes[launch.host_index].id;
    node.tid = out.nodes[launch.host_index].tid;
    node.kind = kind_of(gpu.category);
    node.ts_ns = gpu.ts_ns;
    node.dur_ns = gpu.dur_ns;
    node.launch_ts_ns = events[launch.runtime_index].ts_ns;
    node.stream = gpu.stream;
    node.device = gpu.device;
    node.correlation = gpu.correlation.value_or(-1);
    out.nodes.push_back(std::move(node));
    ++stats.gpu_linked;
  }
  if (!out.rank && device.rank) out.rank = device.rank;
  out.linked = true;
  return out;
}

std::string describe(const LinkStats& stats) {
  return fmt::format(
      "join key: {}\n"
      "host ops: {} ({} matched to Kineto ops, {} External-id hits rejected for a name mismatch)\n"
      "kineto cpu ops: {}\n"
      "gpu activities: {} ({} linked; unlinked: {} without a runtime call, {} launched outside "
      "every Kineto CPU op, {} inside Kineto ops absent from the host trace)\n"
      "sync calls linked: {}\n",
      stats.key == LinkKey::kRecordFunctionId ? "rf_id = Record function id" : "rf_id = External id",
      stats.host_ops, stats.host_ops_matched, stats.name_mismatches, stats.kineto_cpu_ops,
      stats.gpu_activities, stats.gpu_linked, stats.gpu_without_runtime, stats.gpu_without_cpu_op,
      stats.gpu_without_host_op,
      stats.syncs_linked);
}

}  // namespace snr::et_convert
