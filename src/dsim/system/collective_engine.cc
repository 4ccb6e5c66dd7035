#include "dsim/system/collective_engine.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "common/error.h"

namespace snr::dsim {
namespace {

// A collective as the system configuration's keys spell it (all-reduce).
std::string dashed_name(CollectiveKind kind) {
  std::string name = collective_name(kind);
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

}  // namespace

CollectiveEngine::CollectiveEngine(const SystemConfig& system, const NetworkConfig& network, EventLoop& loop,
                                   NetworkBackend& backend, SystemClient& client, TrafficCounters& traffic,
                                   const CustomCollectives* custom)
    : system_(system), network_config_(network), layout_(network),
      default_algorithm_(&find_collective_algorithm("ring")), custom_algorithm_(&find_collective_algorithm("custom")),
      rooted_algorithm_(&find_collective_algorithm("binomial-tree")),
      loop_(loop), events_(loop.queue()),
      network_(backend), client_(client), traffic_(traffic), custom_(custom) {
  handler_ = loop.add_handler("system layer (collectives)", *this);
  const uint64_t npus = network.npus_count();
  npus_.resize(npus);
  for (auto& npu : npus_) {
    npu.queue_streams.resize(network.dimensions.size());
    npu.running.assign(network.dimensions.size(), 0);
  }
  for (const auto* list : {&system.all_reduce, &system.all_gather, &system.reduce_scatter, &system.all_to_all}) {
    for (const CollectiveImplementation& impl : *list) {
      const CollectiveAlgorithmSpec& spec = *impl.algorithm;
      if (!spec.create_run) continue;
      if (runs_.size() <= spec.index) runs_.resize(spec.index + 1);
      if (!runs_[spec.index]) runs_[spec.index] = spec.create_run(
          AlgorithmRunContext{system, network, loop, handler_, &traffic.bytes_sent_per_npu});
    }
  }
}

CollectiveEngine::~CollectiveEngine() = default;

ComputeDevice* CollectiveEngine::compute_device() const {
  for (const auto& run : runs_) {
    if (!run) continue;
    if (ComputeDevice* device = run->compute_device()) return device;
  }
  return nullptr;
}

std::string CollectiveEngine::stall_report() const {
  std::string report;
  for (const auto& run : runs_) {
    if (!run) continue;
    const std::string part = run->stall_report();
    if (part.empty()) continue;
    if (!report.empty()) report += "; ";
    report += part;
  }
  return report;
}

std::vector<std::string> CollectiveEngine::notes() const {
  std::vector<std::string> notes;
  for (const CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter,
                                    CollectiveKind::kAllGather, CollectiveKind::kAllToAll}) {
    const auto& impls = implementations(kind);
    if (impls.size() > layout_.dims()) {
      notes.push_back(fmt::format("{}-implementation lists {} algorithms for a {}-dimensional network; those after "
                                  "the first {} are not used",
                                  dashed_name(kind), impls.size(), layout_.dims(), layout_.dims()));
    }
    if (!impls.empty() && custom_ != nullptr && custom_->by_kind[static_cast<size_t>(kind)] != nullptr) {
      notes.push_back(fmt::format("{0}-implementation is not used: {0}-implementation-custom runs every {0} "
                                  "(ASTRA-sim's priority: per-node programs, the collective's custom key, the list)",
                                  dashed_name(kind)));
    }
    if ((extended_lists_ & (1U << static_cast<unsigned>(kind))) == 0) continue;
    notes.push_back(fmt::format(
        "{}-implementation lists {} algorithm(s) for a {}-dimensional network; {} ran in the dimensions "
        "after the list too. ASTRA-sim builds its logical topology from the list alone, so there these "
        "collectives stay inside the first {} dimension(s) and never reach the other NPUs: list one "
        "algorithm per dimension to compare with it",
        dashed_name(kind), impls.size(), layout_.dims(), impls.back().algorithm->name, impls.size()));
  }
  if (custom_ != nullptr && !custom_->by_node.empty()) {
    std::vector<uint64_t> unused;
    for (const auto& [chakra_id, programs] : custom_->by_node) {
      if (!per_node_custom_run_.contains(chakra_id)) unused.push_back(chakra_id);
    }
    std::sort(unused.begin(), unused.end());
    if (!unused.empty()) {
      notes.push_back(fmt::format("per-node-custom-implementation names {} node id(s) no collective of the workload "
                                  "has, so their programs never ran: {}",
                                  unused.size(), fmt::join(unused, ", ")));
    }
  }
  return notes;
}

const std::vector<CollectiveImplementation>& CollectiveEngine::implementations(CollectiveKind kind) const {
  switch (kind) {
    case CollectiveKind::kAllReduce: return system_.all_reduce;
    case CollectiveKind::kAllGather: return system_.all_gather;
    case CollectiveKind::kReduceScatter: return system_.reduce_scatter;
    case CollectiveKind::kAllToAll: return system_.all_to_all;
    default: break;
  }
  // The rooted collectives have no *-implementation list: binomial tree.
  static const std::vector<CollectiveImplementation> kNone;
  return kNone;
}

uint64_t CollectiveEngine::reduction_ns_uncached(uint64_t bytes) {
  if (system_.local_mem_bytes_per_ns <= 0) {
    throw Error(fmt::format("system configuration {}: a reduction needs 'local-mem-bw' (GB/s), which is 0 or not given",
                            system_.source.empty() ? "(built in)" : system_.source));
  }
  // One write and two reads of the message, each truncated to whole ns.
  const auto one_pass = static_cast<uint64_t>(static_cast<double>(bytes) / system_.local_mem_bytes_per_ns);
  reduction_cached_bytes_ = bytes;
  reduction_cached_ns_ = 3 * one_pass;
  return reduction_cached_ns_;
}

uint32_t CollectiveEngine::allocate_stream() {
  if (!free_streams_.empty()) {
    const uint32_t id = free_streams_.back();
    free_streams_.pop_back();
    streams_[id] = Stream{};
    return id;
  }
  streams_.emplace_back();
  return static_cast<uint32_t>(streams_.size() - 1);
}

void CollectiveEngine::fill_phase_rings(Stream& stream, const CollectiveRequest& request,
                                        const CustomPrograms* custom_programs) {
  const NpuId npu = request.npu;
  const auto& impls = implementations(request.kind);
  const size_t dims = layout_.dims();
  uint64_t bytes = stream.phases[0].input_bytes;
  uint32_t root_position = 0;
  const bool custom = custom_programs != nullptr;
  auto push = [&](CollectiveKind kind, size_t dim, PhaseRing ring) {
    if (stream.phase_count >= kMaxPhases) throw Error("too many collective phases");
    PhasePlan& plan = stream.phases[stream.phase_count++];
    plan.kind = kind;
    plan.algorithm = is_rooted(kind) ? rooted_algorithm_ : default_algorithm_;
    if (!impls.empty()) {
      if (dim >= impls.size()) extended_lists_ |= 1U << static_cast<unsigned>(request.kind);
      const CollectiveImplementation& impl = impls[std::min(dim, impls.size() - 1)];
      plan.algorithm = impl.algorithm;
      plan.parameter = impl.parameter;
    }
    if (custom) {
      plan.algorithm = custom_algorithm_;
      plan.custom_programs = custom_programs;
    }
    if (request.kind == CollectiveKind::kAllReduce && !plan.algorithm->implements_kind(kind) &&
        plan.algorithm->all_reduce_in_split_phases) {
      plan.kind = CollectiveKind::kAllReduce;
    }
    plan.queue = static_cast<uint16_t>(dim);
    plan.input_bytes = bytes;
    plan.ring = ring;
    plan.root_position = root_position;
    bytes = RingPhase::output_bytes_for(plan.kind, bytes, ring.size);
  };
  // ASTRA-sim plans a communicator group's collectives as the whole
  // system's when the group holds every NPU (every dimension involved,
  // whatever the node's involved_dim); a smaller group gets one ring of its
  // members in a "local" dimension, and there a per-dimension list of more
  // than one native algorithm falls back to ring.
  const bool whole_system_group = request.group != nullptr && request.group->size() == network_config_.npus_count();
  if (request.group != nullptr && !whole_system_group) {
    const auto& members = *request.group;
    // (Membership was checked once in start_collective.)
    const auto it = std::find(members.begin(), members.end(), npu);
    PhaseRing ring;
    ring.size = static_cast<uint32_t>(members.size());
    ring.my_position = static_cast<uint32_t>(it - members.begin());
    ring.members = members.data();
    if (is_rooted(request.kind)) {
      root_position = 0;
      if (request.root >= 0) {
        const auto root = std::find(members.begin(), members.end(), static_cast<uint32_t>(request.root));
        if (root == members.end()) {
          throw Error(fmt::format("NPU {}: root {} of a {} is not in its communicator group", npu, request.root,
                                  collective_name(request.kind)));
        }
        root_position = static_cast<uint32_t>(root - members.begin());
      }
    }
    push(request.kind, 0, ring);
    if (impls.size() > 1 && !custom) {
      stream.phases[0].algorithm = default_algorithm_;
      stream.phases[0].parameter = -1;
    }
    return;
  }
  // One NPU has nobody to exchange with: no phase, as a dimension of one
  // NPU has none below (the collective finishes when it starts).
  // (A custom program keeps its steps: they may compute.)
  const bool one_phase_over_all = !custom && (is_rooted(request.kind) || (!impls.empty() && impls[0].flattened));
  if (one_phase_over_all && network_config_.npus_count() == 1) return;
  // Rooted collectives run as one tree over all NPUs.
  if (is_rooted(request.kind)) {
    PhaseRing ring;
    ring.size = static_cast<uint32_t>(network_config_.npus_count());
    ring.my_position = npu;
    if (request.root >= 0 && static_cast<uint64_t>(request.root) >= network_config_.npus_count()) {
      throw Error(fmt::format("NPU {}: root {} of a {} is not one of the {} NPUs", npu, request.root,
                              collective_name(request.kind), network_config_.npus_count()));
    }
    root_position = request.root >= 0 ? static_cast<uint32_t>(request.root) : 0;
    push(request.kind, 0, ring);
    return;
  }
  // Custom programs name NPUs by rank, so they run as one phase over all
  // NPUs; the flattened one* variants do the same with a native algorithm.
  if (custom || (!impls.empty() && impls[0].flattened)) {
    PhaseRing ring;
    ring.size = static_cast<uint32_t>(network_config_.npus_count());
    ring.my_position = npu;
    push(request.kind, 0, ring);
    return;
  }
  auto ring_of = [&](size_t dim) {
    PhaseRing ring;
    ring.size = layout_.size(dim);
    ring.my_position = layout_.coordinate(npu, dim);
    ring.stride = layout_.stride(dim);
    ring.base = static_cast<NpuId>(npu - ring.my_position * ring.stride);
    return ring;
  };
  auto active = [&](size_t dim) {
    return layout_.size(dim) > 1 &&
           (whole_system_group || request.involved_dimensions.empty() ||
            (dim < request.involved_dimensions.size() && request.involved_dimensions[dim]));
  };
  std::vector<size_t> order(dims);
  std::iota(order.begin(), order.end(), size_t{0});
  if (request.kind == CollectiveKind::kAllGather) std::reverse(order.begin(), order.end());
  if (request.kind != CollectiveKind::kAllReduce ||
      system_.collective_optimization == CollectiveOptimization::kBaseline) {
    for (size_t dim : order) {
      if (active(dim)) push(request.kind, dim, ring_of(dim));
    }
    return;
  }
  // localBWAware all-reduce: reduce-scatter up the dimensions, all-reduce
  // in the last one, all-gather back down.
  size_t last_active = 0;
  for (size_t d = 0; d < dims; ++d) {
    if (active(d)) last_active = d;
  }
  for (size_t d = 0; d < last_active; ++d) {
    if (active(d)) push(CollectiveKind::kReduceScatter, d, ring_of(d));
  }
  if (active(last_active)) push(CollectiveKind::kAllReduce, last_active, ring_of(last_active));
  for (size_t d = last_active; d-- > 0;) {
    if (active(d)) push(CollectiveKind::kAllGather, d, ring_of(d));
  }
}

void CollectiveEngine::start_collective(const CollectiveRequest& request) {
  const CustomPrograms* custom_programs = nullptr;
  if (custom_ != nullptr) {
    custom_programs = custom_->find(request.kind, request.chakra_id);
    if (custom_->by_node.contains(request.chakra_id)) per_node_custom_run_.insert(request.chakra_id);
  }
  const auto splits = static_cast<uint64_t>(system_.preferred_dataset_splits);
  uint64_t size = request.bytes;
  uint64_t chunk = size / splits;
  // Keep chunks divisible down to single messages (ASTRA-sim's rule).
  const uint64_t total_nodes = network_config_.npus_count();
  // (All-gather, gather and scatter sizes are one rank's block: exempt.)
  const bool per_rank_block = request.kind == CollectiveKind::kAllGather || request.kind == CollectiveKind::kGather ||
                              request.kind == CollectiveKind::kScatter;
  if (custom_programs != nullptr) {
    // One stream runs the program once, whatever the size (its messages
    // carry their own) and preferred-dataset-splits (ASTRA-sim since its
    // collective lookup of November 2025).
    size = chunk = std::max<uint64_t>(size, 1);
  } else if (!per_rank_block && total_nodes > chunk) {
    chunk = total_nodes;
    size = splits * chunk;
  }
  if (chunk == 0) throw Error(fmt::format("NPU {}: collective of {} bytes is empty", request.npu, request.bytes));
  if (request.group != nullptr) {
    const auto& members = *request.group;
    if (std::find(members.begin(), members.end(), request.npu) == members.end()) {
      throw Error(fmt::format("NPU {} runs a collective on a communicator group it is not in", request.npu));
    }
    // A group of one moves nothing: the collective finishes when it starts,
    // and takes no stream tag (the NPU's next collectives keep theirs).
    if (members.size() == 1) {
      client_.communication_finished(request.npu, request.node_index);
      return;
    }
  }
  for (const auto& impl : implementations(request.kind)) {
    if (custom_programs != nullptr) break;  // the native list is not used
    if (!impl.algorithm->implements_kind(request.kind)) {
      std::vector<std::string> implemented;
      for (const CollectiveKind kind : impl.algorithm->implements) implemented.push_back(dashed_name(kind));
      throw Error(fmt::format("collective {}: {} does not implement {} (it implements {})",
                              collective_name(request.kind), impl.algorithm->name, dashed_name(request.kind),
                              fmt::join(implemented, ", ")));
    }
  }
  uint32_t dataset_id;
  if (!free_datasets_.empty()) {
    dataset_id = free_datasets_.back();
    free_datasets_.pop_back();
  } else {
    dataset_id = static_cast<uint32_t>(datasets_.size());
    datasets_.emplace_back();
  }
  datasets_[dataset_id] = Dataset{request.npu, 0, request.node_index};
  NpuState& state = npus_[request.npu];
  // One priority for all of a collective's chunks (ASTRA-sim's
  // get_priority, once per collective): under LIFO a newer collective goes
  // ahead of waiting older ones, but its own chunks keep their order, so
  // NPUs that issue it at different times still run its chunks alike.
  const int64_t priority =
      system_.scheduling_policy == SchedulingPolicy::kLifo ? state.priority_counter++ : state.priority_counter--;
  while (size > 0) {
    size = chunk > size ? 0 : size - chunk;
    const uint32_t id = allocate_stream();
    Stream& stream = streams_[id];
    stream.npu = request.npu;
    stream.dataset = dataset_id;
    if (request.group != nullptr && state.next_group_tag.size() <= request.group_index) {
      state.next_group_tag.resize(request.group_index + 1, 0);
    }
    const uint32_t counter =
        request.group != nullptr ? state.next_group_tag[request.group_index]++ : state.next_tag++;
    stream.tag = request.group ? ((request.group_index + 1) << 24) | (counter & 0xFFFFFF) : counter;
    stream.priority = priority;
    stream.phases[0].input_bytes = chunk;
    fill_phase_rings(stream, request, custom_programs);
    count_planned_phases(request.npu, stream);
    if (stream.phase_count == 0) {
      free_streams_.push_back(id);
      break;
    }
    ++datasets_[dataset_id].streams_left;
    ++live_streams_;
    ++streams_run_;
    stream.current_phase = 0;
    stream.queue = -1;
    enter_next_phase(id);
  }
  if (datasets_[dataset_id].streams_left == 0) {
    free_datasets_.push_back(dataset_id);
    client_.communication_finished(request.npu, request.node_index);
  }
}

void CollectiveEngine::insert_by_priority(std::vector<uint32_t>& queue, uint32_t stream_id) {
  const int64_t priority = streams_[stream_id].priority;
  auto it = queue.begin();
  while (it != queue.end() && (streams_[*it].initialized || streams_[*it].priority >= priority)) ++it;
  queue.insert(it, stream_id);
}

void CollectiveEngine::init_waiting_streams(NpuId npu, uint16_t queue) {
  NpuState& state = npus_[npu];
  auto& list = state.queue_streams[queue];
  const auto limit = static_cast<uint32_t>(system_.active_chunks_per_dimension);
  while (state.running[queue] < limit && state.running[queue] < list.size()) {
    const uint32_t id = list[state.running[queue]];
    ++state.running[queue];
    init_stream(id);
  }
}

void CollectiveEngine::init_stream(uint32_t stream_id) {
  Stream& stream = streams_[stream_id];
  stream.initialized = true;
  if (auto* plugin = std::get_if<PluginPhase>(&stream.phase)) {
    (*plugin)->start(stream_id, *this);
    return;
  }
  std::visit(
      [&](auto& phase) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(phase)>, PluginPhase>) phase.start(stream_id, *this);
      },
      stream.phase);
}

Phase CollectiveEngine::make_phase(NpuId npu, const PhasePlan& plan) {
  AlgorithmRun* run = plan.algorithm->index < runs_.size() ? runs_[plan.algorithm->index].get() : nullptr;
  return plan.algorithm->create(PhaseContext{plan, npu, run});
}

void CollectiveEngine::count_planned_phases(NpuId npu, Stream& stream) {
  std::vector<uint32_t>& planned = npus_[npu].phases_planned;
  for (uint32_t i = 0; i < stream.phase_count; ++i) {
    PhasePlan& plan = stream.phases[i];
    const size_t slot = static_cast<size_t>(plan.algorithm->index) * layout_.dims() + plan.queue;
    if (planned.size() <= slot) planned.resize(slot + 1, 0);
    plan.earlier_in_queue = planned[slot]++;
  }
}

// Moves a stream into its next phase's queue (ASTRA-sim's
// proceed_to_next_vnet_baseline), or retires it after the last phase.
void CollectiveEngine::enter_next_phase(uint32_t stream_id) {
  Stream& stream = streams_[stream_id];
  const NpuId npu = stream.npu;
  NpuState& state = npus_[npu];
  const int16_t previous_queue = stream.queue;
  const bool finished = stream.current_phase >= stream.phase_count;
  if (finished) {
    Dataset& dataset = datasets_[stream.dataset];
    if (--dataset.streams_left == 0) {
      free_datasets_.push_back(stream.dataset);
      client_.communication_finished(dataset.npu, dataset.node_index);
    }
  }
  Stream& s = streams_[stream_id];  // the client may have grown streams_
  if (previous_queue >= 0) {
    auto& list = state.queue_streams[static_cast<size_t>(previous_queue)];
    list.erase(std::find(list.begin(), list.end(), stream_id));
  }
  if (finished) {
    free_streams_.push_back(stream_id);
    --live_streams_;
    if (previous_queue >= 0) {
      --state.running[static_cast<size_t>(previous_queue)];
      init_waiting_streams(npu, static_cast<uint16_t>(previous_queue));
    }
    return;
  }
  const PhasePlan& plan = s.phases[s.current_phase++];
  s.queue = static_cast<int16_t>(plan.queue);
  s.initialized = false;
  s.endpoint_delay_ns = plan.ring.members != nullptr && plan.algorithm->fixed_endpoint_in_group_ring
                            ? kGroupRingEndpointDelayNs
                            : system_.endpoint_delay_ns;
  s.phase = make_phase(npu, plan);
  insert_by_priority(state.queue_streams[plan.queue], stream_id);
  if (previous_queue >= 0) {
    --state.running[static_cast<size_t>(previous_queue)];
    init_waiting_streams(npu, static_cast<uint16_t>(previous_queue));
  }
  init_waiting_streams(npu, plan.queue);
}

void CollectiveEngine::phase_finished(uint32_t stream) { enter_next_phase(stream); }

[[gnu::always_inline]] inline void CollectiveEngine::process_packet(uint32_t stream, bool reduce, uint64_t bytes) {
  const Stream& s = streams_[stream];
  events_.schedule_batched(events_.now() + s.endpoint_delay_ns, s.npu, handler_, PacketReady{bytes, stream, reduce});
}

[[gnu::always_inline]] inline void CollectiveEngine::send_and_post_recv(uint32_t stream_id, NpuId dst, NpuId src,
                                                                        uint64_t bytes) {
  send(stream_id, dst, bytes);
  post_recv(stream_id, src, bytes);
}

[[gnu::always_inline]] inline void CollectiveEngine::send(uint32_t stream_id, NpuId dst, uint64_t bytes) {
  Stream& stream = streams_[stream_id];
  const uint32_t slot = cached_slot(stream.send_slot, dst, stream.npu, stream.tag, bytes, dst);
  const MessageId id = allocate_message();
  messages_[id] = Message{stream.npu, dst, bytes, stream.tag, uint64_t{matcher_.generation()} << 32 | slot};
  traffic_.count(stream.npu, bytes);
  network_.send(id, stream.npu, dst, bytes, handler_);
}

[[gnu::always_inline]] inline void CollectiveEngine::post_recv(uint32_t stream_id, NpuId src, uint64_t bytes) {
  Stream& stream = streams_[stream_id];
  const uint32_t slot = cached_slot(stream.recv_slot, stream.npu, src, stream.tag, bytes, src);
  if (matcher_.post_at(slot, stream_id)) {
    events_.schedule(events_.now(), handler_, DeferredRecv{stream_id});
  }
}

void CollectiveEngine::custom_send(uint32_t stream_id, uint32_t step, NpuId dst, uint32_t tag, uint64_t bytes) {
  const Stream& stream = streams_[stream_id];
  const MessageId id = allocate_message();
  messages_[id] = Message{stream.npu, dst, bytes, kCustomTagBit | (uint64_t{stream.tag} << 24) | tag,
                          uint64_t{stream_id} << 32 | step};
  traffic_.count(stream.npu, bytes);
  network_.send(id, stream.npu, dst, bytes, handler_);
}

void CollectiveEngine::custom_recv(uint32_t stream_id, uint32_t step, NpuId src, uint32_t tag, uint64_t bytes) {
  const Stream& stream = streams_[stream_id];
  const MatchKey key{stream.npu, src, kCustomTagBit | (uint64_t{stream.tag} << 24) | tag, bytes};
  if (matcher_.post(key, uint64_t{stream_id} << 32 | step)) {
    events_.schedule(events_.now(), handler_, CustomStepDone{stream_id, step});
  }
}

void CollectiveEngine::custom_compute(uint32_t stream_id, uint32_t step, uint64_t ns) {
  events_.schedule_batched(events_.now() + ns, streams_[stream_id].npu, handler_, CustomStepDone{stream_id, step});
}

void CollectiveEngine::custom_step_done(uint32_t stream_id, uint32_t step) {
  Phase& phase = streams_[stream_id].phase;
  if (auto* custom = std::get_if<CustomPhase>(&phase)) {
    custom->on_step_done(stream_id, step, *this);
  } else if (auto* plugin = std::get_if<PluginPhase>(&phase)) {
    (*plugin)->on_step_done(stream_id, step, *this);
  } else {
    throw Error(fmt::format("stream {}: step {} done in a phase without steps", stream_id, step));
  }
}

[[gnu::always_inline]] inline void CollectiveEngine::message_arrived(MessageId message_id) {
  const Message& message = messages_[message_id];
  if ((message.tag & kCustomTagBit) != 0) {
    custom_message_arrived(message_id);
    return;
  }
  uint64_t waiter = 0;
  const bool matched = message.token >> 32 == matcher_.generation()
                           ? matcher_.arrive_at(static_cast<uint32_t>(message.token), waiter)
                           : matcher_.arrive(MatchKey{message.dst, message.src, message.tag, message.bytes}, waiter);
  free_message(message_id);
  if (matched) deliver_to_stream(static_cast<uint32_t>(waiter));
}

void CollectiveEngine::custom_message_arrived(MessageId message_id) {
  // A copy: the callbacks below may send (and grow messages_).
  const Message message = messages_[message_id];
  free_message(message_id);
  custom_step_done(static_cast<uint32_t>(message.token >> 32), static_cast<uint32_t>(message.token));
  uint64_t waiter = 0;
  if (!matcher_.arrive(MatchKey{message.dst, message.src, message.tag, message.bytes}, waiter)) return;
  custom_step_done(static_cast<uint32_t>(waiter >> 32), static_cast<uint32_t>(waiter));
}

[[gnu::always_inline]] inline void CollectiveEngine::deliver_to_stream(uint32_t stream_id) {
  Stream& stream = streams_[stream_id];
  if (auto* ring = std::get_if<RingPhase>(&stream.phase)) {  // the common one: a compare, not a jump table
    ring->on_packet_received(stream_id, *this);
    return;
  }
  switch (stream.phase.index()) {  // the ring phase (0) is taken above
    case 1: std::get<DirectPhase>(stream.phase).on_packet_received(stream_id, *this); return;
    case 2: std::get<HalvingDoublingPhase>(stream.phase).on_packet_received(stream_id, *this); return;
    case 3: std::get<DoubleBinaryTreePhase>(stream.phase).on_packet_received(stream_id, *this); return;
    case 5: std::get<PluginPhase>(stream.phase)->on_packet_received(stream_id, *this); return;
    default: throw Error(fmt::format("stream {}: a collective message reached a custom phase", stream_id));
  }
}

[[gnu::always_inline]] inline void CollectiveEngine::packet_ready(uint32_t stream_id) {
  Stream& stream = streams_[stream_id];
  if (auto* ring = std::get_if<RingPhase>(&stream.phase)) {
    ring->on_packet_ready(stream_id, *this);
    return;
  }
  switch (stream.phase.index()) {  // the ring phase (0) is taken above
    case 1: std::get<DirectPhase>(stream.phase).on_packet_ready(stream_id, *this); return;
    case 2: std::get<HalvingDoublingPhase>(stream.phase).on_packet_ready(stream_id, *this); return;
    case 3: std::get<DoubleBinaryTreePhase>(stream.phase).on_packet_ready(stream_id, *this); return;
    case 5: std::get<PluginPhase>(stream.phase)->on_packet_ready(stream_id, *this); return;
    default: throw Error(fmt::format("stream {}: endpoint event in a custom phase", stream_id));
  }
}

// flatten: everything called from here that is defined in this file is
// inlined into the handler — the hot paths, and the cold ones with them.
// The per-message actions (send, post_recv, process_packet, ...) are
// always_inline as well: a phase calls them through PhaseActions, and GCC
// devirtualizes those calls only after flatten has been applied.
[[gnu::flatten]] void CollectiveEngine::handle(const Event& first) {
  handle_one(first.kind, first.data);
  // Inside deliver_now the caller has not finished its own event yet.
  if (loop_.delivering_now()) return;
  uint8_t kind = 0;
  EventData data;
  while (events_.pop_if_for(handler_, kind, data)) handle_one(kind, data);
}

[[gnu::always_inline]] inline void CollectiveEngine::handle_one(uint8_t kind, EventData data) {
  // The three kinds of the per-message path first, most frequent first
  // (a compare each, where the switch's jump table costs more).
  if (kind == MessageArrived::kKind) {
    message_arrived(data.as<MessageArrived>().message);
    return;
  }
  if (kind == PacketReady::kKind) {
    const auto ready = data.as<PacketReady>();
    if (ready.reduce) {
      events_.schedule_batched(events_.now() + reduction_ns(ready.bytes), streams_[ready.stream].npu, handler_,
                               ReductionDone{ready.stream});
    } else {
      packet_ready(ready.stream);
    }
    return;
  }
  if (kind == ReductionDone::kKind) {
    packet_ready(data.as<ReductionDone>().stream);
    return;
  }
  switch (kind) {
    case CustomStepDone::kKind: {
      const auto done = data.as<CustomStepDone>();
      custom_step_done(done.stream, done.step);
      break;
    }
    case DeferredRecv::kKind:
      deliver_to_stream(data.as<DeferredRecv>().stream);
      break;
    default:
      throw_unknown_event(loop_.handler_name(handler_), Event{events_.now(), data, handler_, kind});
  }
}

}  // namespace snr::dsim
