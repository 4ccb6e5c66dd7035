#include "dsim/system/direct.h"

#include <algorithm>

#include "dsim/system/algorithm_registry.h"

namespace snr::dsim {

DirectPhase::DirectPhase(const PhasePlan& plan, int window) : kind_(plan.kind), ring_(plan.ring) {
  const uint32_t n = ring_.size;
  window_ = window < 0 ? n - 1 : std::min(static_cast<uint32_t>(window), n - 1);
  middle_point_ = n - 1;
  steps_left_ = kind_ == CollectiveKind::kAllReduce ? 2 * (n - 1) : n - 1;
  message_bytes_ = kind_ == CollectiveKind::kAllGather ? plan.input_bytes : plan.input_bytes / n;
  // ASTRA-sim runs a communicator group's collectives on a ring topology of
  // the members in its "local" dimension, where direct counts (N-1) network
  // packets per local one and round; the network's own dimensions count
  // one. (An all-reduce of 1 MiB on a 4-NPU group of 8 then reduces once
  // more per chunk: 15,608 ns in ASTRA-sim, as here.)
  network_packets_ = ring_.members != nullptr ? (n - 1) * window_ : window_;
}

void DirectPhase::start(uint32_t stream, PhaseActions& actions) {
  for (uint32_t i = 0; i < window_; ++i) insert_packet(stream, actions);
}

void DirectPhase::insert_packet(uint32_t stream, PhaseActions& actions) {
  ++packets_inserted_;
  const bool reduce = rounds_.next_reduces(kind_, window_, network_packets_);
  actions.process_packet(stream, reduce, message_bytes_);
}

void DirectPhase::try_send(uint32_t stream, PhaseActions& actions) {
  if (packets_inserted_ == packets_sent_ || steps_left_ == 0 || free_packets_ == 0) return;
  const uint32_t n = ring_.size;
  const auto offset = static_cast<uint32_t>(packets_sent_ % (n - 1)) + 1;
  const NpuId dst = ring_.member((ring_.my_position + offset) % n);
  const NpuId src = ring_.member((ring_.my_position + n - offset) % n);
  ++packets_sent_;
  --steps_left_;
  --free_packets_;
  actions.send_and_post_recv(stream, dst, src, message_bytes_);
}

void DirectPhase::try_finish(uint32_t stream, PhaseActions& actions) {
  if (steps_left_ != 0 || free_packets_ != window_) return;
  actions.phase_finished(stream);  // replaces this phase: touch nothing after
}

void DirectPhase::on_packet_ready(uint32_t stream, PhaseActions& actions) {
  ++free_packets_;
  if (kind_ == CollectiveKind::kAllReduce && steps_left_ <= middle_point_) {
    // The all-gather half starts once every reduce-scatter message is in.
    if (packets_received_ < middle_point_) return;
    for (uint32_t i = 0; i < window_; ++i) try_send(stream, actions);
  } else {
    try_send(stream, actions);
  }
  try_finish(stream, actions);
}

void DirectPhase::on_packet_received(uint32_t stream, PhaseActions& actions) {
  ++packets_received_;
  insert_packet(stream, actions);
}

CollectiveAlgorithmSpec direct_algorithm_spec() {
  CollectiveAlgorithmSpec spec;
  spec.name = "direct";
  spec.aliases = {"Direct"};
  spec.summary = "every NPU to every other one directly; directN keeps N packets in flight";
  spec.flattenable = true;
  spec.fixed_endpoint_in_group_ring = true;
  spec.numeric_suffix = true;
  spec.implements = {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                     CollectiveKind::kAllToAll};
  spec.create = [](const PhaseContext& context) -> Phase {
    return DirectPhase(context.plan, context.plan.parameter);
  };
  return spec;
}

}  // namespace snr::dsim
