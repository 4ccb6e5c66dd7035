// Recursive halving-doubling (Rabenseifner) on a power-of-two GPU count N =
// 2^L, with the partners and message sizes of ASTRA-sim's HalvingDoubling
// (src/dsim/system/halving_doubling.cc): partner = rank XOR distance.
//
// - Reduce-scatter (recursive halving), steps k = 0..L-1 at distance 2^k:
//   GPU r keeps the chunks c ≡ r (mod 2^(k+1)) and sends its partial sums
//   of the other half of what it still holds, N/2^(k+1) chunks (buffer/2,
//   buffer/4, ..., one chunk). After step L-1 it holds chunk r summed over
//   every GPU.
// - All-gather (recursive doubling), steps j = 0..L-1 at distance N/2^(j+1):
//   GPU r holds the chunks c ≡ r (mod 2·distance) and sends them all (one
//   chunk, two, ..., N/2), so the partners end up with each other's.
// - All-reduce: the reduce-scatter into output chunk r, then the all-gather
//   of it: 2L steps, 2(N-1) chunks out of every GPU (the ring's bytes in
//   2 log2 N instead of 2(N-1) steps).
//
// Receives are fused with the next send, as NCCL's recvReduceSend: a
// reduce-scatter step loads what arrived and the own partial sum and stores
// the sum straight to where the next step needs it: the own partial slot
// when this GPU keeps the chunk, else the next partner's receive slot
// (put) or the own publish slot the next partner reads (get). Every
// exchange has its own scratch slot, so nothing is reused inside the
// collective and LL flags are written once.
//
// Simple synchronizes per step with its own semaphore ("rs k", "ag j"): a
// later partner can finish its step before an earlier one, so one counting
// semaphore would let a later signal stand for an earlier step's data.
// Every wait is followed by a hold (semaphore ops run on wavefront 0 only)
// and every fenced signal preceded by one (the fence must cover every
// wavefront's stores). Put announces free buffers to its L partners first;
// get tells its L partners when it has read everything ("done"). LL has no
// semaphores: a load of a packet slot waits for its flags.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "dsim/loadstore/generated/plan_builder.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::loadstore {
namespace {

class HalvingDoublingWorkgroup {
 public:
  HalvingDoublingWorkgroup(PlanBuilder& b, uint32_t rank)
      : b_(b), n_(b.gpus()), me_(rank), levels_(static_cast<uint32_t>(std::countr_zero(b.gpus()))),
        put_(b.options().transfer == Transfer::kPut), simple_(b.options().protocol == Protocol::kSimple) {}

  uint32_t partner(uint32_t distance) const { return me_ ^ distance; }

  // Put: every GPU that will store into this one's buffers hears they are
  // free before its first store; the stores wait for all partners.
  void announce_free_buffers() {
    for (uint32_t k = 0; k < levels_; ++k) b_.notify(partner(1u << k), b_.workgroup(), "free", true);
    wait("free", levels_, "buffers free");
  }
  // Get: the owners may reuse their buffers once every reader is done.
  void announce_reads_done() {
    b_.hold("reads done");
    for (uint32_t k = 0; k < levels_; ++k) b_.notify(partner(1u << k), b_.workgroup(), "done", false);
    b_.await("done", levels_);
  }

  // Reduce-scatter into `final` (chunk r of the sum). With `then_gather`
  // the last step also starts the all-gather of all-reduce: it stores the
  // result where all-gather step 0 would send or publish it.
  void reduce_scatter(const Region& final, bool then_gather) {
    // Step 0's operands are the inputs: put sends them now, get tells the
    // reader they are there (relaxed: written before the kernel started),
    // LL get publishes them as packets.
    const uint32_t first = partner(1);
    for (uint32_t c = 0; c < n_; ++c) {
      if (kept(0, c)) continue;
      if (put_) {
        b_.copy(input(me_, c), exchange(first, 0, c), "put");
      } else if (!simple_) {
        b_.copy(input(me_, c), exchange(me_, 0, c), "publish");
      }
    }
    if (simple_) signal(first, "rs 0", !put_);
    for (uint32_t k = 0; k < levels_; ++k) {
      const uint32_t from = partner(1u << k);
      const bool last = k + 1 == levels_;
      if (simple_) wait(rs_step(k), 1, "step data arrived");
      for (uint32_t c = 0; c < n_; ++c) {
        if (!kept(k, c)) continue;
        const Region received = put_                      ? exchange(me_, k, c)
                                : (simple_ && k == 0)     ? input(from, c)
                                                          : exchange(from, k, c);
        const Region own = k == 0 ? input(me_, c) : partial(k, c);
        std::vector<Region> stores;
        if (last) {
          stores.push_back(final);
          if (then_gather) append_gather_start(stores);
        } else if (kept(k + 1, c)) {
          stores.push_back(partial(k + 1, c));
        } else {
          stores.push_back(exchange(put_ ? partner(2u << k) : me_, k + 1, c));
        }
        b_.load_store({received, own}, stores, true, last ? "reduce" : "reduce and send on");
      }
      if (simple_ && !last) signal(partner(2u << k), rs_step(k + 1), false);
    }
    if (simple_ && then_gather) signal(partner(n_ / 2), ag_step(0), false);
  }

  // All-gather of `own` (this GPU's chunk; input chunk 0 of all-gather,
  // output chunk r of all-reduce) into output chunk r of every GPU.
  // `started`: the reduce-scatter's last step already did step 0's send.
  void all_gather(const Region& own, bool started) {
    if (!started) {
      // The own chunk goes to the own output and, in the same loop, where
      // step 0 needs it; Simple get only says it is there.
      std::vector<Region> stores{output(me_, me_)};
      append_gather_start(stores);
      b_.load_store({own}, stores, false, "copy own");
      if (simple_) signal(partner(n_ / 2), ag_step(0), !put_);
    }
    for (uint32_t j = 0; j < levels_; ++j) {
      const uint32_t distance = n_ >> (j + 1);
      const uint32_t to = partner(distance);
      const bool last = j + 1 == levels_;
      if (put_) {
        // Steps after 0 send what this GPU holds: what arrived one step ago
        // (LL: unpacked in the same loop), and what it had before.
        if (j > 0) {
          for (uint32_t c = 0; c < n_; ++c) {
            if (!holds(me_, 2 * distance, c)) continue;
            const bool just_arrived = !holds(me_, 4 * distance, c);
            if (simple_) {
              b_.copy(output(me_, c), output(to, c), "put");
            } else if (just_arrived) {
              b_.load_store({gather_slot(me_, c)}, {output(me_, c), gather_slot(to, c)}, false, "unpack and put");
            } else {
              b_.copy(c == me_ ? own : output(me_, c), gather_slot(to, c), "put");
            }
          }
          if (simple_) signal(to, ag_step(j), false);
        }
        if (simple_) {
          wait(ag_step(j), 1, "step data arrived");
        } else if (last) {
          for (uint32_t c = 0; c < n_; ++c) {
            if (holds(to, 2 * distance, c)) b_.copy(gather_slot(me_, c), output(me_, c), "unpack");
          }
        }
        continue;
      }
      // Get: read what the partner holds (its output, or LL: its packets)
      // into the own output, publishing it for later readers (LL) or
      // telling the next reader it is here (Simple).
      if (simple_) wait(ag_step(j), 1, "step data ready");
      for (uint32_t c = 0; c < n_; ++c) {
        if (!holds(to, 2 * distance, c)) continue;
        if (simple_) {
          b_.copy(c == to && own.space == Space::kInput ? input(to, 0) : output(to, c), output(me_, c), "get");
        } else {
          std::vector<Region> stores{output(me_, c)};
          if (!last) stores.push_back(gather_slot(me_, c));
          b_.load_store({gather_slot(to, c)}, stores, false, last ? "get" : "get and publish");
        }
      }
      if (simple_ && !last) signal(partner(distance / 2), ag_step(j + 1), false);
    }
  }

  // LL all-gather packet slots start at scratch slot `base`.
  void set_gather_slots(uint64_t base) { slot_base_ = base; }
  Region input(uint32_t gpu, uint64_t chunk) const { return b_.chunk(gpu, Space::kInput, chunk); }
  Region output(uint32_t gpu, uint64_t chunk) const { return b_.chunk(gpu, Space::kOutput, chunk); }

 private:
  // Whether this GPU still reduces chunk c at reduce-scatter step k.
  bool kept(uint32_t k, uint32_t c) const { return holds(me_, 2u << k, c); }
  // Whether `gpu` holds chunk c while its chunks are those ≡ gpu mod `modulus`.
  static bool holds(uint32_t gpu, uint64_t modulus, uint32_t c) { return c % modulus == gpu % modulus; }

  // Reduce-scatter exchange slot of chunk c at step k on `gpu`: what it
  // receives (put) or publishes (get). Step k uses N/2^(k+1) slots after
  // the N - N/2^k of the steps before: N-1 in all.
  Region exchange(uint32_t gpu, uint32_t k, uint32_t c) const {
    return b_.protocol_slot(gpu, exchange_index(k, c));
  }
  uint64_t exchange_index(uint32_t k, uint32_t c) const { return n_ - (n_ >> k) + (c >> (k + 1)); }
  // The own partial sum of chunk c that step k reduces into (plain data):
  // the N-1 slots after the exchange slots.
  Region partial(uint32_t k, uint32_t c) const {
    return b_.chunk(me_, Space::kScratch, n_ - 1 + exchange_index(k, c));
  }
  // All-gather packet slot of chunk c (LL): written once, by the GPU that
  // sends it here (put) or by this GPU for all its readers (get).
  Region gather_slot(uint32_t gpu, uint32_t c) const { return b_.protocol_slot(gpu, slot_base_ + c); }

  // Where all-gather step 0 puts this GPU's chunk besides its own output.
  void append_gather_start(std::vector<Region>& stores) const {
    const uint32_t to = partner(n_ / 2);
    if (put_) stores.push_back(simple_ ? output(to, me_) : gather_slot(to, me_));
    if (!put_ && !simple_) stores.push_back(gather_slot(me_, me_));
  }

  static std::string rs_step(uint32_t k) { return fmt::format("rs {}", k); }
  static std::string ag_step(uint32_t j) { return fmt::format("ag {}", j); }
  void wait(std::string_view purpose, uint32_t times, std::string_view why) {
    b_.await(purpose, times);
    b_.hold(why);
  }
  void signal(uint32_t peer, std::string_view purpose, bool relaxed) {
    if (!relaxed) b_.hold("stores issued");
    b_.notify(peer, b_.workgroup(), purpose, relaxed);
  }

  PlanBuilder& b_;
  uint32_t n_, me_, levels_;
  bool put_, simple_;
  uint64_t slot_base_ = 0;
};

class HalvingDoublingPlanAlgorithm final : public PlanAlgorithm {
 public:
  std::string_view name() const override { return "halving-doubling"; }
  std::string_view summary() const override {
    return "halving-doubling: log2 N steps with partner r XOR 2^k, halving (reduce-scatter) or doubling "
           "(all-gather) the bytes; power-of-two GPU counts";
  }
  std::vector<std::string_view> collectives() const override { return {kAllGather, kReduceScatter, kAllReduce}; }
  bool supports(Transfer, Protocol protocol) const override { return protocol != Protocol::kLL128; }
  std::string unsupported_gpus(uint32_t gpus) const override {
    if (std::has_single_bit(gpus)) return {};
    const uint32_t below = std::bit_floor(gpus);
    return fmt::format("{} GPUs is not a power of two; halving-doubling pairs GPUs by rank XOR 2^k (use {} or {} "
                       "GPUs, or ring)",
                       gpus, below, 2 * below);
  }
  std::vector<PlanParameter> parameters() const override {
    return {{"gpus", "a power of two N; step k pairs GPU r with r XOR 2^k"},
            {"workgroups", "per GPU; workgroup w moves slice w of every chunk with its own semaphores"},
            {"buffer_bytes", "cut into one chunk per GPU; step k of the reduce-scatter sends N/2^(k+1) chunks"},
            {"transfer", "put: stores into the partner's memory; get: loads from the partner's"},
            {"protocol", "Simple: a semaphore per step; LL: packets in a fresh scratch slot per exchange"}};
  }

  // Bytes per step averaged over the log2 N steps of a phase (they range
  // from one chunk to half the buffer).
  uint64_t bytes_per_step(const GeneratedPlanOptions& options) const override {
    const uint64_t chunk = options.buffer_bytes / options.gpus;
    return chunk * (options.gpus - 1) / std::max(1, std::countr_zero(options.gpus));
  }

  void expand(const GeneratedPlanOptions& options, PlanBuilder& b) const override {
    const uint32_t n = options.gpus;
    const bool all_reduce = options.collective == kAllReduce;
    const bool reduce = all_reduce || options.collective == kReduceScatter;
    const bool gather = all_reduce || options.collective == kAllGather;
    const bool simple = options.protocol == Protocol::kSimple;
    // Reduce-scatter: N-1 exchange and N-1 partial slots; LL all-gather: a
    // packet slot per chunk.
    const uint64_t gather_base = reduce ? 2 * uint64_t{n - 1} : 0;
    b.set_scratch_bytes((gather_base + (gather && !simple ? n : 0)) * b.chunk_bytes());
    for (uint32_t gpu = 0; gpu < n; ++gpu) {
      for (uint32_t w = 0; w < options.workgroups; ++w) {
        b.begin_workgroup(gpu, w);
        b.select_slice(w, options.workgroups);
        HalvingDoublingWorkgroup hd(b, gpu);
        hd.set_gather_slots(gather_base);
        if (simple && options.transfer == Transfer::kPut) hd.announce_free_buffers();
        if (reduce) hd.reduce_scatter(all_reduce ? hd.output(gpu, gpu) : hd.output(gpu, 0), all_reduce);
        if (gather) {
          hd.all_gather(all_reduce ? hd.output(gpu, gpu) : hd.input(gpu, 0), all_reduce);
        }
        if (simple && options.transfer == Transfer::kGet) hd.announce_reads_done();
        b.end_workgroup();
      }
    }
  }
};

}  // namespace

std::unique_ptr<PlanAlgorithm> make_halving_doubling_plan_algorithm() {
  return std::make_unique<HalvingDoublingPlanAlgorithm>();
}

}  // namespace snr::dsim::loadstore
