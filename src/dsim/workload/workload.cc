#include "dsim/workload/workload.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <unordered_map>

#include "common/error.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/rank_files.h"

namespace snr::dsim {
namespace {

CollectiveKind collective_from_chakra(int64_t comm_type, uint64_t node_id) {
  switch (comm_type) {
    case ChakraProtoMsg::ALL_REDUCE: return CollectiveKind::kAllReduce;
    case ChakraProtoMsg::ALL_GATHER: return CollectiveKind::kAllGather;
    case ChakraProtoMsg::REDUCE_SCATTER: return CollectiveKind::kReduceScatter;
    case ChakraProtoMsg::ALL_TO_ALL: return CollectiveKind::kAllToAll;
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK: return CollectiveKind::kReduceScatter;
    case ChakraProtoMsg::BROADCAST: return CollectiveKind::kBroadcast;
    case ChakraProtoMsg::REDUCE: return CollectiveKind::kReduce;
    case ChakraProtoMsg::GATHER: return CollectiveKind::kGather;
    case ChakraProtoMsg::SCATTER: return CollectiveKind::kScatter;
    // NCCL has no barrier: a process group's barrier all-reduces a
    // one-element tensor, so a BARRIER node runs as an all-reduce.
    case ChakraProtoMsg::BARRIER: return CollectiveKind::kAllReduce;
    default:
      throw Error(fmt::format("node {}: collective comm_type {} is not simulated (ALL_REDUCE, REDUCE, ALL_GATHER, "
                              "GATHER, SCATTER, BROADCAST, ALL_TO_ALL, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK, "
                              "BARRIER)",
                              node_id, comm_type));
  }
}

// `tensor_bytes` > 0 (a node of 0 bytes is an invalid one, not timed).
// In ASTRA-sim's units and order of operations (rates per second, the time
// in seconds, then truncated ns): the same result to the nanosecond, where
// the rate per ns, which is the same mathematically, can round a time that
// is a whole number of ns the other way.
uint64_t roofline_ns(const SystemConfig& system, uint64_t num_ops, uint64_t tensor_bytes) {
  const double peak_ops_per_s = system.peak_perf_tflops * 1e12;
  const double bytes_per_s = system.local_mem_bytes_per_ns * 1e9;  // GB/s
  const double intensity = static_cast<double>(num_ops) / static_cast<double>(tensor_bytes);
  const double ops_per_s = std::min(bytes_per_s * intensity, peak_ops_per_s);
  if (ops_per_s <= 0) return 0;
  const double seconds = static_cast<double>(num_ops) / ops_per_s;
  return checked_node_ns(seconds * 1e9, "roofline compute time");
}

// Which busy time a node counts in (none for instant nodes).
NodeActivity activity_of(const WorkNode& node) {
  switch (node.action) {
    case NodeAction::kCompute: return node.node_class == NodeClass::kCpu ? NodeActivity::kCpu : NodeActivity::kGpu;
    case NodeAction::kCollective:
    case NodeAction::kSend:
    case NodeAction::kRecv: return NodeActivity::kCommunication;
    case NodeAction::kRemoteMemory: return NodeActivity::kRemoteMemory;
    case NodeAction::kInstant: break;
  }
  return NodeActivity::kCount;
}

// Whether `node` holds its class's one-at-a-time lane while in flight. A
// posted receive only waits for its message, so it neither waits for the
// communication lane nor holds it (ASTRA-sim's HardwareResource exempts
// COMM_RECV_NODE the same way). Holding it would deadlock every pipeline:
// a stage posts its next receive as soon as it has no dependencies, and the
// send its peer is waiting for could then never be issued behind it.
bool holds_lane(const WorkNode& node) {
  return node.node_class != NodeClass::kInstant && node.action != NodeAction::kRecv;
}

// A node timed by its trace duration (ASTRA-sim's issue_replay): 1 ns when
// it has none.
uint64_t replayed_duration_ns(const ChakraProtoMsg::Node& proto) {
  if (proto.duration_micros() > kMaxNodeNs / 1000) {
    throw Error(fmt::format("duration_micros {} is out of range: valid 0 .. 2^60 ns (about 36 years)",
                            proto.duration_micros()));
  }
  return std::max<uint64_t>(proto.duration_micros() * 1000, 1);
}

// replay-only (ASTRA-sim's issue_replay): every node takes its trace
// duration, 1 ns when it has none; its lane is the one ASTRA-sim's hardware
// resource gives it: CPU ops the CPU, compute the GPU compute lane, every
// other kind (collectives, sends, metadata, memory) the communication lane,
// receives none.
void make_replayed(WorkNode& node, const ChakraProtoMsg::Node& proto, bool cpu) {
  node.replayed = true;
  node.duration_ns = replayed_duration_ns(proto);
  switch (proto.type()) {
    case ChakraProtoMsg::COMP_NODE: node.action = NodeAction::kCompute; break;
    case ChakraProtoMsg::COMM_COLL_NODE: node.action = NodeAction::kCollective; break;
    case ChakraProtoMsg::COMM_SEND_NODE: node.action = NodeAction::kSend; break;
    case ChakraProtoMsg::COMM_RECV_NODE: node.action = NodeAction::kRecv; break;
    default: node.action = NodeAction::kInstant; break;
  }
  node.node_class = cpu                                        ? NodeClass::kCpu
                    : proto.type() == ChakraProtoMsg::COMP_NODE ? NodeClass::kGpuCompute
                                                                : NodeClass::kGpuComm;
}

uint64_t checked_bytes(uint64_t bytes, const char* attribute) {
  if (bytes > kMaxMessageBytes) {
    throw Error(fmt::format("{} {} bytes is out of range: valid 0 .. 2^50 bytes (1 PiB)", attribute, bytes));
  }
  return bytes;
}

// What a node does when simulated (not replayed): its action, lane, time
// or bytes, peer and group, from its type and attributes. True for a
// barrier, which runs as an all-reduce (counted for a note).
bool read_simulated_node(WorkNode& node, const ChakraProtoMsg::Node& proto, const chakra::NodeView& view, bool cpu,
                         const SystemConfig& system, const CommGroups& groups, uint64_t npus_count,
                         RemoteMemoryType memory) {
  bool barrier = false;
  switch (proto.type()) {
    case ChakraProtoMsg::COMP_NODE: {
      node.action = NodeAction::kCompute;
      node.node_class = cpu ? NodeClass::kCpu : NodeClass::kGpuCompute;
      // ASTRA-sim's issue_comp: the roofline times GPU nodes only (a CPU op
      // is replayed), from both num_ops and tensor_size; a tensor_size of 0
      // marks an invalid node, finished at once.
      if (system.roofline_enabled && !cpu) {
        const auto ops = view.num_ops();
        const auto bytes = view.tensor_size_bytes();
        if (!ops.has_value() || !bytes.has_value()) {
          throw Error(fmt::format("roofline-enabled: a GPU compute node needs num_ops and tensor_size, this one has "
                                  "{}",
                                  ops ? "no tensor_size" : bytes ? "no num_ops" : "neither"));
        }
        if (*bytes == 0) {
          node.action = NodeAction::kInstant;
        } else {
          node.duration_ns = roofline_ns(system, *ops, *bytes);
        }
      } else {
        node.duration_ns = replayed_duration_ns(proto);
      }
      break;
    }
    case ChakraProtoMsg::COMM_COLL_NODE:
    case ChakraProtoMsg::COMM_SEND_NODE:
    case ChakraProtoMsg::COMM_RECV_NODE: {
      node.node_class = NodeClass::kGpuComm;
      node.comm_bytes = checked_bytes(view.comm_size_bytes().value_or(0), "comm_size");
      node.group = group_index_of(groups, view.pg_name().value_or(""));
      if (const auto dims = view.involved_dim(); dims.has_value()) node.involved_dimensions = *dims;
      if (proto.type() == ChakraProtoMsg::COMM_COLL_NODE) {
        node.action = NodeAction::kCollective;
        const auto type = view.comm_type();
        if (!type.has_value()) throw Error("collective without comm_type");
        node.collective = collective_from_chakra(*type, proto.id());
        // A rooted collective's root: comm_src when the trace names it
        // (Chakra has no root field), else the group's first member.
        if (is_rooted(node.collective)) {
          if (const auto root = view.comm_src(); root.has_value()) {
            if (*root < 0 || static_cast<uint64_t>(*root) >= npus_count) {
              throw Error(fmt::format("comm_src (the root) {} is not one of the {} NPUs", *root, npus_count));
            }
            node.peer = *root;
          }
        }
        if (!chakra::collective_needs_size(*type)) {
          // A barrier: its size when the trace gives one, else the smallest
          // all-reduce (one byte, which the system's chunking rounds up).
          node.comm_bytes = std::max<uint64_t>(node.comm_bytes, 1);
          barrier = true;
        } else if (node.comm_bytes == 0) {
          throw Error("collective without a positive comm_size");
        }
      } else {
        const bool send = proto.type() == ChakraProtoMsg::COMM_SEND_NODE;
        node.action = send ? NodeAction::kSend : NodeAction::kRecv;
        const auto peer = send ? view.comm_dst() : view.comm_src();
        if (!peer.has_value() || *peer < 0 || static_cast<uint64_t>(*peer) >= npus_count) {
          throw Error(fmt::format("{} needs {} naming one of the {} NPUs", send ? "send" : "recv",
                                  send ? "comm_dst" : "comm_src", npus_count));
        }
        node.peer = *peer;
        node.tag = view.comm_tag().value_or(0);
      }
      break;
    }
    case ChakraProtoMsg::MEM_LOAD_NODE:
    case ChakraProtoMsg::MEM_STORE_NODE:
      if (memory != RemoteMemoryType::kNoExpansion) {
        const auto bytes = view.tensor_size_bytes();
        if (!bytes.has_value()) throw Error("a remote-memory node needs tensor_size (its bytes)");
        node.action = NodeAction::kRemoteMemory;
        node.node_class = cpu ? NodeClass::kCpu : NodeClass::kGpuComm;
        node.comm_bytes = checked_bytes(*bytes, "tensor_size");
        break;
      }
      [[fallthrough]];
    default:
      // METADATA, memory without a remote memory and other kinds take no time.
      node.action = NodeAction::kInstant;
      node.node_class = NodeClass::kInstant;
      break;
  }
  return barrier;
}

}  // namespace

RankGraph load_rank_graph(const std::filesystem::path& prefix, uint32_t rank, const SystemConfig& system,
                          const CommGroups& groups, uint64_t npus_count, DanglingDependencies dangling,
                          RemoteMemoryType memory) {
  const auto path = chakra::rank_trace_path(prefix, rank);
  auto trace = chakra::read_trace(path);
  RankGraph graph;
  graph.skipped_records = trace.stats.skipped_records;
  RankTensorsBuilder tensors;
  // A node's index is its rank in id order, not its place in the file:
  // ready nodes are issued lowest index first, and ASTRA-sim's feeder keeps
  // its dependency-free nodes in a set ordered by id. Generators that write
  // nodes out of id order (Symbolic Tensor Graph does) otherwise see a
  // different node take a busy lane first.
  std::vector<uint32_t> file_position(trace.nodes.size());
  std::iota(file_position.begin(), file_position.end(), 0U);
  const auto id_before = [&](uint32_t a, uint32_t b) { return trace.nodes[a].id() < trace.nodes[b].id(); };
  if (!std::is_sorted(file_position.begin(), file_position.end(), id_before)) {
    std::stable_sort(file_position.begin(), file_position.end(), id_before);
  }
  std::unordered_map<uint64_t, uint32_t> index_of;
  index_of.reserve(trace.nodes.size());
  graph.nodes.resize(trace.nodes.size());
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const uint64_t id = trace.nodes[file_position[i]].id();
    if (!index_of.emplace(id, static_cast<uint32_t>(i)).second) {
      throw Error(fmt::format("{}: node id {} appears twice", path.string(), id));
    }
  }
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const auto& proto = trace.nodes[file_position[i]];
    WorkNode& node = graph.nodes[i];
    node.chakra_id = proto.id();
    node.name = proto.name();
    with_error_context(fmt::format("{}: node {}", path.string(), proto.id()), [&] {
      const chakra::NodeView view(proto);
      if (system.track_local_mem) tensors.add_node(proto);
      const bool cpu = view.is_cpu_op().value_or(false);
      if (system.replay_only) {
        make_replayed(node, proto, cpu);
      } else {
        if (read_simulated_node(node, proto, view, cpu, system, groups, npus_count, memory)) {
          ++graph.barriers_run_as_all_reduce;
        }
      }
      auto link = [&](uint64_t parent_id) {
        const auto it = index_of.find(parent_id);
        if (it == index_of.end()) {
          if (dangling == DanglingDependencies::kIgnore) {
            ++graph.dangling_dependencies_dropped;
            return;
          }
          throw Error(fmt::format("depends on node {}, which is not in the trace "
                                  "(--dangling-dependencies=ignore drops such dependencies and counts them)",
                                  parent_id));
        }
        graph.nodes[it->second].children.push_back(static_cast<uint32_t>(i));
        ++node.parents;
      };
      for (uint64_t dep : proto.data_deps()) link(dep);
      for (uint64_t dep : proto.ctrl_deps()) {
        if (std::find(proto.data_deps().begin(), proto.data_deps().end(), dep) == proto.data_deps().end()) link(dep);
      }
    });
  }
  if (system.track_local_mem) graph.tensors = tensors.finish();
  return graph;
}

Workload::Workload(std::vector<RankGraph> graphs, const CommGroups& groups, EventLoop& loop, bool record_timeline,
                   bool track_memory)
    : graphs_(std::move(graphs)), loop_(loop), record_timeline_(record_timeline) {
  if (track_memory) {
    std::vector<const RankTensors*> ranks;
    for (const RankGraph& graph : graphs_) {
      if (graph.tensors.node_begin.size() != graph.nodes.size() + 1) {
        throw Error("memory tracking needs every rank's tensors (load the traces with track-local-mem)");
      }
      ranks.push_back(&graph.tensors);
    }
    memory_ = std::make_unique<MemoryTracker>(std::move(ranks));
  }
  handler_ = loop.add_handler("workload", *this);
  for (const auto& [name, members] : groups.groups) group_members_.push_back(members);
  state_.resize(graphs_.size());
  results_.resize(graphs_.size());
  if (record_timeline_) timeline_.resize(graphs_.size());
  for (size_t npu = 0; npu < graphs_.size(); ++npu) {
    NpuState& s = state_[npu];
    const auto& nodes = graphs_[npu].nodes;
    s.parents_left.resize(nodes.size());
    s.started_ns.assign(nodes.size(), 0);
    s.remaining = nodes.size();
    for (uint32_t i = 0; i < nodes.size(); ++i) {
      s.parents_left[i] = nodes[i].parents;
      if (nodes[i].parents == 0) s.ready.push_back(i);
    }
    std::make_heap(s.ready.begin(), s.ready.end(), std::greater<>());
  }
}

void Workload::start() {
  for (NpuId npu = 0; npu < graphs_.size(); ++npu) {
    if (state_[npu].remaining == 0) {
      results_[npu].finished = true;
      continue;
    }
    issue_ready(npu);
  }
}

void Workload::issue_ready(NpuId npu) {
  NpuState& s = state_[npu];
  // Nodes whose class is busy wait; they are put back after the scan.
  std::vector<uint32_t> blocked;
  while (!s.ready.empty()) {
    std::pop_heap(s.ready.begin(), s.ready.end(), std::greater<>());
    const uint32_t node = s.ready.back();
    s.ready.pop_back();
    const WorkNode& work = graphs_[npu].nodes[node];
    if (holds_lane(work) && s.in_flight[static_cast<int>(work.node_class)] > 0) {
      blocked.push_back(node);
      continue;
    }
    issue(npu, node);
  }
  for (uint32_t node : blocked) {
    s.ready.push_back(node);
    std::push_heap(s.ready.begin(), s.ready.end(), std::greater<>());
  }
}

void Workload::activity_started(NpuId npu, const WorkNode& node) {
  const NodeActivity activity = activity_of(node);
  if (activity == NodeActivity::kCount) return;
  NpuState& s = state_[npu];
  const auto a = static_cast<int>(activity);
  results_[npu].activities_seen |= static_cast<uint8_t>(1U << a);
  if (s.active[a]++ != 0) return;
  s.active_since_ns[a] = loop_.now();
  const auto gpu = static_cast<int>(NodeActivity::kGpu), comm = static_cast<int>(NodeActivity::kCommunication);
  if ((a == gpu || a == comm) && s.active[gpu] > 0 && s.active[comm] > 0) s.overlap_since_ns = loop_.now();
}

void Workload::activity_ended(NpuId npu, const WorkNode& node) {
  const NodeActivity activity = activity_of(node);
  if (activity == NodeActivity::kCount) return;
  NpuState& s = state_[npu];
  const auto a = static_cast<int>(activity);
  if (--s.active[a] != 0) return;
  const TimeNs now = loop_.now();
  results_[npu].busy_ns[a] += now - s.active_since_ns[a];
  const auto gpu = static_cast<int>(NodeActivity::kGpu), comm = static_cast<int>(NodeActivity::kCommunication);
  if (a == gpu && s.active[comm] > 0) results_[npu].overlap_ns += now - s.overlap_since_ns;
  if (a == comm && s.active[gpu] > 0) results_[npu].overlap_ns += now - s.overlap_since_ns;
}

void Workload::issue(NpuId npu, uint32_t node_index) {
  NpuState& s = state_[npu];
  const WorkNode& node = graphs_[npu].nodes[node_index];
  s.started_ns[node_index] = loop_.now();
  activity_started(npu, node);
  if (holds_lane(node)) ++s.in_flight[static_cast<int>(node.node_class)];
  if (node.replayed) {
    loop_.schedule_batched(loop_.now() + node.duration_ns, npu, handler_, ComputeDone{npu, node_index});
    return;
  }
  switch (node.action) {
    case NodeAction::kInstant:
      complete(npu, node_index);
      return;
    case NodeAction::kCompute:
      if (compute_device_ != nullptr && node.node_class == NodeClass::kGpuCompute && node.duration_ns > 0) {
        compute_device_->start_compute(npu, node.duration_ns, [this, npu, node_index](TimeNs done_ns) {
          loop_.schedule(done_ns, handler_, ComputeDone{npu, node_index});
        });
        return;
      }
      loop_.schedule_batched(loop_.now() + node.duration_ns, npu, handler_, ComputeDone{npu, node_index});
      return;
    case NodeAction::kCollective: {
      CollectiveRequest request;
      request.npu = npu;
      request.kind = node.collective;
      request.bytes = node.comm_bytes;
      request.involved_dimensions = node.involved_dimensions;
      if (node.group >= 0) {
        request.group = &group_members_[static_cast<size_t>(node.group)];
        request.group_index = static_cast<uint32_t>(node.group);
      }
      request.node_index = node_index;
      request.chakra_id = node.chakra_id;
      request.root = node.peer;
      // A collective the system layer cannot run (an algorithm without it,
      // a size or group a load-store plan cannot split) names its node.
      with_error_context(fmt::format("NPU {} node {} ('{}')", npu, node.chakra_id, node.name),
                         [&] { system_->start_collective(request); });
      return;
    }
    case NodeAction::kSend:
      system_->send_p2p(npu, static_cast<NpuId>(node.peer), node.tag, node.comm_bytes, node_index);
      return;
    case NodeAction::kRecv:
      system_->recv_p2p(npu, static_cast<NpuId>(node.peer), node.tag, node.comm_bytes, node_index);
      return;
    case NodeAction::kRemoteMemory:
      if (remote_memory_ == nullptr) throw Error("a remote-memory node was loaded without a remote memory");
      remote_memory_->issue(npu, node_index, node.comm_bytes);
      return;
  }
}

void Workload::complete(NpuId npu, uint32_t node_index) {
  NpuState& s = state_[npu];
  const WorkNode& node = graphs_[npu].nodes[node_index];
  const TimeNs now = loop_.now();
  if (holds_lane(node)) --s.in_flight[static_cast<int>(node.node_class)];
  s.parents_left[node_index] = kFinished;
  // Replayed too, only the compute lane's time is compute: ASTRA-sim adds
  // every replayed GPU node's (communication included), which can exceed
  // the finish time and wrap its exposed-communication figure below zero.
  if (node.node_class == NodeClass::kGpuCompute) results_[npu].compute_ns += now - s.started_ns[node_index];
  activity_ended(npu, node);
  if (memory_) memory_->node_finished(npu, node_index, s.started_ns[node_index], now);
  if (record_timeline_ && node.node_class != NodeClass::kInstant) {
    timeline_[npu].push_back(TimelineSlice{s.started_ns[node_index], now, node_index, node.node_class});
  }
  ++results_[npu].nodes_completed;
  for (uint32_t child : node.children) {
    if (--s.parents_left[child] == 0) {
      s.ready.push_back(child);
      std::push_heap(s.ready.begin(), s.ready.end(), std::greater<>());
    }
  }
  if (--s.remaining == 0) {
    results_[npu].finished = true;
    results_[npu].finish_ns = now;
    return;
  }
  issue_ready(npu);
}

std::vector<MemoryProfile> Workload::take_memory_profiles() {
  return memory_ ? memory_->take_profiles() : std::vector<MemoryProfile>{};
}

void Workload::communication_finished(NpuId npu, uint64_t node_index) {
  complete(npu, static_cast<uint32_t>(node_index));
}

void Workload::remote_memory_done(NpuId npu, uint32_t node_index) { complete(npu, node_index); }

void Workload::handle(const Event& event) {
  if (event.kind != ComputeDone::kKind) throw_unknown_event("workload", event);
  const auto done = event.get<ComputeDone>();
  complete(done.npu, done.node);
}

std::vector<uint32_t> Workload::in_flight_nodes(NpuId npu) const {
  const NpuState& s = state_[npu];
  std::vector<bool> waiting_in_heap(s.parents_left.size(), false);
  for (const uint32_t i : s.ready) waiting_in_heap[i] = true;
  std::vector<uint32_t> nodes;
  for (uint32_t i = 0; i < s.parents_left.size(); ++i) {
    // Issued and not finished: no parents left, not done, not waiting in the ready heap.
    if (s.parents_left[i] == 0 && !waiting_in_heap[i]) nodes.push_back(i);
  }
  // What holds the communication lane first; posted receives last.
  std::stable_partition(nodes.begin(), nodes.end(),
                        [&](uint32_t i) { return graphs_[npu].nodes[i].action != NodeAction::kRecv; });
  return nodes;
}

std::string Workload::describe_in_flight(NpuId npu, const std::vector<uint32_t>& in_flight) const {
  if (in_flight.empty()) {
    // Nothing issued, nothing ready to issue: the rest wait for parents
    // that never finish.
    return fmt::format("NPU {} has no node in flight and {} waiting for parents that never finish", npu,
                       state_[npu].remaining);
  }
  constexpr size_t kMaxListed = 3;
  std::vector<std::string> listed;
  for (size_t k = 0; k < std::min(in_flight.size(), kMaxListed); ++k) {
    const WorkNode& node = graphs_[npu].nodes[in_flight[k]];
    const char* what = node.action == NodeAction::kCollective     ? "collective"
                       : node.action == NodeAction::kSend         ? "send"
                       : node.action == NodeAction::kRecv         ? "recv"
                       : node.action == NodeAction::kRemoteMemory ? "remote-memory request"
                                                                  : "node";
    std::string detail;
    if (node.action == NodeAction::kSend || node.action == NodeAction::kRecv) {
      detail = fmt::format(" {} NPU {} tag {}", node.action == NodeAction::kSend ? "to" : "from", node.peer, node.tag);
    } else if (node.action == NodeAction::kCollective && node.group >= 0) {
      detail = fmt::format(" on a group of {}", group_members_[static_cast<size_t>(node.group)].size());
    }
    listed.push_back(fmt::format("{} {} '{}'{}", what, node.chakra_id, node.name, detail));
  }
  if (in_flight.size() > kMaxListed) listed.push_back(fmt::format("{} more", in_flight.size() - kMaxListed));
  return fmt::format("NPU {} waits in {} ({} ready behind)", npu, fmt::join(listed, ", "), state_[npu].ready.size());
}

void Workload::check_all_finished(std::string_view collective_hint) const {
  // Stalled NPUs, those that hold a collective or send first: they wait on
  // their peers, where an NPU with only receives posted waits on them.
  std::vector<std::pair<NpuId, std::vector<uint32_t>>> stalled;
  for (NpuId npu = 0; npu < results_.size(); ++npu) {
    if (!results_[npu].finished) stalled.emplace_back(npu, in_flight_nodes(npu));
  }
  if (stalled.empty()) return;
  const auto holds_lane_first = [&](const auto& entry) {
    return !entry.second.empty() && graphs_[entry.first].nodes[entry.second.front()].action != NodeAction::kRecv;
  };
  std::stable_partition(stalled.begin(), stalled.end(), holds_lane_first);
  // What the first few wait in (ASTRA-sim lists its unreleased nodes).
  constexpr size_t kMaxNpusDescribed = 4;
  std::vector<std::string> waits;
  for (size_t i = 0; i < std::min(stalled.size(), kMaxNpusDescribed); ++i) {
    waits.push_back(describe_in_flight(stalled[i].first, stalled[i].second));
  }
  const NpuId first = stalled.front().first;
  const auto& front = stalled.front().second;
  const bool in_collectives =
      !front.empty() && graphs_[first].nodes[front.front()].action == NodeAction::kCollective;
  std::string why;
  if (in_collectives) {
    why = ". An NPU runs one collective or send at a time (ASTRA-sim's rule), so NPUs that issue collectives of "
          "different groups in different orders wait on each other for good";
    if (!collective_hint.empty()) why.append("; ").append(collective_hint);
  }
  throw Error(fmt::format("simulation stalled: NPU {} finished {} of {} nodes (deadlock: unmatched send/recv or "
                          "a collective not issued by every member); {} of {} NPUs unfinished: {}{}",
                          first, results_[first].nodes_completed, graphs_[first].nodes.size(), stalled.size(),
                          results_.size(), fmt::join(waits, "; "), why));
}

}  // namespace snr::dsim
