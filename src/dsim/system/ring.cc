#include "dsim/system/ring.h"

#include "dsim/system/algorithm_registry.h"

namespace snr::dsim {

const char* collective_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return "all_reduce";
    case CollectiveKind::kAllGather: return "all_gather";
    case CollectiveKind::kReduceScatter: return "reduce_scatter";
    case CollectiveKind::kAllToAll: return "all_to_all";
    case CollectiveKind::kBroadcast: return "broadcast";
    case CollectiveKind::kReduce: return "reduce";
    case CollectiveKind::kGather: return "gather";
    case CollectiveKind::kScatter: return "scatter";
  }
  return "?";
}

uint64_t RingPhase::output_bytes_for(CollectiveKind kind, uint64_t input_bytes, uint32_t ring_size) {
  switch (kind) {
    case CollectiveKind::kAllGather: return input_bytes * ring_size;
    case CollectiveKind::kReduceScatter: return input_bytes / ring_size;
    default: return input_bytes;
  }
}

RingPhase::RingPhase(const PhasePlan& plan)
    : kind_(plan.kind), ring_size_(plan.ring.size) {
  const uint32_t n = ring_size_;
  const uint32_t pos = plan.ring.my_position;
  receiver_ = plan.ring.member((pos + 1) % n);
  sender_ = plan.ring.member((pos + n - 1) % n);
  switch (kind_) {
    case CollectiveKind::kAllReduce: steps_left_ = 2 * (n - 1); break;
    case CollectiveKind::kAllToAll: steps_left_ = (n - 1) * n / 2; break;
    default: steps_left_ = n - 1; break;
  }
  message_bytes_ = kind_ == CollectiveKind::kAllGather ? plan.input_bytes : plan.input_bytes / n;
  output_bytes_ = output_bytes_for(kind_, plan.input_bytes, n);
}

CollectiveAlgorithmSpec ring_algorithm_spec() {
  CollectiveAlgorithmSpec spec;
  spec.name = "ring";
  spec.aliases = {"Ring"};
  spec.summary = "send to the next NPU, receive from the previous one, n-1 (all-reduce 2(n-1)) steps";
  spec.flattenable = true;
  spec.fixed_endpoint_in_group_ring = true;
  spec.implements = {CollectiveKind::kAllReduce, CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                     CollectiveKind::kAllToAll};
  spec.create = [](const PhaseContext& context) -> Phase { return RingPhase(context.plan); };
  return spec;
}

}  // namespace snr::dsim
