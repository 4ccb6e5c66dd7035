#include "dsim/system/system_layer.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "common/error.h"

namespace snr::dsim {

SystemLayer::SystemLayer(const SystemConfig& system, const NetworkConfig& network, EventQueue& events,
                         SystemClient& client, const CustomCollectives* custom)
    : system_(system), network_config_(network), layout_(network), events_(events), client_(client),
      custom_(custom) {
  const uint64_t npus = network.npus_count();
  npus_.resize(npus);
  for (auto& npu : npus_) {
    npu.queue_streams.resize(network.dimensions.size());
    npu.running.assign(network.dimensions.size(), 0);
    npu.tree_phases.assign(network.dimensions.size(), 0);
  }
  bytes_sent_per_npu_.assign(npus, 0);
}

SystemLayer::~SystemLayer() = default;

const std::vector<CollectiveImplementation>& SystemLayer::implementations(CollectiveKind kind) const {
  switch (kind) {
    case CollectiveKind::kAllReduce: return system_.all_reduce;
    case CollectiveKind::kAllGather: return system_.all_gather;
    case CollectiveKind::kReduceScatter: return system_.reduce_scatter;
    case CollectiveKind::kAllToAll: return system_.all_to_all;
  }
  return system_.all_reduce;
}

uint64_t SystemLayer::reduction_ns(uint64_t bytes) {
  if (bytes == reduction_cached_bytes_) return reduction_cached_ns_;
  if (system_.local_mem_bw_gbps <= 0) {
    throw Error("a reduction needs local-mem-bw in the system configuration");
  }
  // One write and two reads of the message, each truncated to whole ns.
  const auto one_pass = static_cast<uint64_t>(static_cast<double>(bytes) / system_.local_mem_bw_gbps);
  reduction_cached_bytes_ = bytes;
  reduction_cached_ns_ = 3 * one_pass;
  return reduction_cached_ns_;
}

uint32_t SystemLayer::allocate_stream() {
  if (!free_streams_.empty()) {
    const uint32_t id = free_streams_.back();
    free_streams_.pop_back();
    streams_[id] = Stream{};
    return id;
  }
  streams_.emplace_back();
  return static_cast<uint32_t>(streams_.size() - 1);
}

void SystemLayer::fill_phase_rings(Stream& stream, const CollectiveRequest& request) {
  const NpuId npu = request.npu;
  const auto& impls = implementations(request.kind);
  const size_t dims = layout_.dims();
  uint64_t bytes = stream.phases[0].input_bytes;
  const bool custom = request.kind == CollectiveKind::kAllReduce && custom_ != nullptr &&
                      !custom_->all_reduce.empty();
  auto push = [&](CollectiveKind kind, size_t dim, PhaseRing ring) {
    if (stream.phase_count >= kMaxPhases) throw Error("too many collective phases");
    PhasePlan& plan = stream.phases[stream.phase_count++];
    plan.kind = kind;
    if (!impls.empty()) {
      const CollectiveImplementation& impl = impls[std::min(dim, impls.size() - 1)];
      plan.algorithm = impl.kind;
      plan.direct_window = impl.direct_window;
    }
    plan.custom = custom;
    plan.queue = static_cast<uint16_t>(dim);
    plan.input_bytes = bytes;
    plan.ring = ring;
    bytes = RingPhase::output_bytes_for(kind, bytes, ring.size);
  };
  if (request.group != nullptr) {
    const auto& members = *request.group;
    const auto it = std::find(members.begin(), members.end(), npu);
    if (it == members.end()) {
      throw Error(fmt::format("NPU {} runs a collective on a communicator group it is not in", npu));
    }
    PhaseRing ring;
    ring.size = static_cast<uint32_t>(members.size());
    ring.my_position = static_cast<uint32_t>(it - members.begin());
    ring.members = members.data();
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
           (request.involved_dimensions.empty() ||
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

void SystemLayer::start_collective(const CollectiveRequest& request) {
  const auto splits = static_cast<uint64_t>(system_.preferred_dataset_splits);
  uint64_t size = request.bytes;
  uint64_t chunk = size / splits;
  // Keep chunks divisible down to single messages (ASTRA-sim's rule).
  const uint64_t total_nodes = network_config_.npus_count();
  if (request.kind != CollectiveKind::kAllGather && total_nodes > chunk) {
    chunk = total_nodes;
    size = splits * chunk;
  }
  if (chunk == 0) throw Error(fmt::format("NPU {}: collective of {} bytes is empty", request.npu, request.bytes));
  for (const auto& impl : implementations(request.kind)) {
    if (impl.kind == AlgorithmKind::kDoubleBinaryTree && request.kind != CollectiveKind::kAllReduce) {
      throw Error(fmt::format("collective {}: doubleBinaryTree implements all-reduce only",
                              collective_name(request.kind)));
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
  std::vector<uint32_t> created;
  while (size > 0) {
    size = chunk > size ? 0 : size - chunk;
    const uint32_t id = allocate_stream();
    Stream& stream = streams_[id];
    stream.npu = request.npu;
    stream.dataset = dataset_id;
    const uint32_t counter = state.next_tag++;
    stream.tag = request.group ? ((request.group_index + 1) << 24) | (counter & 0xFFFFFF) : counter;
    stream.priority = system_.scheduling_policy == SchedulingPolicy::kLifo ? state.priority_counter++
                                                                             : state.priority_counter--;
    stream.phases[0].input_bytes = chunk;
    fill_phase_rings(stream, request);
    if (stream.phase_count == 0) {
      free_streams_.push_back(id);
      break;
    }
    ++datasets_[dataset_id].streams_left;
    ++live_streams_;
    ++totals_.streams_run;
    stream.current_phase = 0;
    stream.queue = -1;
    enter_next_phase(id);
  }
  if (datasets_[dataset_id].streams_left == 0) {
    free_datasets_.push_back(dataset_id);
    client_.communication_finished(request.npu, request.node_index);
  }
}

void SystemLayer::insert_by_priority(std::vector<uint32_t>& queue, uint32_t stream_id) {
  const int64_t priority = streams_[stream_id].priority;
  auto it = queue.begin();
  while (it != queue.end() && (streams_[*it].initialized || streams_[*it].priority >= priority)) ++it;
  queue.insert(it, stream_id);
}

void SystemLayer::init_waiting_streams(NpuId npu, uint16_t queue) {
  NpuState& state = npus_[npu];
  auto& list = state.queue_streams[queue];
  const auto limit = static_cast<uint32_t>(system_.active_chunks_per_dimension);
  while (state.running[queue] < limit && state.running[queue] < list.size()) {
    const uint32_t id = list[state.running[queue]];
    ++state.running[queue];
    init_stream(id);
  }
}

void SystemLayer::init_stream(uint32_t stream_id) {
  Stream& stream = streams_[stream_id];
  stream.initialized = true;
  std::visit([&](auto& phase) { phase.start(stream_id, *this); }, stream.phase);
}

SystemLayer::Phase SystemLayer::make_phase(NpuId npu, const PhasePlan& plan) {
  if (plan.custom) {
    if (plan.ring.my_position >= custom_->all_reduce.size()) {
      throw Error(fmt::format("custom all-reduce has {} rank programs, rank position {} needs one",
                              custom_->all_reduce.size(), plan.ring.my_position));
    }
    return CustomPhase(plan, custom_->all_reduce[plan.ring.my_position]);
  }
  switch (plan.algorithm) {
    case AlgorithmKind::kRing: return RingPhase(plan);
    case AlgorithmKind::kDirect: return DirectPhase(plan, plan.direct_window);
    case AlgorithmKind::kHalvingDoubling: return HalvingDoublingPhase(plan);
    case AlgorithmKind::kDoubleBinaryTree: {
      // ASTRA-sim hands out its two trees alternately, per NPU and dimension.
      const uint32_t begun = npus_[npu].tree_phases[plan.queue]++;
      return DoubleBinaryTreePhase(plan, begun % 2 == 1);
    }
  }
  throw Error("unknown collective algorithm");
}

// Moves a stream into its next phase's queue (ASTRA-sim's
// proceed_to_next_vnet_baseline), or retires it after the last phase.
void SystemLayer::enter_next_phase(uint32_t stream_id) {
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
  s.phase = make_phase(npu, plan);
  insert_by_priority(state.queue_streams[plan.queue], stream_id);
  if (previous_queue >= 0) {
    --state.running[static_cast<size_t>(previous_queue)];
    init_waiting_streams(npu, static_cast<uint16_t>(previous_queue));
  }
  init_waiting_streams(npu, plan.queue);
}

void SystemLayer::phase_finished(uint32_t stream) { enter_next_phase(stream); }

void SystemLayer::process_packet(uint32_t stream, bool reduce, uint64_t bytes) {
  events_.schedule(events_.now() + system_.endpoint_delay_ns, EventKind::kBundleReady, stream,
                   (bytes << 1) | (reduce ? 1 : 0));
}

void SystemLayer::send_and_post_recv(uint32_t stream_id, NpuId dst, NpuId src, uint64_t bytes) {
  send(stream_id, dst, bytes);
  post_recv(stream_id, src, bytes);
}

void SystemLayer::send(uint32_t stream_id, NpuId dst, uint64_t bytes) {
  Stream& stream = streams_[stream_id];
  const uint32_t slot = cached_slot(stream.send_slot, MatchKey{dst, stream.npu, stream.tag, bytes}, dst);
  const MessageId id = allocate_message();
  messages_[id] = Message{stream.npu, dst, bytes, stream.tag, uint64_t{matcher_.generation()} << 32 | slot};
  bytes_sent_per_npu_[stream.npu] += bytes;
  ++totals_.messages_sent;
  totals_.bytes_sent += bytes;
  network_->send(id, stream.npu, dst, bytes);
}

void SystemLayer::post_recv(uint32_t stream_id, NpuId src, uint64_t bytes) {
  Stream& stream = streams_[stream_id];
  const uint32_t slot = cached_slot(stream.recv_slot, MatchKey{stream.npu, src, stream.tag, bytes}, src);
  if (matcher_.post_at(slot, stream_id)) {
    events_.schedule(events_.now(), EventKind::kDeferredRecv, stream_id);
  }
}

void SystemLayer::custom_send(uint32_t stream_id, uint32_t step, NpuId dst, uint32_t tag, uint64_t bytes) {
  const Stream& stream = streams_[stream_id];
  const MessageId id = allocate_message();
  messages_[id] = Message{stream.npu, dst, bytes, kCustomTagBit | (uint64_t{stream.tag} << 24) | tag,
                          uint64_t{stream_id} << 32 | step};
  bytes_sent_per_npu_[stream.npu] += bytes;
  ++totals_.messages_sent;
  totals_.bytes_sent += bytes;
  network_->send(id, stream.npu, dst, bytes);
}

void SystemLayer::custom_recv(uint32_t stream_id, uint32_t step, NpuId src, uint32_t tag, uint64_t bytes) {
  const Stream& stream = streams_[stream_id];
  const MatchKey key{stream.npu, src, kCustomTagBit | (uint64_t{stream.tag} << 24) | tag, bytes};
  if (matcher_.post(key, uint64_t{stream_id} << 32 | step)) {
    events_.schedule(events_.now(), EventKind::kCustomStepDone, stream_id, step);
  }
}

void SystemLayer::custom_compute(uint32_t stream_id, uint32_t step, uint64_t ns) {
  events_.schedule(events_.now() + ns, EventKind::kCustomStepDone, stream_id, step);
}

void SystemLayer::custom_step_done(uint32_t stream_id, uint32_t step) {
  auto* phase = std::get_if<CustomPhase>(&streams_[stream_id].phase);
  if (phase == nullptr) throw Error(fmt::format("stream {}: custom step {} done outside a custom phase", stream_id, step));
  phase->on_step_done(stream_id, step, *this);
}

void SystemLayer::send_p2p(NpuId npu, NpuId dst, int64_t tag, uint64_t bytes, uint64_t node_index) {
  const MessageId id = allocate_message();
  messages_[id] = Message{npu, dst, bytes, kP2pTagBit | static_cast<uint64_t>(tag), node_index};
  bytes_sent_per_npu_[npu] += bytes;
  ++totals_.messages_sent;
  totals_.bytes_sent += bytes;
  network_->send(id, npu, dst, bytes);
}

void SystemLayer::recv_p2p(NpuId npu, NpuId src, int64_t tag, uint64_t bytes, uint64_t node_index) {
  if (matcher_.post(MatchKey{npu, src, kP2pTagBit | static_cast<uint64_t>(tag), bytes}, node_index)) {
    events_.schedule(events_.now(), EventKind::kNodeReady, npu, node_index);
  }
}

void SystemLayer::message_arrived(MessageId message_id) {
  const Message& message = messages_[message_id];
  if ((message.tag & (kP2pTagBit | kCustomTagBit)) != 0) {
    tagged_message_arrived(message_id);
    return;
  }
  uint64_t waiter = 0;
  const bool matched = message.token >> 32 == matcher_.generation()
                           ? matcher_.arrive_at(static_cast<uint32_t>(message.token), waiter)
                           : matcher_.arrive(MatchKey{message.dst, message.src, message.tag, message.bytes}, waiter);
  free_message(message_id);
  if (matched) deliver_to_stream(static_cast<uint32_t>(waiter));
}

void SystemLayer::tagged_message_arrived(MessageId message_id) {
  // A copy: the callbacks below may send (and grow messages_).
  const Message message = messages_[message_id];
  free_message(message_id);
  const bool p2p = (message.tag & kP2pTagBit) != 0;
  if (p2p) {
    client_.communication_finished(message.src, message.token);
  } else {
    custom_step_done(static_cast<uint32_t>(message.token >> 32), static_cast<uint32_t>(message.token));
  }
  uint64_t waiter = 0;
  if (!matcher_.arrive(MatchKey{message.dst, message.src, message.tag, message.bytes}, waiter)) return;
  if (p2p) {
    client_.communication_finished(message.dst, waiter);
  } else {
    custom_step_done(static_cast<uint32_t>(waiter >> 32), static_cast<uint32_t>(waiter));
  }
}

void SystemLayer::deliver_to_stream(uint32_t stream_id) {
  Stream& stream = streams_[stream_id];
  switch (stream.phase.index()) {
    case 0: std::get<RingPhase>(stream.phase).on_packet_received(stream_id, *this); return;
    case 1: std::get<DirectPhase>(stream.phase).on_packet_received(stream_id, *this); return;
    case 2: std::get<HalvingDoublingPhase>(stream.phase).on_packet_received(stream_id, *this); return;
    case 3: std::get<DoubleBinaryTreePhase>(stream.phase).on_packet_received(stream_id, *this); return;
    default: throw Error(fmt::format("stream {}: a collective message reached a custom phase", stream_id));
  }
}

void SystemLayer::packet_ready(uint32_t stream_id) {
  Stream& stream = streams_[stream_id];
  switch (stream.phase.index()) {
    case 0: std::get<RingPhase>(stream.phase).on_packet_ready(stream_id, *this); return;
    case 1: std::get<DirectPhase>(stream.phase).on_packet_ready(stream_id, *this); return;
    case 2: std::get<HalvingDoublingPhase>(stream.phase).on_packet_ready(stream_id, *this); return;
    case 3: std::get<DoubleBinaryTreePhase>(stream.phase).on_packet_ready(stream_id, *this); return;
    default: throw Error(fmt::format("stream {}: endpoint event in a custom phase", stream_id));
  }
}

// flatten: everything called from here that is defined in this file is
// inlined into the loop — the hot handlers, and the cold ones with them.
[[gnu::flatten]] void SystemLayer::run() {
  while (!events_.empty()) {
    handle(events_.pop());
  }
}

void SystemLayer::handle(const Event& event) {
  switch (event.kind) {
    case EventKind::kBundleReady: {
      const bool reduce = (event.b & 1) != 0;
      if (reduce) {
        events_.schedule(events_.now() + reduction_ns(event.b >> 1), EventKind::kReductionDone, event.a);
      } else {
        packet_ready(event.a);
      }
      break;
    }
    case EventKind::kReductionDone:
      packet_ready(event.a);
      break;
    case EventKind::kCustomStepDone:
      custom_step_done(event.a, static_cast<uint32_t>(event.b));
      break;
    case EventKind::kDeferredRecv:
      deliver_to_stream(event.a);
      break;
    case EventKind::kMessageArrived:
      message_arrived(event.a);
      break;
    case EventKind::kNetworkHop:
      network_->handle_event(event.a);
      break;
    case EventKind::kComputeDone:
    case EventKind::kNodeReady: {
      // A copy, so that the hot path's event can live in registers.
      const Event copy{event.time_ns, event.b, event.a, event.kind};
      client_.handle(copy);
      break;
    }
    default:
      throw Error(fmt::format("system layer: unexpected event kind {}", static_cast<int>(event.kind)));
  }
}

}  // namespace snr::dsim
