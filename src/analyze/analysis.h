// The analyzer's result model: everything `snr analyze` computes from one
// run.db (seed 000 §4.3 and §5), as plain records. Analyses fill it
// (src/analyze), suggestion verification adds measured savings
// (src/rewrite), the report renders it (src/report). Cycles are the replayed
// chip clock's (run.db `meta.clock_hz`); steps are run.db's global issue order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace snr::analyze {

// ---- DMA stall analysis (§5.2, Figures 4, 5 and 10) ----------------------

// One DMA's lifetime and how its WAIT met it (Figure 4): the WAIT's stall is
// split into the part before the base latency was fulfilled and the part
// after; a WAIT that came after completion leaves slack instead.
struct DmaStall {
  uint64_t dma_id = 0;
  uint32_t chip = 0;
  std::string op;                 // op of the issuing instruction
  std::string link;
  std::string src_space, dst_space;
  uint64_t bytes = 0;
  uint64_t issue_step = 0;
  uint64_t issue_pc = 0;
  uint64_t issue_cycle = 0;
  uint64_t base_done_cycle = 0;
  uint64_t transfer_start_cycle = 0;
  uint64_t transfer_end_cycle = 0;
  std::optional<uint64_t> wait_step;          // none: no WAIT consumed it in the window
  std::optional<uint64_t> wait_start_cycle;
  std::optional<uint64_t> wait_end_cycle;
  uint64_t base_stall_cycles = 0;      // WAIT stalled before base_done_cycle
  uint64_t transfer_stall_cycles = 0;  // WAIT stalled after base_done_cycle (queueing + transfer)
  uint64_t slack_cycles = 0;           // WAIT came this long after transfer end
  // Dependency overlay ("backtail", Figure 10): the earliest point the
  // ISSUE could move to under the relaxed model, as a step of the issuing
  // chip and the cycle that step issued at.
  uint64_t earliest_issue_step = 0;
  uint64_t earliest_issue_cycle = 0;
  // Same under the conservative model (the ISSUE's immediate register inputs).
  uint64_t conservative_ready_step = 0;
  uint64_t conservative_ready_cycle = 0;
  // Dependent-DMA chain this DMA belongs to (index into Analysis::chains),
  // and its depth in the chain (0 = head).
  std::optional<uint32_t> chain;
  uint32_t chain_depth = 0;
  // The lightweight address computation the ISSUE needs (relaxed model):
  // static pcs, ascending, without the ISSUE's own pc.
  std::vector<uint64_t> slice_pcs;
  // The DMAs whose data the relaxed walk reached (relaxed producers).
  std::vector<uint64_t> producer_dmas;

  [[nodiscard]] uint64_t stall_cycles() const { return base_stall_cycles + transfer_stall_cycles; }
};

// Stall totals over a group of DMAs (by op, by link, by chain).
struct StallGroup {
  std::string key;
  uint64_t dmas = 0;
  uint64_t bytes = 0;
  uint64_t base_stall_cycles = 0;
  uint64_t transfer_stall_cycles = 0;
  uint64_t slack_cycles = 0;
};

// DMAs whose source address (or size) was computed from data an earlier DMA
// of the same chain brought in (relaxed model): each must wait for the
// previous one, so their base latencies add up instead of overlapping.
struct DmaChain {
  uint32_t chip = 0;
  std::string op;
  std::vector<uint64_t> dma_ids;  // head first
  uint64_t stall_cycles = 0;      // summed WAIT stalls of its DMAs
  uint64_t base_stall_cycles = 0;
};

// One edge of the DMA-level dependency graph (Figure 9): `consumer_dma`'s
// ISSUE needs `producer_dma`'s data. In the relaxed model the edge exists
// when the consumer's operands (or the data they were computed from,
// through lightweight register transformations and VMEM loads) came from
// the producer's destination; the conservative model stops at the ISSUE's
// immediate register inputs.
struct DmaDependency {
  uint64_t producer_dma = 0;
  uint64_t consumer_dma = 0;
  std::string via;  // readable path, e.g. "vmem page 12 -> x7 -> dma.issue src"
};

// ---- Unit utilization (§5.3.1, Figure 7) ---------------------------------

// Busy fraction of one unit of one chip per window of `window_cycles`
// (value in [0, 1] per window; a unit with several instances counts the
// mean over instances).
struct UtilizationSeries {
  uint32_t chip = 0;
  std::string unit;  // "matrix", "vector", "scalar", "dma"
  uint64_t window_cycles = 0;
  uint64_t end_cycle = 0;  // the run's total cycles, where the last window is cut
  std::vector<double> busy_fraction;

  // Cycles window w covers: a busy fraction times this is the window's busy
  // cycles, also for the last window, which ends at end_cycle.
  uint64_t window_length_cycles(size_t w) const {
    const uint64_t begin = w * window_cycles;
    return end_cycle > begin ? std::min(window_cycles, end_cycle - begin) : 0;
  }
};

// One row of the per-op table (Figure 2a plus what only a replay knows).
struct OpRow {
  uint32_t chip = 0;
  std::string op;
  uint64_t instructions = 0;
  uint64_t first_cycle = 0;
  uint64_t last_cycle = 0;
  uint64_t cycles = 0;           // issue cycles + stalls owned by the op (run.db op_summary)
  uint64_t stall_cycles = 0;
  uint64_t dma_stall_cycles = 0; // WAIT stall charged to DMAs, for the op's WAITs
  uint64_t hbm_bytes = 0;        // DMA bytes from or to HBM issued by the op
  double hbm_bandwidth_bytes_per_s = 0;
  uint64_t flops = 0;            // from matrix/vector instructions' shapes, 0 when unknown
  double achieved_flops_per_s = 0;
  std::map<std::string, double> unit_utilization;  // unit -> busy fraction over the op's cycles
};

// ---- VMEM utilization and fragmentation (§5.3.2, Figure 8) ---------------

// Per sample cycle, a page is "used" when it holds data written earlier
// that is read later (it lies inside a write -> last read interval);
// everything else - never written, or written and never read again - is
// unused. Largest contiguous unused is the longest run of unused pages.
struct VmemUsage {
  uint32_t chip = 0;
  uint64_t page_bytes = 0;
  uint64_t pages = 0;
  uint64_t sample_cycles = 0;                        // spacing of the samples
  std::vector<uint64_t> sample_cycle;                // cycle of each sample
  std::vector<double> unused_fraction;               // per sample
  std::vector<double> largest_unused_fraction;       // per sample, of all pages
  uint64_t pages_per_block = 0;                      // heatmap rows (Figure 8b)
  std::vector<std::vector<uint32_t>> used_pages_per_block;  // [block][sample]
  uint64_t pages_written_never_read = 0;             // brought in, never used
  // Pages whose last written value was not read before the window ended
  // (it may be read after the window; not counted above).
  uint64_t pages_written_unread_at_end = 0;
  double median_unused_fraction = 0;
  double median_largest_unused_fraction = 0;
};

// ---- Suggestions (Algorithm 2 and beyond) --------------------------------

// A static code move: the instructions at `pcs` (ascending; the DMA ISSUE
// and the lightweight address computation it needs) move, in their order,
// to immediately before the instruction at `before_pc`. All chips run one
// text, so a move applies to every chip executing those pcs.
struct CodeMove {
  std::vector<uint64_t> pcs;
  uint64_t before_pc = 0;
};

struct Verification {
  bool attempted = false;
  bool legal = false;
  std::string illegal_reason;      // the dependency that would break, when not legal
  uint64_t baseline_cycles = 0;    // replay of the original snapshot
  uint64_t rewritten_cycles = 0;   // replay of the rewritten one
  int64_t measured_saving_cycles = 0;
  // WAIT stalls of the suggestion's target DMAs before and after.
  uint64_t target_stall_cycles_before = 0;
  uint64_t target_stall_cycles_after = 0;
  bool final_state_matched = false;  // rewritten run reached the same architectural state
};

struct Suggestion {
  enum class Kind {
    kIssueEarlier,        // move a stalled DMA's ISSUE (with its address computation) earlier
    kParallelChainHeads,  // issue the heads of independent dependent-DMA chains together
  };
  Kind kind = Kind::kIssueEarlier;
  uint32_t chip = 0;
  std::string op;
  bool cross_op = false;            // the move crosses op boundaries (Q1)
  std::vector<uint64_t> dma_ids;    // the DMAs it targets
  uint64_t stall_cycles = 0;        // their current WAIT stalls
  uint64_t push_limit_cycles = 0;   // how far their dependencies allow the ISSUE to move
  uint64_t dma_bytes = 0;
  bool memory_available = false;    // contiguous unused VMEM >= bytes over the moved span
  // The stall the moves hide from the target DMAs' WAITs: what they would
  // save if nothing else changed (Algorithm 2's estimate).
  uint64_t hidden_stall_cycles = 0;
  // The window's predicted saving: the chip's stream re-timed with the
  // moves, each link serving one transfer at a time (saving_model.h).
  uint64_t predicted_saving_cycles = 0;
  std::string text;                 // one sentence a user can act on
  std::vector<CodeMove> moves;      // what verification applies
  // A shorter move (e.g. only to the op's first instruction) to try when
  // `moves` is rejected; empty when there is none.
  std::vector<CodeMove> fallback_moves;
  bool needs_reallocation = false;  // VMEM has room, but not at the DMAs' current destination
  Verification verification;
};

// ---- The whole analysis --------------------------------------------------

struct Summary {
  std::string source;               // run.db meta source (snapshot identity)
  std::string hw_preset;
  double clock_hz = 0;
  uint32_t chips = 0;                   // recorded chips: the window's
  uint32_t machine_chips = 0;           // chips of the replayed machine
  std::vector<uint32_t> recorded_chips;  // ascending
  uint64_t total_cycles = 0;
  uint64_t instructions = 0;
  uint64_t stall_cycles = 0;        // summed over chips
  uint64_t dma_stall_cycles = 0;    // WAIT stalls, summed over chips
  uint64_t dma_base_stall_cycles = 0;
  uint64_t dma_transfer_stall_cycles = 0;
  std::map<std::string, uint64_t> stall_cycles_by_reason;
  std::map<std::string, double> unit_utilization;  // over the window, mean over recorded chips

  // "4 chip(s)", or "2 of 4 chip(s) (1, 3)" for a recording of a chip subset.
  [[nodiscard]] std::string describe_chips() const {
    const std::string count = std::to_string(chips) + " chip(s)";
    if (chips == machine_chips) return count;
    std::string list;
    for (uint32_t chip : recorded_chips) list += (list.empty() ? "" : ", ") + std::to_string(chip);
    return std::to_string(chips) + " of " + std::to_string(machine_chips) + " chip(s) (" + list + ")";
  }
};

struct Analysis {
  Summary summary;
  std::vector<OpRow> ops;
  std::vector<DmaStall> dmas;
  std::vector<StallGroup> stalls_by_op;
  std::vector<StallGroup> stalls_by_link;
  std::vector<DmaChain> chains;
  std::vector<DmaDependency> dma_dependencies;  // relaxed model
  std::vector<UtilizationSeries> utilization;
  std::vector<VmemUsage> vmem;
  std::vector<Suggestion> suggestions;  // best predicted saving first
};

}  // namespace snr::analyze
