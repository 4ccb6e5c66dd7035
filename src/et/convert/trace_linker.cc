#include "et/convert/trace_linker.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "common/error.h"
#include "et/convert/comm_record.h"
#include "et/convert/flat_id_map.h"
#include "et/convert/link_checks.h"
#include "et/convert/op_matching.h"
#include "formats/pytorch/json_input.h"

namespace snr::et_convert {

namespace {

using pytorch::HostNode;
using pytorch::HostNodeKind;
using pytorch::KinetoCategory;
using pytorch::KinetoEvent;

constexpr size_t kNone = kNoMatch;
// At or above this fraction of host ops linked, with every check passed, the
// link is "high" confidence; below it but above the threshold, "partial".
constexpr double kHighConfidenceFraction = 0.9;

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
bool is_stream_wait_call(std::string_view name) {
  return name == "cudaStreamWaitEvent" || name == "hipStreamWaitEvent";
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


OpMatchInput build_match_input(const pytorch::HostTrace& host, const pytorch::KinetoTrace& device,
                               LinkStats& stats) {
  OpMatchInput input{host, device, {}, {}};
  std::map<uint64_t, std::vector<size_t>> by_host_thread;
  for (size_t i = 0; i < host.nodes.size(); ++i) {
    const HostNode& node = host.nodes[i];
    if (node.kind != HostNodeKind::kOperator) continue;
    if (pytorch::is_trace_annotation(node.name) && !is_trace_marker(node.name)) {
      ++stats.roots;
      continue;
    }
    ++(is_trace_marker(node.name) ? stats.markers : stats.host_ops);
    by_host_thread[node.tid].push_back(i);
  }
  for (auto& [tid, indices] : by_host_thread) {
    std::stable_sort(indices.begin(), indices.end(), [&host](size_t a, size_t b) {
      return host_order_key(host.nodes[a]) < host_order_key(host.nodes[b]);
    });
    input.host_threads.push_back(std::move(indices));
  }
  std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> by_kineto_thread;
  const auto& events = device.events;
  for (size_t i = 0; i < events.size(); ++i) {
    if (is_cpu_category(events[i].category)) by_kineto_thread[{events[i].pid, events[i].tid}].push_back(i);
  }
  for (auto& [thread, indices] : by_kineto_thread) {
    std::stable_sort(indices.begin(), indices.end(), [&events](size_t a, size_t b) {
      if (events[a].ts_ns != events[b].ts_ns) return events[a].ts_ns < events[b].ts_ns;
      return events[a].dur_ns > events[b].dur_ns;
    });
    stats.kineto_cpu_ops += indices.size();
    input.kineto_threads.push_back(std::move(indices));
  }
  return input;
}

// Host op `h` or one of its ancestors records a communication.
bool inside_collective(const pytorch::HostTrace& trace, size_t h,
                       const std::unordered_map<uint64_t, size_t>& index_of) {
  for (size_t depth = 0; h != kNone && depth < trace.nodes.size(); ++depth) {
    const HostNode& node = trace.nodes[h];
    if (is_comm_record(node.name) || node.name.starts_with("c10d::") || node.name.starts_with("nccl:")) {
      return true;
    }
    if (!node.parent_id) break;
    const auto it = index_of.find(*node.parent_id);
    h = it == index_of.end() ? kNone : it->second;
  }
  return false;
}

void judge(const pytorch::HostTrace& host, const pytorch::KinetoTrace& device, const LinkOptions& options,
           LinkStats& stats) {
  for (const auto& check : {check_pid(host, device), check_time(host, device), check_rank(host, device)}) {
    if (check) stats.problems.push_back(*check);
  }
  const double fraction = stats.matched_fraction();
  if (fraction < options.min_linked_fraction) {
    stats.problems.push_back(fmt::format(
        "name mismatch: {} of {} host ops and markers ({:.1f}%) found a Kineto op of the same name "
        "(threshold {:.1f}%); {} id hits named another op",
        stats.host_ops_matched + stats.markers_matched, stats.host_ops + stats.markers, 100.0 * fraction,
        100.0 * options.min_linked_fraction, stats.name_mismatches));
  }
  if (!stats.problems.empty()) {
    stats.confidence = "refused";
  } else {
    stats.confidence = fraction >= kHighConfidenceFraction ? "high" : "partial";
  }
}

}  // namespace

pytorch::HostTrace link_traces(pytorch::HostTrace trace, const pytorch::KinetoTrace& device,
                               const LinkOptions& options, LinkStats& stats) {
  // The device nodes and timings are added to the trace in place: a copy of
  // the host nodes would double the peak memory of a large trace. `host`
  // reads what the steps below never change (names, ids, threads, rank
  // before step 4).
  pytorch::HostTrace& out = trace;
  const pytorch::HostTrace& host = trace;
  if (host.linked) {
    throw Error("the host trace is already linked (it has \"snr_linked\"); link the original "
                "execution trace instead");
  }
  if (!(options.min_linked_fraction >= 0.0 && options.min_linked_fraction <= 1.0)) {
    throw Error(fmt::format("the minimum linked fraction must be in [0, 1], not {}", options.min_linked_fraction));
  }
  stats = LinkStats{};
  const auto& events = device.events;

  // 1. Host ops <-> Kineto CPU ops.
  const OpMatchInput input = build_match_input(host, device, stats);
  OpMatchState state;
  state.event_of_host.assign(host.nodes.size(), kNoMatch);
  state.host_of_event.assign(events.size(), kNoMatch);
  state.matcher_of_host.assign(host.nodes.size(), 0);
  const auto matchers = default_op_matchers();
  for (size_t m = 0; m < matchers.size(); ++m) {
    const MatcherOutcome outcome = matchers[m]->run(input, state, static_cast<uint8_t>(m + 1));
    stats.matcher_names.emplace_back(matchers[m]->name());
    stats.matched_by.push_back(outcome.matched);
    stats.matcher_notes.insert(stats.matcher_notes.end(), outcome.notes.begin(), outcome.notes.end());
  }
  stats.name_mismatches = state.name_mismatches;
  std::vector<size_t> direct_match(events.size(), kNone);
  // Names of the Kineto CPU ops, gathered at the first unmatched host op
  // (a well-linked trace has few): does Kineto have its name?
  std::unordered_set<std::string_view> kineto_names;
  const auto kineto_has_name = [&](std::string_view name) {
    if (kineto_names.empty()) {
      for (const auto& thread : input.kineto_threads) {
        for (size_t e : thread) kineto_names.insert(events[e].name);
      }
    }
    return kineto_names.count(name) != 0;
  };
  for (const auto& thread : input.host_threads) {
    ThreadLinkSummary summary;
    summary.host_tid = host.nodes[thread.front()].tid;
    summary.ops = thread.size();
    for (size_t h : thread) {
      const bool marker = is_trace_marker(host.nodes[h].name);
      const size_t e = state.event_of_host[h];
      if (e == kNoMatch) {
        if (!marker) {
          ++(kineto_has_name(host.nodes[h].name) ? stats.host_ops_unmatched_name_differs : stats.host_ops_unmatched_absent);
        }
        continue;
      }
      ++summary.matched;
      ++(marker ? stats.markers_matched : stats.host_ops_matched);
      ++stats.kineto_cpu_ops_matched;
      direct_match[e] = h;
      out.nodes[h].ts_ns = events[e].ts_ns;
      out.nodes[h].dur_ns = events[e].dur_ns;
    }
    stats.threads.push_back(summary);
  }

  // 2. Runtime calls -> CPU ops; synchronising calls.
  const Attribution attribution = attribute_to_host(events, direct_match);
  const std::vector<size_t>& host_of = attribution.host_of;
  // cuda_sync events name the stream a synchronising call waits on (the
  // runtime event itself has none): the stream for cudaStreamSynchronize, the
  // stream the event was recorded on for cudaEventSynchronize and waits.
  size_t cuda_sync_count = 0;
  size_t runtime_count = 0;
  for (const KinetoEvent& event : events) {
    cuda_sync_count += event.category == KinetoCategory::kCudaSync ? 1 : 0;
    runtime_count += is_runtime_category(event.category) ? 1 : 0;
  }
  FlatIdMap cuda_sync_by_correlation(cuda_sync_count);
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].category != KinetoCategory::kCudaSync) continue;
    ++stats.cuda_sync_events;
    if (events[i].correlation) cuda_sync_by_correlation.emplace(*events[i].correlation, i);
  }
  FlatIdMap runtime_by_correlation(runtime_count);
  for (size_t i = 0; i < events.size(); ++i) {
    const KinetoEvent& event = events[i];
    if (!is_runtime_category(event.category)) continue;
    if (event.correlation) runtime_by_correlation.emplace(*event.correlation, i);
    const size_t* gpu_side = event.correlation ? cuda_sync_by_correlation.find(*event.correlation) : nullptr;
    // cudaStreamWaitEvent: a GPU-side wait, kept on its host op with the
    // streams its cuda_sync event names (the converter orders the streams).
    const bool stream_wait = is_stream_wait_call(event.name) || (gpu_side != nullptr && !is_sync_call(event.name));
    if (stream_wait) {
      if (gpu_side != nullptr) ++stats.cuda_sync_stream_waits;
      ++stats.stream_wait_calls;
      if (host_of[i] == kNone) {
        ++stats.stream_waits_unlinked;
        continue;
      }
      pytorch::HostStreamWait wait;
      wait.ts_ns = event.ts_ns;
      if (gpu_side != nullptr) {
        const KinetoEvent& sync = events[*gpu_side];
        wait.stream = sync.stream;
        wait.wait_on_stream = sync.wait_on_stream;
        ++stats.stream_waits_with_streams;
      }
      out.nodes[host_of[i]].stream_waits.push_back(wait);
      ++stats.stream_waits_linked;
      continue;
    }
    if (!is_sync_call(event.name)) continue;
    ++stats.sync_calls;
    if (host_of[i] == kNone) {
      ++stats.syncs_unlinked;
      if (gpu_side != nullptr) ++stats.cuda_sync_unlinked;
      continue;
    }
    int64_t stream = event.stream;
    if (gpu_side != nullptr && event.name.find("Device") == std::string::npos) {
      const KinetoEvent& sync = events[*gpu_side];
      stream = sync.wait_on_stream >= 0 ? sync.wait_on_stream : sync.stream;
      ++stats.cuda_sync_attached;
    } else if (gpu_side != nullptr) {
      ++stats.cuda_sync_attached;
    }
    out.nodes[host_of[i]].syncs.push_back({event.name, event.ts_ns, stream});
    ++stats.syncs_linked;
  }
  stats.cuda_sync_without_call = stats.cuda_sync_events - stats.cuda_sync_attached - stats.cuda_sync_unlinked -
                                 stats.cuda_sync_stream_waits;

  // 3. GPU activities -> host ops.
  struct Launch {
    size_t gpu_index;
    size_t runtime_index;
    size_t host_index;
  };
  std::vector<Launch> launches;
  std::map<KinetoCategory, CategoryCount> by_category;
  // Host node index by id, for the walk up from a communication kernel's
  // host op: built at the first such kernel (most traces have few or none).
  std::unordered_map<uint64_t, size_t> index_of;
  const auto host_index_by_id = [&]() -> const std::unordered_map<uint64_t, size_t>& {
    if (index_of.empty() && !host.nodes.empty()) {
      index_of.reserve(host.nodes.size());
      for (size_t i = 0; i < host.nodes.size(); ++i) index_of.emplace(host.nodes[i].id, i);
    }
    return index_of;
  };
  for (size_t i = 0; i < events.size(); ++i) {
    const KinetoEvent& event = events[i];
    if (!is_gpu_category(event.category)) continue;
    ++stats.gpu_activities;
    auto& category = by_category[event.category];
    ++category.total;
    CommKind comm_kind = CommKind::kUnknown;
    CollectiveType collective = CollectiveType::kAllReduce;
    const bool comm_kernel = event.category == KinetoCategory::kKernel &&
                             classify_comm_kernel(event.name, comm_kind, collective);
    if (comm_kernel) ++stats.comm_kernels;
    const size_t* runtime = event.correlation ? runtime_by_correlation.find(*event.correlation) : nullptr;
    if (runtime == nullptr) {
      ++stats.gpu_without_runtime;
      continue;
    }
    const size_t host_index = host_of[*runtime];
    if (host_index == kNone) {
      ++(attribution.enclosed[*runtime] ? stats.gpu_without_host_op : stats.gpu_without_cpu_op);
      continue;
    }
    ++category.linked;
    if (comm_kernel) {
      ++(inside_collective(host, host_index, host_index_by_id()) ? stats.comm_linked_to_collective
                                                       : stats.comm_linked_elsewhere);
    }
    launches.push_back({i, *runtime, host_index});
  }
  for (auto& [category, count] : by_category) {
    count.category = std::string(pytorch::kineto_category_name(category));
    stats.gpu_by_category.push_back(count);
  }
  // Device nodes in launch order (ties by correlation): stable ids.
  std::sort(launches.begin(), launches.end(), [&events](const Launch& a, const Launch& b) {
    const auto& ra = events[a.runtime_index];
    const auto& rb = events[b.runtime_index];
    if (ra.ts_ns != rb.ts_ns) return ra.ts_ns < rb.ts_ns;
    return events[a.gpu_index].correlation < events[b.gpu_index].correlation;
  });
  uint64_t next_id = 0;
  for (const auto& node : out.nodes) next_id = std::max(next_id, node.id);
  ++next_id;
  if (out.nodes.capacity() < out.nodes.size() + launches.size()) {
    // What reserve() does, with huge pages asked for before the moves touch
    // the new storage.
    std::vector<HostNode> grown;
    grown.reserve(out.nodes.size() + launches.size());
    pytorch::advise_huge_pages(grown.data(), grown.capacity() * sizeof(HostNode));
    std::move(out.nodes.begin(), out.nodes.end(), std::back_inserter(grown));
    out.nodes.swap(grown);
  }
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

  // 4. Rank and verdict.
  if (host.rank) {
    stats.rank = host.rank;
    stats.rank_source = "host trace";
  } else if (device.rank) {
    out.rank = device.rank;
    stats.rank = device.rank;
    stats.rank_source = "Kineto distributedInfo";
  }
  judge(host, device, options, stats);
  out.linked = true;
  return trace;
}

pytorch::HostTrace link_traces(pytorch::HostTrace host, const pytorch::KinetoTrace& device, LinkStats& stats) {
  return link_traces(std::move(host), device, LinkOptions{}, stats);
}

std::string describe(const LinkStats& stats) {
  std::string text;
  auto line = [&text](const std::string& s) { text += s + "\n"; };
  line(fmt::format("verdict: {} ({:.1f}% of host ops and markers linked{})", stats.confidence,
                   100.0 * stats.matched_fraction(),
                   stats.rank ? fmt::format("; rank {} from the {}", *stats.rank, stats.rank_source) : ""));
  for (const auto& problem : stats.problems) line("  problem: " + problem);
  line(fmt::format("host ops: {} = {} matched + {} unmatched whose name Kineto has + {} unmatched absent "
                   "from Kineto",
                   stats.host_ops, stats.host_ops_matched, stats.host_ops_unmatched_name_differs,
                   stats.host_ops_unmatched_absent));
  line(fmt::format("markers (## ... ##): {} ({} matched); observer roots: {} (never in Kineto)", stats.markers,
                   stats.markers_matched, stats.roots));
  std::string by;
  for (size_t m = 0; m < stats.matcher_names.size(); ++m) {
    by += fmt::format("{}{} {}", by.empty() ? "" : ", ", stats.matched_by[m], stats.matcher_names[m]);
  }
  line(fmt::format("matched by: {}; {} id hit(s) rejected for a name mismatch", by, stats.name_mismatches));
  for (const auto& note : stats.matcher_notes) line("  " + note);
  for (const auto& thread : stats.threads) {
    line(fmt::format("  host thread {}: {} of {} matched", thread.host_tid, thread.matched, thread.ops));
  }
  line(fmt::format("kineto cpu ops: {} ({} matched, {} not in the host trace)", stats.kineto_cpu_ops,
                   stats.kineto_cpu_ops_matched, stats.kineto_cpu_ops - stats.kineto_cpu_ops_matched));
  line(fmt::format("gpu activities: {} = {} linked + {} without a runtime call + {} launched outside every "
                   "Kineto CPU op + {} inside Kineto ops absent from the host trace",
                   stats.gpu_activities, stats.gpu_linked, stats.gpu_without_runtime, stats.gpu_without_cpu_op,
                   stats.gpu_without_host_op));
  for (const auto& category : stats.gpu_by_category) {
    line(fmt::format("  {}: {} of {} linked", category.category, category.linked, category.total));
  }
  line(fmt::format("communication kernels: {} = {} linked to a collective + {} linked to another op + {} "
                   "unlinked",
                   stats.comm_kernels, stats.comm_linked_to_collective, stats.comm_linked_elsewhere,
                   stats.comm_kernels - stats.comm_linked_to_collective - stats.comm_linked_elsewhere));
  line(fmt::format("sync calls: {} = {} linked + {} outside matched ops", stats.sync_calls, stats.syncs_linked,
                   stats.syncs_unlinked));
  line(fmt::format("stream waits (cudaStreamWaitEvent): {} = {} linked ({} with both streams from cuda_sync) + {} "
                   "outside matched ops",
                   stats.stream_wait_calls, stats.stream_waits_linked, stats.stream_waits_with_streams,
                   stats.stream_waits_unlinked));
  line(fmt::format("cuda_sync events: {} = {} giving a linked sync call its stream + {} on sync calls outside "
                   "matched ops + {} on stream waits + {} without a runtime call",
                   stats.cuda_sync_events, stats.cuda_sync_attached, stats.cuda_sync_unlinked,
                   stats.cuda_sync_stream_waits, stats.cuda_sync_without_call));
  return text;
}

}  // namespace snr::et_convert
