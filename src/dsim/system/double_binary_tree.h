// Double-binary-tree all-reduce for one phase (ASTRA-sim's
// DoubleBinaryTreeAllReduce over its DoubleBinaryTreeTopology). The phase's
// N NPUs (a power of two) form a binary tree by in-order position: a perfect
// tree of N-1 positions under a root with one child. Streams alternate
// between two trees, as ASTRA-sim's topology hands them out per NPU:
// even streams use "RootMax" (root = last position, child on the left),
// odd ones "RootMin" (root = position 0, child on the right).
//
// Every message carries the whole chunk. Leaves: endpoint, send to the
// parent and wait for its answer, endpoint, done. Inner nodes: wait for
// both children (each arrival is reduced), send to the parent, wait for
// its answer (reduced), then send to both children and finish. The root
// waits for its child, reduces, and sends back down.
#pragma once

#include <cstdint>

#include "dsim/system/collective.h"

namespace snr::dsim {

class DoubleBinaryTreePhase {
 public:
  DoubleBinaryTreePhase() = default;
  // `use_min_tree`: this stream's tree (see above). Throws snr::Error when
  // N is not a power of two or the collective is not an all-reduce.
  DoubleBinaryTreePhase(const PhasePlan& plan, bool use_min_tree);

  void start(uint32_t stream, PhaseActions& actions);
  void on_packet_ready(uint32_t stream, PhaseActions& actions);
  void on_packet_received(uint32_t stream, PhaseActions& actions);

 private:
  enum class Role : uint8_t { kLeaf, kInner, kRoot };
  enum class State : uint8_t {
    kBegin, kSendingToParent, kWaitingForParent, kWaitingForTwoChildren, kWaitingForOneChild,
    kSendingToChildren, kEnd
  };
  // One step of ASTRA-sim's state machine; `received` tells a message
  // arrival from an endpoint / reduction completion.
  void step(uint32_t stream, bool received, PhaseActions& actions);

  PhaseRing ring_;
  uint64_t bytes_ = 0;
  Role role_ = Role::kLeaf;
  int64_t parent_ = -1;       // positions, -1 = none
  int64_t left_child_ = -1;
  int64_t right_child_ = -1;
  State state_ = State::kBegin;
  uint32_t reductions_ = 0;
};

}  // namespace snr::dsim
