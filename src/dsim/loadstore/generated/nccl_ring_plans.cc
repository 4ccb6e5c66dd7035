// NCCL's ring (its ring all-reduce, all-gather and reduce-scatter), as the
// library runs them inside one node:
//
// - Channels. Every channel is a ring over all GPUs (r sends to r+1) run by
//   one thread block per GPU; channel w moves slice w of every chunk, so the
//   channels share the links and run independently. A workgroup here is a
//   channel.
// - Steps. All-reduce is 2(N-1) steps: step 0 sends chunk r-1 of the input;
//   steps 1..N-2 receive a partial sum, add the own input and send it on
//   (recvReduceSend, one fused loop: two loads, one remote store per line);
//   step N-1 adds the last contribution and writes chunk r of the result to
//   the own output while sending it (recvReduceCopySend); the all-gather
//   half forwards each finished chunk (recvCopySend) and the last step only
//   copies it out. Reduce-scatter and all-gather are the two halves.
// - Receive buffers. A GPU sends into the next GPU's buffer (NCCL's FIFO),
//   never into its output; the receiver loads from there. Each step gets
//   its own scratch slot, so no slot is reused within a collective and the
//   FIFO's credits (the receiver handing a slot back) never hold a sender.
// - Protocols. Simple: each step's transfer is cut into pieces (NCCL's
//   slices, 2 per step); the sender's threads meet, a fenced signal tells
//   the receiver the piece arrived (NCCL: a fence, then the tail counter),
//   and the receiver's threads wait for it. LL: 8-byte flag beside every
//   8 bytes of data (half the bandwidth), no signal; LL128: one flag word per
//   128-byte line (120/128 of the bandwidth), no signal. The receiver's loads
//   wait for the flags, and each received line costs SM work to check and
//   strip them (a chained Reduce in every receive loop).
// - Prologue. Every workgroup first spends `prologue_cycles` on its SM.
//
// NCCL's tuning (nccl_tuning.h) picks channels, threads and the protocol.
#include <vector>

#include "dsim/loadstore/generated/plan_builder.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::loadstore {
namespace {

// NCCL's ring all-reduce, all-gather and reduce-scatter cut each chunk
// into two slices (SLICESTEPS = CHUNKSTEPS / 2).
constexpr uint32_t kSimpleSlicesPerStep = 2;

class NcclRingChannel {
 public:
  NcclRingChannel(PlanBuilder& b, uint32_t rank, uint32_t channel)
      : b_(b), n_(b.gpus()), me_(rank), channel_(channel), protocol_(b.options().protocol) {
    const uint32_t requested = b.options().slices_per_step;
    pieces_ = protocol_ == Protocol::kSimple ? (requested == 0 ? kSimpleSlicesPerStep : requested) : 1;
  }

  // One step: for every piece, wait until the received operand arrived
  // (Simple), run the loop, and tell the next GPU its piece is there.
  // `received` is the slot this step reads (none on the first step),
  // `sent` the slot it writes on the next GPU (none on the last).
  void step(const std::vector<Region>& loads, bool received, const std::vector<Region>& stores, bool sent,
            bool reduce, std::string_view name) {
    const bool simple = protocol_ == Protocol::kSimple;
    for (uint32_t p = 0; p < pieces_; ++p) {
      b_.select_slice(channel_, b_.options().workgroups);
      b_.select_piece(p, pieces_);
      if (simple && received) {
        b_.await("data", 1);
        b_.hold("data arrived");
      }
      // LL and LL128 receivers check and strip a flag on every line: their
      // receive loops carry a chained Reduce, the per-line SM work the GPU
      // model charges on the ALU (reduce_cycles_per_line).
      const bool unpack = received && !simple;
      if (loads.size() == 1 && stores.size() == 1 && !reduce && !unpack) {
        b_.copy(loads[0], stores[0], name);
      } else {
        b_.load_store(loads, stores, reduce || unpack, name);
      }
      if (simple && sent) {
        b_.hold("piece stored");
        b_.notify(next(), channel_, "data", false);
      }
    }
  }

  // Slot `index` of the receive buffer of `gpu`.
  Region fifo(uint32_t gpu, uint64_t index) const { return b_.protocol_slot(gpu, index); }
  Region input(uint64_t chunk) const { return b_.chunk(me_, Space::kInput, chunk); }
  Region output(uint64_t chunk) const { return b_.chunk(me_, Space::kOutput, chunk); }
  uint32_t rank(int64_t offset) const {
    const auto n = static_cast<int64_t>(n_);
    return static_cast<uint32_t>(((static_cast<int64_t>(me_) + offset) % n + n) % n);
  }
  uint32_t next() const { return rank(1); }
  uint32_t me() const { return me_; }
  uint32_t n() const { return n_; }

 private:
  PlanBuilder& b_;
  uint32_t n_, me_, channel_;
  Protocol protocol_;
  uint32_t pieces_ = 1;
};

// Reduce-scatter half: sends go to the next GPU's slots base..base+N-2.
// The last step's operand is reduced into `final` (and, for all-reduce,
// sent on as the first all-gather send into slot base+N-1).
void reduce_scatter(NcclRingChannel& c, uint64_t base, const Region& final, bool continue_with_all_gather) {
  const uint32_t n = c.n();
  c.step({c.input(c.rank(-1))}, false, {c.fifo(c.next(), base)}, true, false, "send");
  for (uint32_t s = 1; s + 1 < n; ++s) {
    c.step({c.fifo(c.me(), base + s - 1), c.input(c.rank(-1 - int64_t{s}))}, true, {c.fifo(c.next(), base + s)},
           true, true, "recvReduceSend");
  }
  std::vector<Region> stores{final};
  if (continue_with_all_gather) stores.push_back(c.fifo(c.next(), base + n - 1));
  c.step({c.fifo(c.me(), base + n - 2), c.input(c.me())}, true, stores, continue_with_all_gather, true,
         continue_with_all_gather ? "recvReduceCopySend" : "recvReduce");
}

// All-gather half after the first send (into the next GPU's slot `base`):
// step j receives chunk r-j in slot base+j-1 and forwards it to slot base+j.
void all_gather_forward(NcclRingChannel& c, uint64_t base) {
  const uint32_t n = c.n();
  for (uint32_t j = 1; j + 1 < n; ++j) {
    c.step({c.fifo(c.me(), base + j - 1)}, true, {c.output(c.rank(-int64_t{j})), c.fifo(c.next(), base + j)}, true,
           false, "recvCopySend");
  }
  c.step({c.fifo(c.me(), base + n - 2)}, true, {c.output(c.rank(1))}, false, false, "recv");
}

class NcclRingPlanAlgorithm final : public PlanAlgorithm {
 public:
  std::string_view name() const override { return "nccl-ring"; }
  std::string_view summary() const override {
    return "NCCL's ring: one ring per channel, fused receive-reduce-send steps into the next GPU's buffer";
  }
  std::vector<std::string_view> collectives() const override { return {kAllReduce, kAllGather, kReduceScatter}; }
  bool supports(Transfer transfer, Protocol) const override { return transfer == Transfer::kPut; }
  std::vector<PlanParameter> parameters() const override {
    return {{"gpus", "ring length: GPU r sends to r+1"},
            {"workgroups", "channels: one ring each, moving slice w of every chunk"},
            {"buffer_bytes", "cut into one chunk per GPU; all-reduce moves 2(N-1) chunks per GPU"},
            {"protocol", "Simple (signal per slice), LL (8-byte flags), LL128 (a flag per 128-byte line)"},
            {"slices_per_step", "Simple: pieces per step, each signalled (default 2, NCCL's slices)"},
            {"prologue_cycles", "SM cycles before the first send (the kernel's prologue)"},
            {"threads_per_workgroup", "threads of a channel's block (NCCL: 512 or 640, fewer for small sizes)"}};
  }

  uint64_t bytes_per_step(const GeneratedPlanOptions& options) const override {
    return options.buffer_bytes / options.gpus;
  }

  void expand(const GeneratedPlanOptions& options, PlanBuilder& b) const override {
    const uint32_t n = options.gpus;
    const bool all_reduce = options.collective == kAllReduce;
    const bool gather_only = options.collective == kAllGather;
    const uint64_t slots = (all_reduce ? 2 : 1) * uint64_t{n - 1};
    b.set_scratch_bytes(slots * b.chunk_bytes());
    for (uint32_t gpu = 0; gpu < n; ++gpu) {
      for (uint32_t w = 0; w < options.workgroups; ++w) {
        b.begin_workgroup(gpu, w);
        b.select_slice(w, options.workgroups);
        NcclRingChannel c(b, gpu, w);
        b.prologue();
        if (all_reduce) {
          reduce_scatter(c, 0, c.output(gpu), true);
          all_gather_forward(c, n - 1);
        } else if (gather_only) {
          // copySend: the own input into the own output and the next GPU.
          c.step({c.input(0)}, false, {c.output(gpu), c.fifo(c.next(), 0)}, true, false, "copySend");
          all_gather_forward(c, 0);
        } else {
          reduce_scatter(c, 0, c.output(0), false);
        }
        b.end_workgroup();
      }
    }
  }
};

}  // namespace

std::unique_ptr<PlanAlgorithm> make_nccl_ring_plan_algorithm() { return std::make_unique<NcclRingPlanAlgorithm>(); }

}  // namespace snr::dsim::loadstore
