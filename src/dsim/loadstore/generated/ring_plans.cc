// The ring: GPU r sends to r+1 and receives from r-1 over N-1 steps, one
// chunk (buffer / N) per step. Reduce-scatter passes partial sums around
// the ring (GPU r ends with chunk r summed over all GPUs); all-gather
// forwards each GPU's chunk; all-reduce is a reduce-scatter into the output
// followed by an in-place all-gather of it. Workgroup w of every GPU moves
// slice w of every chunk with its own semaphores, so workgroups of a ring
// run independently.
//
// Every step writes a fresh scratch slot, so no buffer is reused within the
// collective: put needs one "free" handshake before its first store (the
// receiver's scratch is not in use by a previous collective any more), get
// one "done" handshake after its last load (the owner may not reuse what
// its reader has not read), and LL needs no semaphore at all.
#include <string_view>
#include <vector>

#include "dsim/loadstore/generated/plan_builder.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::loadstore {
namespace {

// One GPU's workgroup of the ring, emitting its ops step by step.
class RingWorkgroup {
 public:
  RingWorkgroup(PlanBuilder& b, uint32_t rank) : b_(b), n_(b.gpus()), me_(rank) {}

  // Reduce-scatter: chunk `me` of the sum over all inputs lands in `final`.
  // Scratch slots from `base` hold what this phase receives or publishes,
  // and (put) its partial sums: 2(N-1) slots.
  void reduce_scatter(const Region& final, uint64_t base) {
    const Protocol protocol = b_.options().protocol;
    if (b_.options().transfer == Transfer::kPut) {
      // Step s copies the partial sum of chunk r-1-s (its own input at step
      // 0) into the next GPU's receive slot `base + s`; the receiver adds its
      // own input once it arrived and keeps the sum in its partial slot
      // `base + N-1 + s`, the source of its next copy. Transfer and reduction
      // follow each other: the receiver reduces only what has fully arrived.
      const uint64_t partials = base + n_ - 1;
      b_.copy(input(rank(-1)), scratch(next(), base, protocol), "put");
      if (protocol == Protocol::kSimple) signal_after_stores(next(), "rs data");
      for (uint32_t s = 1; s + 1 < n_; ++s) {
        if (protocol == Protocol::kSimple) wait("rs data");
        const Region partial = scratch(me_, partials + s, Protocol::kSimple);
        b_.load_store({scratch(me_, base + s - 1, protocol), input(rank(-1 - int64_t{s}))}, {partial}, true,
                      "reduce");
        b_.copy(partial, scratch(next(), base + s, protocol), "put");
        if (protocol == Protocol::kSimple) signal_after_stores(next(), "rs data");
      }
      if (protocol == Protocol::kSimple) wait("rs data");
      b_.load_store({scratch(me_, base + n_ - 2, protocol), input(me_)}, {final}, true, "reduce");
      return;
    }
    // Get: step s reads the previous GPU's partial sum of chunk r-2-s (its
    // input at step 0) and adds its own input; LL publishes the step-0
    // operand as packets in slot `base`, and every partial in the slot after.
    if (protocol == Protocol::kLL) {
      b_.copy(input(rank(-1)), scratch(me_, base, protocol), "publish");
    } else {
      b_.notify(next(), wg(), "rs ready", false);
    }
    for (uint32_t s = 0; s + 1 < n_; ++s) {
      const bool last = s + 2 == n_;
      const uint64_t chunk = rank(-2 - int64_t{s});
      Region from = protocol == Protocol::kLL ? scratch(prev(), base + s, protocol)
                    : s == 0                  ? input(prev(), chunk)
                                              : scratch(prev(), base + s - 1, protocol);
      const Region to = last ? final : scratch(me_, base + s + (protocol == Protocol::kLL ? 1 : 0), protocol);
      if (protocol == Protocol::kSimple) wait("rs ready");
      b_.load_store({from, input(chunk)}, {to}, true, last ? "get and reduce" : "get, reduce and publish");
      if (protocol == Protocol::kSimple && !last) signal_after_stores(next(), "rs ready");
    }
  }

  // All-gather of `own` (this GPU's chunk) into output chunk r of every
  // GPU; `copy_own` also copies it into this GPU's own output chunk.
  void all_gather(const Region& own, bool copy_own, uint64_t base) {
    const Protocol protocol = b_.options().protocol;
    if (b_.options().transfer == Transfer::kPut) {
      // Step s forwards chunk r-s, which arrived at step s-1.
      if (copy_own) b_.copy(own, output(me_, me_), "copy own");
      if (protocol == Protocol::kSimple) {
        b_.copy(own, output(next(), me_), "put");
        signal_after_stores(next(), "ag data");
        for (uint32_t s = 1; s + 1 < n_; ++s) {
          wait("ag data");
          const uint64_t chunk = rank(-int64_t{s});
          b_.copy(output(me_, chunk), output(next(), chunk), "put");
          signal_after_stores(next(), "ag data");
        }
        wait("ag data");
        return;
      }
      b_.copy(own, scratch(next(), base, protocol), "put");
      for (uint32_t s = 1; s + 1 < n_; ++s) {
        b_.load_store({scratch(me_, base + s - 1, protocol)},
                      {output(me_, rank(-int64_t{s})), scratch(next(), base + s, protocol)}, false, "unpack and put");
      }
      b_.copy(scratch(me_, base + n_ - 2, protocol), output(me_, rank(1)), "unpack");
      return;
    }
    // Get: step s reads chunk r-1-s from the previous GPU, which holds it
    // since its own step s-1 (LL: in its packet slot `base + s`).
    if (protocol == Protocol::kLL) b_.copy(own, scratch(me_, base, protocol), "publish");
    if (copy_own) b_.copy(own, output(me_, me_), "copy own");
    if (protocol == Protocol::kSimple) signal_after_stores(next(), "ag ready");
    for (uint32_t s = 0; s + 1 < n_; ++s) {
      const bool last = s + 2 == n_;
      const uint64_t chunk = rank(-1 - int64_t{s});
      if (protocol == Protocol::kSimple) {
        wait("ag ready");
        b_.copy(output(prev(), chunk), output(me_, chunk), "get");
        if (!last) signal_after_stores(next(), "ag ready");
        continue;
      }
      std::vector<Region> stores{output(me_, chunk)};
      if (!last) stores.push_back(scratch(me_, base + s + 1, protocol));
      b_.load_store({scratch(prev(), base + s, protocol)}, stores, false, last ? "get" : "get and publish");
    }
  }

  // Simple put: before the first store, tell the sender that this GPU's
  // buffers are free, and wait until the receiver says the same.
  void announce_free_buffers() {
    b_.notify(prev(), wg(), "free", true);
    wait("free");
  }
  // Simple get: after the last load, tell the owner it was read, and wait
  // until the reader of this GPU's data says the same.
  void announce_reads_done() {
    signal_after_stores(prev(), "done");
    wait("done");
  }

  // Semaphore ops run on wavefront 0 only: a wait that guards data holds
  // the whole workgroup back until it is over, and a fenced signal first
  // lets every wavefront finish its stores (loads, for "done"), so that the
  // fence covers all of them and not just wavefront 0's.
  void wait(std::string_view purpose) {
    b_.await(purpose, 1);
    b_.hold(purpose);
  }
  void signal_after_stores(uint32_t peer, std::string_view purpose) {
    b_.hold("stores issued");
    b_.notify(peer, wg(), purpose, false);
  }

  Region input(uint64_t chunk) const { return input(me_, chunk); }
  Region input(uint32_t gpu, uint64_t chunk) const { return b_.chunk(gpu, Space::kInput, chunk); }
  Region output(uint32_t gpu, uint64_t chunk) const { return b_.chunk(gpu, Space::kOutput, chunk); }
  Region scratch(uint32_t gpu, uint64_t slot, Protocol protocol) const {
    return b_.chunk(gpu, Space::kScratch, slot, protocol == Protocol::kLL);
  }
  uint32_t rank(int64_t offset) const {
    const auto n = static_cast<int64_t>(n_);
    return static_cast<uint32_t>(((static_cast<int64_t>(me_) + offset) % n + n) % n);
  }
  uint32_t next() const { return rank(1); }
  uint32_t prev() const { return rank(-1); }
  uint32_t wg() const { return b_.workgroup(); }

 private:
  PlanBuilder& b_;
  uint32_t n_;
  uint32_t me_;
};

class RingPlanAlgorithm final : public PlanAlgorithm {
 public:
  std::string_view name() const override { return "ring"; }
  std::string_view summary() const override {
    return "ring: N-1 steps of one chunk to the next GPU (all-reduce = reduce-scatter + all-gather)";
  }
  std::vector<std::string_view> collectives() const override { return {kAllGather, kReduceScatter, kAllReduce}; }
  bool supports(Transfer, Protocol protocol) const override { return protocol != Protocol::kLL128; }
  std::vector<PlanParameter> parameters() const override {
    return {{"gpus", "ring length: GPU r sends to r+1 and receives from r-1"},
            {"workgroups", "per GPU; workgroup w moves slice w of every chunk with its own semaphores"},
            {"buffer_bytes", "cut into one chunk per GPU; one chunk crosses each link per step"},
            {"transfer", "put: stores into the next GPU's memory; get: loads from the previous GPU's"},
            {"protocol", "Simple: semaphores per step; LL: packets in a fresh scratch slot per step"}};
  }

  uint64_t bytes_per_step(const GeneratedPlanOptions& options) const override {
    return options.buffer_bytes / options.gpus;
  }

  void expand(const GeneratedPlanOptions& options, PlanBuilder& b) const override {
    const uint32_t n = options.gpus;
    const bool all_reduce = options.collective == kAllReduce;
    const bool reduce = all_reduce || options.collective == kReduceScatter;
    const bool gather = all_reduce || options.collective == kAllGather;
    // 2(N-1) chunk slots per phase: what a GPU receives (put) or publishes
    // (get, LL), and partial sums.
    const uint64_t slots_per_phase = 2 * uint64_t{n - 1};
    const uint64_t phases = (reduce ? 1 : 0) + (gather ? 1 : 0);
    b.set_scratch_bytes(phases * slots_per_phase * b.chunk_bytes());
    const bool simple = options.protocol == Protocol::kSimple;
    for (uint32_t gpu = 0; gpu < n; ++gpu) {
      for (uint32_t w = 0; w < options.workgroups; ++w) {
        b.begin_workgroup(gpu, w);
        b.select_slice(w, options.workgroups);
        RingWorkgroup ring(b, gpu);
        if (simple && options.transfer == Transfer::kPut) ring.announce_free_buffers();
        if (reduce) {
          const Region final = all_reduce ? ring.output(gpu, gpu) : b.chunk(gpu, Space::kOutput, 0);
          ring.reduce_scatter(final, 0);
        }
        if (gather) {
          const Region own = all_reduce ? ring.output(gpu, gpu) : ring.input(gpu, 0);
          ring.all_gather(own, !all_reduce, reduce ? slots_per_phase : 0);
        }
        if (simple && options.transfer == Transfer::kGet) ring.announce_reads_done();
        b.end_workgroup();
      }
    }
  }
};

}  // namespace

std::unique_ptr<PlanAlgorithm> make_ring_plan_algorithm() { return std::make_unique<RingPlanAlgorithm>(); }

}  // namespace snr::dsim::loadstore
