// The static half of suggestion verification: where each instruction of
// the recorded text lands after a list of code moves, and the re-encoded
// words (pc-relative code fixed up so it still reaches the same
// addresses). docs/rewrite.md describes the rules.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "formats/snapshot/snapshot.h"
#include "replay/replay_input.h"

namespace snr::rewrite {

// A maximal run of slots [start, end) whose instructions were permuted among
// themselves. Outside spans every instruction keeps its address.
struct Span {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
};

struct RewritePlan {
  bool valid = false;
  std::string problem;  // why the moves cannot be applied statically (when !valid)

  uint64_t text_base = 0;
  std::vector<bool> known;              // per slot: the recording holds this word
  std::vector<uint32_t> old_words;      // per slot, original text
  std::vector<uint32_t> new_words;      // per slot, rewritten text
  std::vector<uint64_t> new_pc_of_old;  // per old slot: where that instruction sits now
  std::vector<uint64_t> old_pc_at;      // per new slot: which original instruction is there
  std::vector<bool> moved;              // per old slot: named by some move's `pcs`
  std::vector<Span> spans;              // ascending, disjoint
  uint64_t moved_instructions = 0;
  uint64_t reencoded_words = 0;         // words changed beyond the permutation (fix-ups)

  [[nodiscard]] bool contains(uint64_t pc) const {
    return pc >= text_base && (pc - text_base) / 4 < known.size() && (pc & 3) == 0 && known[(pc - text_base) / 4];
  }
  [[nodiscard]] size_t slot(uint64_t pc) const { return static_cast<size_t>((pc - text_base) / 4); }
  // Address of the original instruction `old_pc` in the rewritten text
  // (identity outside the text and outside spans).
  [[nodiscard]] uint64_t new_pc(uint64_t old_pc) const {
    return contains(old_pc) ? new_pc_of_old[slot(old_pc)] : old_pc;
  }
  // The span containing `pc`, or nullptr.
  [[nodiscard]] const Span* span_of(uint64_t pc) const;
};

// Applies `moves` in order. Each names instructions by their ORIGINAL pcs:
// the instructions at `pcs` move, in the listed order, to immediately
// before the instruction originally at `before_pc`, which must currently
// precede all of them in the same contiguous code range (or be listed
// itself: the group then starts where it was); everything in between shifts
// down. Branches and jal get new offsets, auipc pairs new
// immediates. Never throws for bad moves: returns !valid with the reason.
RewritePlan plan_moves(const replay::ReplayInput& input, const std::vector<analyze::CodeMove>& moves);

// The rewritten ReplayInput: code words replaced, pc sequences and
// expected end pcs remapped (a legal rewrite traverses each span straight
// through, so the recorded addresses stay valid slot by slot).
replay::ReplayInput apply_plan(const replay::ReplayInput& input, const RewritePlan& plan);

// The same rewrite of a snapshot file's contents, so `snr replay` and
// `snr snapshot check` work on the result.
snapshot::Snapshot apply_plan(const snapshot::Snapshot& snapshot, const RewritePlan& plan);

// "0x10040 (dma.issue a1, a0, a2, 3)" for messages, from the original text.
std::string describe_old(const RewritePlan& plan, uint64_t old_pc);

}  // namespace snr::rewrite
