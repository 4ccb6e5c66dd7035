#include "et/convert/pytorch_to_chakra.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <span>
#include <unordered_map>
#include <utility>

#include "common/cli_numbers.h"
#include "common/error.h"
#include "et/convert/comm_record.h"
#include "et/convert/flat_id_map.h"
#include "formats/pytorch/json_input.h"

namespace snr::et_convert {

namespace {

using pytorch::HostNode;
using pytorch::HostNodeKind;
using pytorch::HostTrace;

constexpr size_t kNone = std::numeric_limits<size_t>::max();

enum class Role { kScope, kEmitted, kAbsorbed, kDevice, kAnnotation, kBackendWork };

// gloo's record of a collective it runs on the host ("gloo:all_reduce"):
// its span is the collective's own execution (transfers and reduction on
// the CPU), started asynchronously. The collective is the c10d op's
// COMM_COLL node, timed by the simulator; emitting this record too would
// count the collective twice and block its thread for it.
bool is_backend_collective_work(std::string_view name) { return name.starts_with("gloo:"); }

struct TensorKey {
  uint64_t tensor_id;
  uint64_t storage_id;
  bool operator==(const TensorKey&) const = default;
};
// A device node that the thread's next op starting after `call_ts_ns` waits for.
struct SyncWait {
  int64_t call_ts_ns;
  uint64_t device_node;
};

struct TensorKeyHash {
  size_t operator()(const TensorKey& k) const noexcept {
    return std::hash<uint64_t>()(k.tensor_id * 0x9E3779B97F4A7C15ull ^ k.storage_id);
  }
};

uint64_t ns_to_micros(int64_t ns) { return ns <= 0 ? 0 : static_cast<uint64_t>((ns + 500) / 1000); }

void add_unique(std::vector<uint64_t>& deps, uint64_t id) {
  if (std::find(deps.begin(), deps.end(), id) == deps.end()) deps.push_back(id);
}

// The list as JSON text, written into `out` (cleared first) and interned in
// `texts`. The kept values are compact JSON text already; the list is
// written around them.
std::string_view dump_field(std::span<const pytorch::HostValue> values, int which, std::string& out,
                            pytorch::TextPool& texts) {
  out.assign(1, '[');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != 0) out.push_back(',');
    const auto& v = values[i];
    if (which == 2) {
      pytorch::append_json_string(out, v.type);
    } else {
      const std::string_view text = which == 0 ? v.value : v.shape;
      out += text.empty() ? std::string_view("null") : text;
    }
  }
  out.push_back(']');
  return texts.intern(out);
}

// Sorts (id, index) pairs made in index order: by id, equal ids in index
// order, as std::sort of the pairs orders them. A large trace's ids are
// far from sorted in file order (each device node follows its launching op
// with an id from another range); least significant digit first, 16 bits a
// pass, passes whose digit all ids share skipped, it costs a few reads and
// writes per node where a comparison sort costs dozens of comparisons.
void sort_by_id(std::vector<std::pair<uint64_t, size_t>>& pairs) {
  constexpr size_t kDigitBits = 16;
  constexpr size_t kDigits = 64 / kDigitBits;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  if (pairs.size() < kBuckets / 4 || pairs.size() > std::numeric_limits<uint32_t>::max()) {
    std::sort(pairs.begin(), pairs.end());
    return;
  }
  std::vector<uint32_t> counts(kDigits * kBuckets, 0);
  const auto digit = [](uint64_t id, size_t d) { return static_cast<size_t>(id >> (d * kDigitBits)) & (kBuckets - 1); };
  for (const auto& pair : pairs) {
    for (size_t d = 0; d < kDigits; ++d) ++counts[d * kBuckets + digit(pair.first, d)];
  }
  std::vector<std::pair<uint64_t, size_t>> sorted(pairs.size());
  for (size_t d = 0; d < kDigits; ++d) {
    uint32_t* const count = counts.data() + d * kBuckets;
    if (count[digit(pairs.front().first, d)] == pairs.size()) continue;
    uint32_t at = 0;
    for (size_t b = 0; b < kBuckets; ++b) at += std::exchange(count[b], at);
    for (const auto& pair : pairs) sorted[count[digit(pair.first, d)]++] = pair;
    pairs.swap(sorted);
  }
}

// The users of each node (dependency -> users), each list in the order its
// edges were found: one array for all (a counting sort of the edges by
// dependency) instead of a vector per node.
class Users {
 public:
  Users(size_t nodes, const std::vector<std::pair<size_t, size_t>>& edges) : begin_(nodes + 1, 0) {
    for (const auto& edge : edges) ++begin_[edge.first + 1];
    for (size_t i = 0; i < nodes; ++i) begin_[i + 1] += begin_[i];
    list_.resize(edges.size());
    std::vector<size_t> next(begin_.begin(), begin_.end() - 1);
    for (const auto& [dependency, user] : edges) list_[next[dependency]++] = user;
  }
  [[nodiscard]] std::span<const size_t> of(size_t node) const {
    return {list_.data() + begin_[node], begin_[node + 1] - begin_[node]};
  }

 private:
  std::vector<size_t> begin_;  // node i's users: list_[begin_[i], begin_[i + 1])
  std::vector<size_t> list_;
};

// Parent-chain structure of the host trace, by vector index.
class HostTree {
 public:
  HostTree(const HostTrace& trace, PytorchConvertStats& stats) : index_of_(trace.nodes.size()) {
    const size_t n = trace.nodes.size();
    for (size_t i = 0; i < n; ++i) index_of_.emplace(static_cast<int64_t>(trace.nodes[i].id), i);
    parent_.assign(n, kNone);
    for (size_t i = 0; i < n; ++i) {
      const auto& node = trace.nodes[i];
      if (!node.parent_id || *node.parent_id == node.id) continue;
      const size_t* parent = index_of_.find(static_cast<int64_t>(*node.parent_id));
      if (parent == nullptr) {
        // Id 1 is the implicit process root the observer never writes.
        if (*node.parent_id != 1) ++stats.orphan_nodes;
        continue;
      }
      parent_[i] = *parent;
    }
    break_cycles();
  }

  [[nodiscard]] size_t parent(size_t i) const { return parent_[i]; }
  [[nodiscard]] size_t size() const { return parent_.size(); }

 private:
  // A corrupt trace can make parent chains loop; cut each loop once.
  void break_cycles() {
    std::vector<uint8_t> state(parent_.size(), 0);  // 0 new, 1 on path, 2 done
    std::vector<size_t> path;
    for (size_t start = 0; start < parent_.size(); ++start) {
      size_t i = start;
      path.clear();
      while (i != kNone && state[i] == 0) {
        state[i] = 1;
        path.push_back(i);
        i = parent_[i];
      }
      if (i != kNone && state[i] == 1) parent_[path.back()] = kNone;
      for (size_t p : path) state[p] = 2;
    }
  }

  FlatIdMap index_of_;  // node id -> index (ids as int64_t: one to one)
  std::vector<size_t> parent_;
};

class Converter {
 public:
  Converter(const HostTrace& trace, const PytorchConvertOptions& options, PytorchConvertStats& stats)
      : trace_(trace), stats_(stats), tree_(trace, stats) {
    choose_rank(options);
  }

  // The rank: --rank, else the trace's root, else what the trace's own
  // records say (the rank field of its collective records, else the GPU of
  // its kernels, a local rank), else 0; stats say which.
  void choose_rank(const PytorchConvertOptions& options) {
    if (options.rank) {
      rank_ = *options.rank;
      stats_.rank_source = "--rank";
    } else if (trace_.rank) {
      rank_ = *trace_.rank;
      stats_.rank_source = "the trace's root";
    } else {
      std::map<int64_t, size_t> from_collectives;
      std::map<int64_t, size_t> from_devices;
      for (const auto& node : trace_.nodes) {
        if (node.kind != HostNodeKind::kOperator) {
          if (node.device >= 0) ++from_devices[node.device];
          continue;
        }
        if (!is_comm_record(node.name)) continue;
        const CommRecord record = read_comm_record(node, trace_);
        // A rooted collective's rank field is its root (PyTorch records
        // opts.rootRank there), not the trace's own rank.
        if (record.kind == CommKind::kCollective && !is_rooted(record.collective) && record.peer_rank &&
            *record.peer_rank >= 0) {
          ++from_collectives[*record.peer_rank];
        }
      }
      if (from_collectives.size() == 1) {
        rank_ = from_collectives.begin()->first;
        stats_.rank_source = fmt::format("inferred: the rank field of {} collective record(s)",
                                         from_collectives.begin()->second);
      } else if (from_collectives.empty() && from_devices.size() == 1) {
        rank_ = from_devices.begin()->first;
        stats_.rank_source = fmt::format("inferred: the GPU of {} device node(s) (a local rank; one node assumed)",
                                         from_devices.begin()->second);
      } else {
        rank_ = 0;
        stats_.rank_source = from_collectives.size() > 1 || from_devices.size() > 1
                                 ? "none: the trace's records name several ranks; 0 assumed (use --rank)"
                                 : "none found in the trace; 0 assumed (use --rank)";
      }
    }
    // The rank names the output file and sizes the job's groups: a record's
    // rank field or a GPU index beyond --rank's range is no rank.
    const std::string problem = pytorch::trace_rank_problem(rank_);
    if (!problem.empty()) throw Error(fmt::format("rank {} ({}) {}", rank_, stats_.rank_source, problem));
    stats_.rank = rank_;
  }

  ConvertedGraph run() {
    assign_roles();
    build_nodes();
    ConvertedGraph graph;
    graph.rank = rank_;
    graph.source_schema = trace_.schema;
    graph.nodes = order_topologically();
    graph.texts = texts_;
    return graph;
  }

 private:
  [[nodiscard]] const HostNode& host(size_t i) const { return trace_.nodes[i]; }

  void assign_roles() {
    const size_t n = trace_.nodes.size();
    role_.assign(n, Role::kScope);
    std::vector<bool> has_operator_child(n, false);
    std::vector<bool> holds_comm(n, false);
    for (size_t i = 0; i < n; ++i) {
      const size_t p = tree_.parent(i);
      if (host(i).kind != HostNodeKind::kOperator) continue;
      if (p != kNone) has_operator_child[p] = true;
      if (!is_comm_record(host(i).name)) continue;
      CommRecord record = read_comm_record(host(i), trace_);
      comm_records_.emplace(i, record);
      if (record.kind == CommKind::kWait || record.kind == CommKind::kUnknown) continue;
      for (size_t a = p; a != kNone && !holds_comm[a]; a = tree_.parent(a)) holds_comm[a] = true;
    }
    // Backends without record_param_comms (gloo) leave only the c10d:: op.
    std::vector<bool> c10d_comm(n, false);
    for (size_t i = 0; i < n; ++i) {
      if (host(i).kind != HostNodeKind::kOperator || holds_comm[i] || !host(i).name.starts_with("c10d::")) continue;
      CommRecord record = read_c10d_op(host(i));
      if (record.kind != CommKind::kCollective) continue;
      comm_records_.emplace(i, record);
      c10d_comm[i] = true;
      ++stats_.c10d_collectives;
      for (size_t a = tree_.parent(i); a != kNone && !holds_comm[a]; a = tree_.parent(a)) holds_comm[a] = true;
    }
    // Roles top-down: a node's role depends on its ancestors' roles, so
    // resolve each chain from the top with an explicit stack.
    std::vector<bool> resolved(n, false);
    std::vector<size_t> chain;
    for (size_t start = 0; start < n; ++start) {
      chain.clear();
      for (size_t i = start; i != kNone && !resolved[i]; i = tree_.parent(i)) chain.push_back(i);
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const size_t i = *it;
        const size_t p = tree_.parent(i);
        const bool inside_emitted =
            p != kNone && (role_[p] == Role::kEmitted || role_[p] == Role::kAbsorbed);
        const HostNode& node = host(i);
        if (node.kind != HostNodeKind::kOperator) {
          role_[i] = Role::kDevice;
        } else if (pytorch::is_trace_annotation(node.name)) {
          role_[i] = Role::kAnnotation;
        } else if (is_backend_collective_work(node.name)) {
          role_[i] = Role::kBackendWork;
          ++stats_.backend_collective_work;
        } else if (inside_emitted) {
          role_[i] = Role::kAbsorbed;
        } else if (is_comm_record(node.name) || c10d_comm[i] || (!holds_comm[i] && (!node.op_schema.empty() ||
                                                                     !has_operator_child[i]))) {
          role_[i] = Role::kEmitted;
        } else {
          role_[i] = Role::kScope;
        }
        resolved[i] = true;
      }
    }
    owner_.assign(n, kNone);
    for (size_t i = 0; i < n; ++i) {
      if (role_[i] == Role::kScope) ++stats_.scopes_looked_through;
      if (role_[i] == Role::kAbsorbed) ++stats_.ops_absorbed;
      // The emitted op a node belongs to: itself, or for absorbed ops and
      // device nodes the nearest emitted ancestor through absorbed ones.
      size_t a = role_[i] == Role::kDevice ? tree_.parent(i) : i;
      while (a != kNone && role_[a] == Role::kAbsorbed) a = tree_.parent(a);
      if (a != kNone && role_[a] == Role::kEmitted) owner_[i] = a;
    }
  }

  // Nearest record_param_comms at or above host node `i`.
  [[nodiscard]] size_t comm_record_above(size_t i) const {
    for (size_t a = i; a != kNone; a = tree_.parent(a)) {
      if (comm_records_.count(a) != 0) return a;
    }
    return kNone;
  }

  ConvertedNode& new_node(const HostNode& source) {
    nodes_.emplace_back();
    ConvertedNode& node = nodes_.back();
    node.id = source.id;
    node.name = source.name;
    if (source.ts_ns) node.start_time_micros = ns_to_micros(*source.ts_ns);
    if (source.dur_ns) node.duration_micros = ns_to_micros(*source.dur_ns);
    return node;
  }

  void set_comm(ConvertedNode& node, const CommRecord& record, CommKind kind, CollectiveType type) {
    node.comm_size_bytes = record.input_bytes;
    node.pg_name = record.pg_name;
    node.comm_group_size = record.group_size;
    const auto me = static_cast<int32_t>(rank_);
    const int32_t peer = record.peer_rank ? as_rank(*record.peer_rank) : -1;
    if (kind == CommKind::kSend || kind == CommKind::kRecv) {
      if (peer < 0) ++stats_.peers_unknown;
      node.type = kind == CommKind::kSend ? ConvertedNodeType::kCommSend : ConvertedNodeType::kCommRecv;
      node.comm_src = kind == CommKind::kSend ? me : peer;
      node.comm_dst = kind == CommKind::kSend ? peer : me;
      // k-th message between the same pair: the peer's trace counts the same way.
      node.comm_tag = p2p_count_[{node.comm_src, node.comm_dst}]++;
      ++(kind == CommKind::kSend ? stats_.comm_send : stats_.comm_recv);
    } else {
      node.type = ConvertedNodeType::kCommColl;
      node.comm_type = type;
      ++stats_.comm_coll;
      if (is_rooted(type)) {
        ++stats_.rooted_collectives;
        node.comm_src = global_root(record);
        if (node.comm_src < 0) ++stats_.roots_unknown;
      }
    }
  }

  // The root of a rooted collective as a global rank: PyTorch records the
  // root's rank in its process group, mapped through the group's ranks
  // (process_group:init), or taken as is for the default group. -1 when
  // neither applies.
  int32_t global_root(const CommRecord& record) const {
    if (!record.peer_rank || *record.peer_rank < 0) return -1;
    const int64_t group_rank = *record.peer_rank;
    for (const pytorch::ProcessGroupInfo& group : trace_.process_groups) {
      if (group.pg_name != record.pg_name || group.ranks.empty()) continue;
      if (group_rank >= static_cast<int64_t>(group.ranks.size())) return -1;
      return as_rank(group.ranks[static_cast<size_t>(group_rank)]);
    }
    if (record.pg_name.empty() || record.pg_name == "0") return as_rank(group_rank);
    return -1;
  }

  // A rank as the trace's comm fields hold it, -1 for a number that is no
  // rank (negative, or beyond --rank's range): never a wrapped 32-bit value.
  static int32_t as_rank(int64_t value) { return limits::is_rank(value) ? static_cast<int32_t>(value) : -1; }

  void build_nodes() {
    const size_t n = trace_.nodes.size();
    // At most one node per host node: sized once instead of copied as it
    // grows (unused capacity is address space, never touched).
    nodes_.reserve(n);
    pytorch::advise_huge_pages(nodes_.data(), nodes_.capacity() * sizeof(ConvertedNode));
    // Execution order of host ops: ids are assigned when ops start.
    // (Sorted as (id, index) pairs, not indices compared through the nodes:
    // ids are unique, and a pair compares without a cache miss.)
    std::vector<std::pair<uint64_t, size_t>> by_id(n);
    for (size_t i = 0; i < n; ++i) by_id[i] = {host(i).id, i};
    sort_by_id(by_id);
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = by_id[i].second;

    // Which comm records had an NCCL kernel linked below them.
    std::vector<bool> record_has_kernel(n, false);
    for (size_t i = 0; i < n; ++i) {
      CommKind kind = CommKind::kUnknown;
      CollectiveType type = CollectiveType::kAllReduce;
      if (role_[i] != Role::kDevice || !classify_comm_kernel(host(i).name, kind, type)) continue;
      const size_t record = comm_record_above(tree_.parent(i));
      if (record != kNone) record_has_kernel[record] = true;
    }

    build_device_streams();
    place_stream_waits();

    std::unordered_map<uint64_t, uint64_t> last_cpu_on_thread;   // tid -> node id
    std::unordered_map<uint64_t, std::vector<SyncWait>> pending_sync;  // by tid
    std::unordered_map<TensorKey, uint64_t, TensorKeyHash> producer;
    std::vector<std::pair<uint64_t, uint64_t>> tensors;  // (tensor, storage) ids of one node's inputs or outputs
    std::unordered_map<int64_t, uint64_t> comm_by_seq;
    std::vector<std::vector<size_t>> syncs_of(n);
    // Syncs made directly in a scope (not inside any emitted op) apply to the
    // thread's first emitted op that starts after them (needs timestamps).
    std::unordered_map<uint64_t, std::vector<pytorch::HostSyncCall>> scope_syncs;
    for (size_t i = 0; i < n; ++i) {
      if (host(i).syncs.empty()) continue;
      if (owner_[i] != kNone) {
        syncs_of[owner_[i]].push_back(i);
      } else {
        auto& list = scope_syncs[host(i).tid];
        list.insert(list.end(), host(i).syncs.begin(), host(i).syncs.end());
      }
    }
    for (auto& [tid, list] : scope_syncs) {
      std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.ts_ns < b.ts_ns; });
    }
    std::unordered_map<uint64_t, size_t> scope_sync_cursor;

    for (size_t i : order) {
      if (role_[i] == Role::kDevice) {
        build_device_node(i);
        continue;
      }
      if (role_[i] != Role::kEmitted) continue;
      const HostNode& source = host(i);
      ConvertedNode& node = new_node(source);
      const uint64_t id = node.id;
      node.input_values = dump_field(source.inputs, 0, io_scratch_, *texts_);
      node.input_shapes = dump_field(source.inputs, 1, io_scratch_, *texts_);
      node.input_types = dump_field(source.inputs, 2, io_scratch_, *texts_);
      node.output_values = dump_field(source.outputs, 0, io_scratch_, *texts_);
      node.output_shapes = dump_field(source.outputs, 1, io_scratch_, *texts_);
      node.output_types = dump_field(source.outputs, 2, io_scratch_, *texts_);

      bool is_comm_node = false;
      const auto record_it = comm_records_.find(i);
      if (record_it != comm_records_.end()) {
        const CommRecord& record = record_it->second;
        if (record.kind == CommKind::kUnknown) ++stats_.unknown_collectives;
        const bool communicates = record.kind == CommKind::kCollective ||
                                  record.kind == CommKind::kSend || record.kind == CommKind::kRecv;
        if (communicates && !record_has_kernel[i]) {
          set_comm(node, record, record.kind, record.collective);
          is_comm_node = true;
        }
        if (communicates && record.seq) comm_by_seq[*record.seq] = id;
        if (record.kind == CommKind::kWait && record.seq) {
          const auto waited = comm_by_seq.find(*record.seq);
          if (waited != comm_by_seq.end()) {
            add_unique(node.data_deps, waited->second);
            ++stats_.wait_deps;
          }
        }
      }
      if (!is_comm_node) {
        node.is_cpu_op = true;
        ++stats_.cpu_ops;
      }

      // Thread order. A collective waits for the op before it but does not
      // block the thread: the next CPU op follows the previous CPU op.
      const auto last = last_cpu_on_thread.find(source.tid);
      if (last != last_cpu_on_thread.end()) add_unique(node.data_deps, last->second);
      if (!is_comm_node) {
        last_cpu_on_thread[source.tid] = id;
        auto& waits = pending_sync[source.tid];
        const auto scoped = scope_syncs.find(source.tid);
        if (scoped != scope_syncs.end() && source.ts_ns) {
          size_t& cursor = scope_sync_cursor[source.tid];
          for (; cursor < scoped->second.size() && scoped->second[cursor].ts_ns < *source.ts_ns; ++cursor) {
            add_sync_waits(scoped->second[cursor], waits);
          }
        }
        // Host ids need not follow time on a thread (an async collective's
        // record can carry an id below an op that started before it), so a
        // wait goes only to an op that starts after the synchronising call;
        // otherwise an op could wait for the kernel it launches itself.
        std::erase_if(waits, [&](const SyncWait& wait) {
          if (source.ts_ns && wait.call_ts_ns > *source.ts_ns) return false;
          add_unique(node.data_deps, wait.device_node);
          ++stats_.sync_deps;
          return true;
        });
      }

      tensors.clear();
      pytorch::find_tensor_ids(source.inputs, tensors);
      for (const auto& [tensor, storage] : tensors) {
        const auto it = producer.find({tensor, storage});
        if (it != producer.end() && it->second != id) add_unique(node.data_deps, it->second);
      }
      tensors.clear();
      pytorch::find_tensor_ids(source.outputs, tensors);
      for (const auto& [tensor, storage] : tensors) producer[{tensor, storage}] = id;

      // Synchronising calls inside this op: the thread's next CPU op waits
      // for every device node launched before the call, on the streams it covers.
      for (size_t s : syncs_of[i]) {
        for (const auto& call : host(s).syncs) add_sync_waits(call, pending_sync[source.tid]);
      }
    }
    for (const auto& node : nodes_) stats_.ctrl_deps += node.ctrl_deps.size();
  }

  // The last device node launched before `call` on each stream it covers.
  void add_sync_waits(const pytorch::HostSyncCall& call, std::vector<SyncWait>& waits) const {
    for (const auto& [stream_key, launches] : device_streams_) {
      if (call.stream >= 0 && stream_key.second != call.stream) continue;
      const auto it = std::lower_bound(launches.begin(), launches.end(),
                                       std::make_pair(call.ts_ns, uint64_t{0}));
      if (it == launches.begin()) continue;
      const uint64_t node = std::prev(it)->second;
      const bool pending =
          std::any_of(waits.begin(), waits.end(), [&](const SyncWait& w) { return w.device_node == node; });
      if (!pending) waits.push_back({call.ts_ns, node});
    }
  }

  // cudaStreamWaitEvent: the first device node launched on the waiting
  // stream after the call depends on the last one launched on the awaited
  // stream before it (per device holding both streams).
  void place_stream_waits() {
    for (const auto& node : trace_.nodes) {
      for (const auto& wait : node.stream_waits) {
        if (wait.stream < 0 || wait.wait_on_stream < 0) {
          ++stats_.stream_waits_unknown_stream;
          continue;
        }
        bool placed = false;
        for (const auto& [key, launches] : device_streams_) {
          if (key.second != wait.stream) continue;
          const auto other = device_streams_.find({key.first, wait.wait_on_stream});
          if (other == device_streams_.end()) continue;
          const auto after = std::upper_bound(launches.begin(), launches.end(),
                                              std::make_pair(wait.ts_ns, std::numeric_limits<uint64_t>::max()));
          const auto before = std::lower_bound(other->second.begin(), other->second.end(),
                                               std::make_pair(wait.ts_ns, uint64_t{0}));
          if (after == launches.end() || before == other->second.begin()) continue;
          stream_wait_parents_[after->second].push_back(std::prev(before)->second);
          placed = true;
        }
        ++(placed ? stats_.stream_wait_deps : stats_.stream_waits_no_node);
      }
    }
  }

  // Device nodes per (device, stream) in launch order: (launch ts, id).
  void build_device_streams() {
    for (size_t i = 0; i < trace_.nodes.size(); ++i) {
      if (role_[i] != Role::kDevice) continue;
      const HostNode& node = host(i);
      const int64_t launch = node.launch_ts_ns.value_or(node.ts_ns.value_or(0));
      device_streams_[{node.device, node.stream}].push_back({launch, node.id});
    }
    for (auto& [key, launches] : device_streams_) {
      std::sort(launches.begin(), launches.end());
      for (size_t k = 1; k < launches.size(); ++k) stream_predecessor_[launches[k].second] = launches[k - 1].second;
    }
  }

  void build_device_node(size_t i) {
    const HostNode& source = host(i);
    ConvertedNode& node = new_node(source);
    CommKind kind = CommKind::kUnknown;
    CollectiveType type = CollectiveType::kAllReduce;
    const bool is_comm_kernel = classify_comm_kernel(source.name, kind, type);
    const size_t record_index = is_comm_kernel ? comm_record_above(tree_.parent(i)) : kNone;
    if (is_comm_kernel && record_index != kNone) {
      const CommRecord& record = comm_records_.at(record_index);
      const bool record_knows = record.kind == CommKind::kCollective ||
                                record.kind == CommKind::kSend || record.kind == CommKind::kRecv;
      set_comm(node, record, record_knows ? record.kind : kind, record_knows ? record.collective : type);
    } else if (is_comm_kernel && kind != CommKind::kUnknown) {
      ++stats_.comm_kernels_without_record;
      set_comm(node, CommRecord{}, kind, type);
    } else {
      node.is_cpu_op = false;
      ++stats_.gpu_ops;
    }
    if (owner_[i] != kNone) {
      const uint64_t launcher = host(owner_[i]).id;
      // Parent/child: the launch. Consumers treat ctrl_deps as dependencies
      // too, so it is not repeated in data_deps.
      node.ctrl_deps.push_back(launcher);
    } else {
      ++stats_.device_nodes_without_op;
    }
    const auto pred = stream_predecessor_.find(node.id);
    if (pred != stream_predecessor_.end()) {
      add_unique(node.data_deps, pred->second);
      ++stats_.stream_deps;
    }
    const auto waits = stream_wait_parents_.find(node.id);
    if (waits != stream_wait_parents_.end()) {
      for (uint64_t parent : waits->second) add_unique(node.data_deps, parent);
    }
  }

  // Kahn's algorithm, smallest id first: deps always precede their users in
  // the file and the order is deterministic. Dependencies on ids that were
  // not emitted are dropped (cannot happen for deps built above).
  std::vector<ConvertedNode> order_topologically() {
    FlatIdMap index_of(nodes_.size());
    for (size_t i = 0; i < nodes_.size(); ++i) index_of.emplace(static_cast<int64_t>(nodes_[i].id), i);
    // A control dependency on an id not emitted counts as one on the first
    // node (cannot happen for deps built above: launchers are emitted).
    const auto index = [&](uint64_t id) {
      index_of.emplace(static_cast<int64_t>(id), 0);
      return *index_of.find(static_cast<int64_t>(id));
    };
    std::vector<size_t> pending(nodes_.size(), 0);
    std::vector<std::pair<size_t, size_t>> edges;  // (dependency, user), as found
    for (size_t i = 0; i < nodes_.size(); ++i) {
      auto& deps = nodes_[i].data_deps;
      std::erase_if(deps, [&](uint64_t d) {
        return index_of.find(static_cast<int64_t>(d)) == nullptr || d == nodes_[i].id;
      });
      std::sort(deps.begin(), deps.end());
      stats_.data_deps += deps.size();
      // The data deps, then each control dep that is not among them or
      // before it: every dependency once.
      const auto depend_on = [&](uint64_t d) {
        edges.emplace_back(index(d), i);
        ++pending[i];
      };
      for (uint64_t d : deps) depend_on(d);
      const auto& ctrl = nodes_[i].ctrl_deps;
      for (auto c = ctrl.begin(); c != ctrl.end(); ++c) {
        if (std::binary_search(deps.begin(), deps.end(), *c) || std::find(ctrl.begin(), c, *c) != c) continue;
        depend_on(*c);
      }
    }
    const Users users(nodes_.size(), edges);
    edges = {};
    using Entry = std::pair<uint64_t, size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (pending[i] == 0) ready.push({nodes_[i].id, i});
    }
    // The order as indices first, then the nodes permuted in place: a
    // second vector of nodes would be as large as the first (fresh pages
    // the kernel must clear) for nothing but moves.
    std::vector<size_t> order;
    order.reserve(nodes_.size());
    while (!ready.empty()) {
      const size_t i = ready.top().second;
      ready.pop();
      for (size_t u : users.of(i)) {
        if (--pending[u] == 0) ready.push({nodes_[u].id, u});
      }
      order.push_back(i);
    }
    if (order.size() != nodes_.size()) throw Error(describe_cycle(pending, users));
    // Position k takes node order[k]: follow each cycle of the permutation,
    // moving every node once through one temporary.
    std::vector<bool> placed(nodes_.size(), false);
    for (size_t start = 0; start < nodes_.size(); ++start) {
      if (placed[start] || order[start] == start) continue;
      ConvertedNode carried = std::move(nodes_[start]);
      size_t at = start;
      while (order[at] != start) {
        nodes_[at] = std::move(nodes_[order[at]]);
        placed[at] = true;
        at = order[at];
      }
      nodes_[at] = std::move(carried);
      placed[at] = true;
    }
    return std::move(nodes_);
  }

  // Names the nodes of one cycle among those left unsorted: from any of
  // them, follow an unsorted dependency until a node repeats. (nodes_ still
  // holds every unsorted node: only sorted ones were moved out.)
  std::string describe_cycle(const std::vector<size_t>& pending, const Users& users) const {
    std::vector<std::vector<size_t>> unsorted_deps(nodes_.size());
    for (size_t d = 0; d < nodes_.size(); ++d) {
      if (pending[d] == 0) continue;
      for (size_t u : users.of(d)) {
        if (pending[u] != 0) unsorted_deps[u].push_back(d);
      }
    }
    size_t at = 0;
    while (at < nodes_.size() && (pending[at] == 0 || unsorted_deps[at].empty())) ++at;
    std::vector<size_t> path;
    std::vector<size_t> position(nodes_.size(), SIZE_MAX);
    while (at < nodes_.size() && position[at] == SIZE_MAX && !unsorted_deps[at].empty()) {
      position[at] = path.size();
      path.push_back(at);
      at = unsorted_deps[at].front();
    }
    std::string cycle;
    if (at < nodes_.size() && position[at] != SIZE_MAX) {
      for (size_t k = position[at]; k < path.size(); ++k) {
        cycle += fmt::format("{}{} ('{}')", cycle.empty() ? "" : " waits for ", nodes_[path[k]].id, nodes_[path[k]].name);
      }
      cycle += fmt::format(", which waits for {}", nodes_[at].id);
    }
    return fmt::format("dependency cycle: {}; the trace's timestamps or tensor ids are inconsistent",
                       cycle.empty() ? "(not located)" : cycle);
  }

  const HostTrace& trace_;
  PytorchConvertStats& stats_;
  HostTree tree_;
  int64_t rank_ = 0;
  std::vector<Role> role_;
  std::vector<size_t> owner_;
  std::unordered_map<size_t, CommRecord> comm_records_;
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, uint64_t>>> device_streams_;
  std::unordered_map<uint64_t, uint64_t> stream_predecessor_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> stream_wait_parents_;  // device node -> other streams' nodes
  std::map<std::pair<int32_t, int32_t>, int32_t> p2p_count_;
  std::vector<ConvertedNode> nodes_;
  std::shared_ptr<pytorch::TextPool> texts_ = std::make_shared<pytorch::TextPool>();  // the nodes' IOInfo texts
  std::string io_scratch_;
};

}  // namespace

ConvertedGraph convert_pytorch_trace(const HostTrace& trace, const PytorchConvertOptions& options,
                                     PytorchConvertStats& stats) {
  stats = PytorchConvertStats{};
  return Converter(trace, options, stats).run();
}

std::string describe(const PytorchConvertStats& stats) {
  return fmt::format("rank: {} ({})\n", stats.rank, stats.rank_source) + fmt::format(
      "nodes: {} CPU ops, {} GPU ops, {} COMM_COLL, {} COMM_SEND, {} COMM_RECV\n"
      "host structure: {} scopes looked through, {} ops absorbed into emitted ops, {} orphan nodes\n"
      "dependencies: {} data ({} stream order, {} sync, {} collective->wait), {} ctrl\n"
      "stream waits: {} placed across streams, {} not placed (streams not named by the trace), "
      "{} not placed (no device node on one side)\n"
      "notes: {} device nodes without a launching op, {} unknown collectives, "
      "{} NCCL kernels without record_param_comms, {} c10d collective ops without record_param_comms "
      "(group unknown: every rank), {} gloo collective records left out (the simulator times the collective)\n",
      stats.cpu_ops, stats.gpu_ops, stats.comm_coll, stats.comm_send, stats.comm_recv,
      stats.scopes_looked_through, stats.ops_absorbed, stats.orphan_nodes, stats.data_deps,
      stats.stream_deps, stats.sync_deps, stats.wait_deps, stats.ctrl_deps, stats.stream_wait_deps,
      stats.stream_waits_unknown_stream, stats.stream_waits_no_node,
      stats.device_nodes_without_op, stats.unknown_collectives, stats.comm_kernels_without_record,
      stats.c10d_collectives, stats.backend_collective_work) +
         (stats.roots_unknown == 0
              ? std::string()
              : fmt::format("notes: {} of {} rooted collectives (broadcast, reduce, gather, scatter) have a root "
                            "with no global rank here (their group's ranks are unknown): no comm_src written, the "
                            "simulator takes the group's first member\n",
                            stats.roots_unknown, stats.rooted_collectives)) +
         (stats.peers_unknown == 0
              ? std::string()
              : fmt::format("notes: {} of {} sends and receives have no peer rank (missing, negative or beyond "
                            "{}): peer -1 written, which the simulator refuses\n",
                            stats.peers_unknown, stats.comm_send + stats.comm_recv, limits::kMaxRanks - 1));
}

}  // namespace snr::et_convert
