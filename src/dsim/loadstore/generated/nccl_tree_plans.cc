// NCCL's tree all-reduce inside one node. NCCL builds two binary trees over
// the nodes (the "double binary tree") and, inside a node, chains the GPUs
// in ring order; with one node only the chain is left: GPU 0 is the root,
// GPU N-1 the leaf, and GPU p's parent is p-1.
//
// - Reduce (up the chain): the leaf sends its input; every other GPU adds
//   what its child sent to its own input and sends the sum to its parent
//   (recvReduceSend); the root's sum is the result: it writes it to its
//   output and starts the broadcast (recvReduceCopySend).
// - Broadcast (down the chain): every GPU copies what its parent sent into
//   its output and forwards it (recvCopySend); the leaf only copies it out.
// - Pipeline. A channel's data (slice w of every chunk) moves in pieces,
//   one per chunk, each cut again into `slices_per_step` pieces (default
//   1), so the reduction and the broadcast of different pieces overlap.
//   NCCL splits a channel's threads between the two directions on the GPUs
//   that have both; here every GPU runs each direction on its own workgroup
//   (2w: up, 2w+1: down), so a channel takes two SMs.
// - Protocols and receive buffers as in NCCL's ring (nccl_ring_plans.cc):
//   every piece has its own slot in the receiver's scratch; Simple signals
//   each piece after a fence, LL and LL128 carry flags in the data.
#include <algorithm>
#include <vector>

#include "dsim/loadstore/generated/plan_builder.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::loadstore {
namespace {

class NcclTreeChannel {
 public:
  NcclTreeChannel(PlanBuilder& b, uint32_t rank, uint32_t channel)
      : b_(b), n_(b.gpus()), me_(rank), channel_(channel), protocol_(b.options().protocol),
        pieces_(std::max<uint32_t>(1, b.options().slices_per_step)) {}

  // The up (reduce) direction, on workgroup 2w.
  void up() {
    const uint32_t wg = 2 * channel_;
    begin(wg);
    const bool leaf = me_ + 1 == n_, root = me_ == 0;
    for_each_piece([&](uint64_t k) {
      if (!leaf) wait("up");
      if (leaf) {
        b_.copy(input(k), fifo(me_ - 1, k), "send");
      } else if (!root) {
        b_.load_store({fifo(me_, k), input(k)}, {fifo(me_ - 1, k)}, true, "recvReduceSend");
      } else {
        b_.load_store({fifo(me_, k), input(k)}, {output(k), fifo(me_ + 1, n_ + k)}, true, "recvReduceCopySend");
      }
      if (!root) {
        signal(me_ - 1, wg, "up");
      } else {
        signal(me_ + 1, wg + 1, "down");
      }
    });
    b_.end_workgroup();
  }

  // The down (broadcast) direction, on workgroup 2w+1; the root has none.
  void down() {
    if (me_ == 0) return;
    const uint32_t wg = 2 * channel_ + 1;
    begin(wg);
    const bool leaf = me_ + 1 == n_;
    for_each_piece([&](uint64_t k) {
      wait("down");
      // LL and LL128 receive loops carry a chained Reduce: the per-line
      // flag check (nccl_ring_plans.cc).
      const bool unpack = protocol_ != Protocol::kSimple;
      if (leaf && !unpack) {
        b_.copy(fifo(me_, n_ + k), output(k), "recv");
      } else if (leaf) {
        b_.load_store({fifo(me_, n_ + k)}, {output(k)}, true, "recv");
      } else {
        b_.load_store({fifo(me_, n_ + k)}, {output(k), fifo(me_ + 1, n_ + k)}, unpack, "recvCopySend");
        signal(me_ + 1, wg, "down");
      }
    });
    b_.end_workgroup();
  }

 private:
  void begin(uint32_t workgroup) {
    b_.begin_workgroup(me_, workgroup);
    b_.select_slice(channel_, b_.options().workgroups);
    b_.prologue();
  }
  template <typename Fn>
  void for_each_piece(Fn&& fn) {
    for (uint64_t k = 0; k < n_; ++k) {
      for (uint32_t p = 0; p < pieces_; ++p) {
        b_.select_slice(channel_, b_.options().workgroups);
        b_.select_piece(p, pieces_);
        fn(k);
      }
    }
  }
  void wait(std::string_view purpose) {
    if (protocol_ != Protocol::kSimple) return;
    b_.await(purpose, 1);
    b_.hold("piece arrived");
  }
  void signal(uint32_t peer, uint32_t peer_workgroup, std::string_view purpose) {
    if (protocol_ != Protocol::kSimple) return;
    b_.hold("piece stored");
    b_.notify(peer, peer_workgroup, purpose, false);
  }
  // Receive slots of `gpu`: 0..N-1 what its child sends up, N..2N-1 what
  // its parent sends down.
  Region fifo(uint32_t gpu, uint64_t slot) const { return b_.protocol_slot(gpu, slot); }
  Region input(uint64_t chunk) const { return b_.chunk(me_, Space::kInput, chunk); }
  Region output(uint64_t chunk) const { return b_.chunk(me_, Space::kOutput, chunk); }

  PlanBuilder& b_;
  uint32_t n_, me_, channel_;
  Protocol protocol_;
  uint32_t pieces_;
};

class NcclTreePlanAlgorithm final : public PlanAlgorithm {
 public:
  std::string_view name() const override { return "nccl-tree"; }
  std::string_view summary() const override {
    return "NCCL's tree all-reduce inside a node: a chain, reduce up to GPU 0, broadcast down, pipelined";
  }
  std::vector<std::string_view> collectives() const override { return {kAllReduce}; }
  bool supports(Transfer transfer, Protocol) const override { return transfer == Transfer::kPut; }
  std::vector<PlanParameter> parameters() const override {
    return {{"gpus", "chain length: GPU p's parent is p-1, GPU 0 is the root"},
            {"workgroups", "channels: each a chain over slice w of every chunk, on two workgroups (up, down)"},
            {"buffer_bytes", "cut into one chunk per GPU; a chunk is a pipeline piece"},
            {"protocol", "Simple (signal per piece), LL (8-byte flags), LL128 (a flag per 128-byte line)"},
            {"slices_per_step", "pieces per chunk (default 1)"},
            {"prologue_cycles", "SM cycles before the first send (the kernel's prologue)"},
            {"threads_per_workgroup", "threads of each direction's block"}};
  }
  uint64_t bytes_per_step(const GeneratedPlanOptions& options) const override {
    return options.buffer_bytes / options.gpus;
  }

  void expand(const GeneratedPlanOptions& options, PlanBuilder& b) const override {
    const uint32_t n = options.gpus;
    b.set_scratch_bytes(2 * uint64_t{n} * b.chunk_bytes());
    for (uint32_t gpu = 0; gpu < n; ++gpu) {
      for (uint32_t w = 0; w < options.workgroups; ++w) {
        NcclTreeChannel c(b, gpu, w);
        c.up();
        c.down();
      }
    }
  }
};

}  // namespace

std::unique_ptr<PlanAlgorithm> make_nccl_tree_plan_algorithm() { return std::make_unique<NcclTreePlanAlgorithm>(); }

}  // namespace snr::dsim::loadstore
