// Vocabulary of the system layer: collective kinds, one phase of a chunk's
// journey, and the actions an algorithm asks of the layer. Each algorithm
// (one per file) is a state machine driven by three inputs — stream start,
// a packet ready after the endpoint (and reduction) delay, and a packet
// received — and answers with the actions below.
#pragma once

#include <cstdint>
#include <vector>

#include "dsim/config/system_config.h"
#include "dsim/core/event_queue.h"

namespace snr::dsim {

enum class CollectiveKind : uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  // Rooted collectives (one phase over all NPUs or the group; binomial_tree.h).
  kBroadcast,
  kReduce,
  kGather,
  kScatter,
};

// True for the collectives with a root (broadcast, reduce, gather, scatter).
constexpr bool is_rooted(CollectiveKind kind) {
  return kind == CollectiveKind::kBroadcast || kind == CollectiveKind::kReduce || kind == CollectiveKind::kGather ||
         kind == CollectiveKind::kScatter;
}

const char* collective_name(CollectiveKind kind);

// The peers of one phase: a ring of `size` NPUs; member(i) gives the NPU at
// ring position i. Dimension rings are arithmetic (base + i * stride);
// communicator groups list their members.
struct PhaseRing {
  uint32_t size = 0;
  uint32_t my_position = 0;
  NpuId base = 0;
  uint64_t stride = 1;
  const uint32_t* members = nullptr;  // communicator group, or nullptr
  [[nodiscard]] NpuId member(uint32_t position) const {
    return members ? members[position] : static_cast<NpuId>(base + position * stride);
  }
};

// ASTRA-sim's per-phase packet accounting, the same in ring, direct and
// halving-doubling: every round starts with `local_packets` packets that
// need no reduction, followed by `network_packets` ones; an all-reduce
// alternates reducing (reduce-scatter) and plain (all-gather) rounds.
struct PacketRounds {
  uint32_t local_left = 0;
  uint32_t network_left = 0;
  bool reducing_round = false;
  bool round_reduces = false;  // the current round's network packets are reduced

  // Accounts one inserted packet; true when it is reduced on arrival.
  // `kind` is the phase's own (the same on every call): whether a round
  // reduces is decided once, when it starts.
  bool next_reduces(CollectiveKind kind, uint32_t local_packets, uint32_t network_packets) {
    if (local_left == 0 && network_left == 0) {
      local_left = local_packets;
      network_left = network_packets;
      reducing_round = !reducing_round;
      round_reduces =
          kind == CollectiveKind::kReduceScatter || (kind == CollectiveKind::kAllReduce && reducing_round);
    }
    if (local_left > 0) {
      --local_left;
      return false;
    }
    --network_left;
    return round_reduces;
  }
};

struct CustomProgram;  // custom_collective.h

struct PhasePlan {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  const CollectiveAlgorithmSpec* algorithm = nullptr;  // system/algorithm_registry.h
  int parameter = -1;  // the number after the algorithm's name (direct8: window 8), -1 = none
  uint16_t queue = 0;
  uint64_t input_bytes = 0;
  PhaseRing ring;
  uint32_t root_position = 0;  // rooted collectives: the root's position in `ring`
  // The custom algorithm's programs by rank position (custom_collective.h),
  // when a custom key names this collective.
  const std::vector<CustomProgram>* custom_programs = nullptr;
  // This NPU's phases of the same algorithm in the same queue planned
  // before this one, counted as streams are created (ASTRA-sim's double
  // binary tree alternates its two trees by it: its topology hands them
  // out at creation, not as a stream reaches the phase).
  uint32_t earlier_in_queue = 0;
};

class PhaseActions {
 public:
  virtual ~PhaseActions() = default;
  // Sends `bytes` to `dst` and posts the matching receive from `src`.
  virtual void send_and_post_recv(uint32_t stream, NpuId dst, NpuId src, uint64_t bytes) = 0;
  // The two halves on their own (tree algorithms send and receive apart).
  virtual void send(uint32_t stream, NpuId dst, uint64_t bytes) = 0;
  virtual void post_recv(uint32_t stream, NpuId src, uint64_t bytes) = 0;
  // A packet goes through the endpoint (ASTRA-sim's MemBus: endpoint-delay),
  // plus a local reduction when `reduce` (one write and two reads of
  // `bytes`); then the algorithm's on_packet_ready runs.
  virtual void process_packet(uint32_t stream, bool reduce, uint64_t bytes) = 0;
  virtual void phase_finished(uint32_t stream) = 0;

  // Custom collectives: each call completes later through the phase's
  // on_step_done(stream, step). A send is done when its message arrives, a
  // receive when a matching message has arrived, a compute after `ns`.
  virtual void custom_send(uint32_t stream, uint32_t step, NpuId dst, uint32_t tag, uint64_t bytes) = 0;
  virtual void custom_recv(uint32_t stream, uint32_t step, NpuId src, uint32_t tag, uint64_t bytes) = 0;
  virtual void custom_compute(uint32_t stream, uint32_t step, uint64_t ns) = 0;
};

}  // namespace snr::dsim
