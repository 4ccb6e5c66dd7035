#include "dsim/system/halving_doubling.h"

#include <fmt/format.h>

#include "common/error.h"
#include "dsim/system/algorithm_registry.h"

namespace snr::dsim {

HalvingDoublingPhase::HalvingDoublingPhase(const PhasePlan& plan) : kind_(plan.kind), ring_(plan.ring) {
  const uint32_t n = ring_.size;
  if (n < 2 || (n & (n - 1)) != 0) {
    throw Error(fmt::format("halvingDoubling needs a power-of-two number of NPUs per phase, got {}", n));
  }
  while ((uint32_t{1} << log2_size_) < n) ++log2_size_;
  switch (kind_) {
    case CollectiveKind::kAllReduce:
      steps_left_ = 2 * log2_size_;
      message_bytes_ = plan.input_bytes / 2;
      distance_ = 1;
      distance_factor_ = 2.0;
      break;
    case CollectiveKind::kReduceScatter:
      steps_left_ = log2_size_;
      message_bytes_ = plan.input_bytes / 2;
      distance_ = 1;
      distance_factor_ = 2.0;
      break;
    case CollectiveKind::kAllGather:
      steps_left_ = log2_size_;
      message_bytes_ = plan.input_bytes;
      distance_ = n / 2;
      distance_factor_ = 0.5;
      break;
    case CollectiveKind::kAllToAll:
      throw Error("halvingDoubling does not implement all-to-all (use ring or direct)");
    default:
      throw Error(fmt::format("halvingDoubling does not implement {}", collective_name(kind_)));
  }
  advance_distance();
}

// Recomputes the partner for the current distance (ASTRA-sim walks
// `distance` steps clockwise when position / distance is even).
void HalvingDoublingPhase::advance_distance() {
  const uint32_t n = ring_.size;
  const auto d = static_cast<uint32_t>(distance_ % n);
  const uint32_t pos = ring_.my_position;
  const bool clockwise = distance_ == 0 || ((pos / static_cast<uint32_t>(distance_)) % 2) == 0;
  peer_ = ring_.member(clockwise ? (pos + d) % n : (pos + n - d) % n);
}

void HalvingDoublingPhase::start(uint32_t stream, PhaseActions& actions) { insert_packet(stream, actions); }

void HalvingDoublingPhase::insert_packet(uint32_t stream, PhaseActions& actions) {
  if (queue_size_ == queue_.size()) throw Error("halvingDoubling: packet queue overflow (internal error)");
  queue_[(queue_head_ + queue_size_) % queue_.size()] = Packet{peer_, message_bytes_};
  ++queue_size_;
  const bool reduce = rounds_.next_reduces(kind_, 1, log2_size_ - 1);
  const uint64_t bytes = message_bytes_;
  // Next partner and size (integer distance, truncated sizes, as ASTRA-sim).
  distance_ = static_cast<int64_t>(static_cast<double>(distance_) * distance_factor_);
  message_bytes_ = static_cast<uint64_t>(static_cast<double>(message_bytes_) / distance_factor_);
  if (distance_ == static_cast<int64_t>(ring_.size) && kind_ == CollectiveKind::kAllReduce) {
    distance_factor_ = 0.5;  // turn around: all-gather back down
    distance_ = static_cast<int64_t>(static_cast<double>(distance_) * distance_factor_);
    message_bytes_ = static_cast<uint64_t>(static_cast<double>(message_bytes_) / distance_factor_);
  }
  advance_distance();
  actions.process_packet(stream, reduce, bytes);
}

void HalvingDoublingPhase::on_packet_ready(uint32_t stream, PhaseActions& actions) {
  ++free_packets_;
  if (queue_size_ > 0 && steps_left_ > 0 && free_packets_ > 0) {
    const Packet packet = queue_[queue_head_];
    queue_head_ = static_cast<uint8_t>((queue_head_ + 1) % queue_.size());
    --queue_size_;
    --steps_left_;
    --free_packets_;
    actions.send_and_post_recv(stream, packet.peer, packet.peer, packet.bytes);
  }
  if (steps_left_ == 0 && free_packets_ == 1) actions.phase_finished(stream);
}

void HalvingDoublingPhase::on_packet_received(uint32_t stream, PhaseActions& actions) {
  insert_packet(stream, actions);
}

CollectiveAlgorithmSpec halving_doubling_algorithm_spec() {
  CollectiveAlgorithmSpec spec;
  spec.name = "halvingDoubling";
  spec.aliases = {"HalvingDoubling"};
  spec.summary = "partner = position XOR distance, power-of-two phases";
  spec.flattenable = true;
  spec.fixed_endpoint_in_group_ring = true;
  spec.implements = {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter};
  spec.create = [](const PhaseContext& context) -> Phase { return HalvingDoublingPhase(context.plan); };
  return spec;
}

}  // namespace snr::dsim
