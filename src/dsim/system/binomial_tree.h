// Binomial-tree algorithm for the rooted collectives (the textbook trees of
// MPICH's broadcast, reduce, gather and scatter), one phase over a ring of
// `n` NPUs with the root at ring position r. Ranks are relative to the
// root, v = (position - r) mod n; v's parent is v with its lowest set bit
// cleared, its children are v + 2^k for every 2^k below that bit (below n
// for the root), and its subtree holds min(lowbit(v), n - v) ranks.
//
//  - broadcast (N bytes): the root sends N to each child, largest subtree
//    first; a rank forwards N to its children once it has received it.
//  - scatter (N = one rank's block): as broadcast, but each child gets its
//    subtree's blocks (subtree size x N).
//  - reduce (N bytes): a rank reduces each child's N into its own and sends
//    N to its parent once every child's has been reduced.
//  - gather (N = one rank's block): as reduce without the reduction; a rank
//    sends its subtree's blocks to its parent.
//
// Packet life cycle as in the ring (dsim/system/collective.h): the local
// data passes the endpoint at start (up the tree; down the tree at the root
// only), each received message passes the endpoint (plus the local
// reduction for reduce) before it is sent on. A rank's phase ends when it
// has sent everything it sends (a leaf of a downward tree: when its data
// passed the endpoint). ASTRA-sim has no native algorithm for these
// collectives (it replays a BROADCAST node's recorded duration).
#pragma once

#include <cstdint>
#include <vector>

#include "dsim/system/algorithm_registry.h"

namespace snr::dsim {

class BinomialTreePhase final : public CollectivePhase {
 public:
  explicit BinomialTreePhase(const PhasePlan& plan);

  void start(uint32_t stream, PhaseActions& actions) override;
  void on_packet_ready(uint32_t stream, PhaseActions& actions) override;
  void on_packet_received(uint32_t stream, PhaseActions& actions) override;
  void on_step_done(uint32_t stream, uint32_t step, PhaseActions& actions) override;

  // Tree shape, for tests: relative rank -> parent (-1 for the root),
  // children in send order (largest subtree first), subtree size.
  static int64_t parent_of(uint32_t v);
  static std::vector<uint32_t> children_of(uint32_t v, uint32_t n);
  static uint32_t subtree_size(uint32_t v, uint32_t n);

 private:
  [[nodiscard]] NpuId npu_at(uint32_t v) const;
  [[nodiscard]] bool downward() const;
  // Bytes of the message between tree node v and its parent: v's whole
  // subtree for gather and scatter, one block otherwise.
  [[nodiscard]] uint64_t message_bytes(uint32_t v) const;
  void finish_up(uint32_t stream, PhaseActions& actions);

  CollectiveKind kind_;
  PhaseRing ring_;
  uint32_t root_position_ = 0;
  uint32_t v_ = 0;  // this NPU's rank relative to the root
  uint64_t block_bytes_ = 0;
  std::vector<uint32_t> children_;
  uint32_t ready_ = 0;     // packets through the endpoint (and reduction)
  bool finished_ = false;
};

}  // namespace snr::dsim
