// Algorithm 2 on hand-built streams: a prefetch to the op's start, a
// cross-op move with its fallback, what stops a move (a WAIT, a register
// hazard, VMEM), and the level-by-level interleaving of dependent chains.
#include <algorithm>
#include <gtest/gtest.h>

#include "analyze/analyze.h"
#include "analyze/test_run_data.h"

namespace snr::analyze {
namespace {

using testing::build_chains;
using testing::RunBuilder;

// Op "a": 10 instructions at cycles 0, 100, ..., 900 (pcs 0x1000 + 4i).
// Op "b": 6 instructions at 1000, 1100, ..., 1500, then `lui x5` at 1590,
// the ISSUE at 1600 (reads x5) and its WAIT from 1601 to `wait_end`.
// The DMA: base latency done at 1700, transfer 1700..wait_end, into VMEM
// page 0.
struct Prefetch {
  RunBuilder b;
  uint64_t lui = 0, issue = 0, wait = 0;
  std::vector<uint64_t> steps;  // every step, by position
};

void build_prefetch(Prefetch& p, uint64_t wait_end) {
  for (int i = 0; i < 10; ++i) p.steps.push_back(p.b.inst(0, 0x1000 + 4 * i, "a", "vadd.f32", 100 * i));
  for (int i = 0; i < 6; ++i) p.steps.push_back(p.b.inst(0, 0x1028 + 4 * i, "b", "vadd.f32", 1000 + 100 * i));
  p.lui = p.b.inst(0, 0x1040, "b", "lui", 1590);
  p.issue = p.b.inst(0, 0x1044, "b", "dma.issue", 1600);
  p.wait = p.b.inst(0, 0x1048, "b", "sem.wait", wait_end, wait_end - 1601);
  p.steps.insert(p.steps.end(), {p.lui, p.issue, p.wait});
  p.b.reg(p.lui, p.issue, 5);
  p.b.dma(p.issue, 512, 1600, 1700, 1700, wait_end);
  p.b.waited(0, p.wait, 1601, wait_end);
}

TEST(Suggestions, PrefetchToTheOpStart) {
  // Stall 2100 - 1601 = 499. Hiding it needs the ISSUE at cycle <= 1101;
  // op b starts at 1000, so the move goes before op b's first instruction.
  Prefetch p;
  build_prefetch(p, 2100);
  const Analysis a = analyze(p.b.build(), {});
  ASSERT_EQ(a.suggestions.size(), 1u);
  const Suggestion& s = a.suggestions[0];
  EXPECT_EQ(s.kind, Suggestion::Kind::kIssueEarlier);
  EXPECT_EQ(s.op, "b");
  EXPECT_FALSE(s.cross_op);
  EXPECT_TRUE(s.memory_available);
  EXPECT_FALSE(s.needs_reallocation);
  EXPECT_EQ(s.stall_cycles, 499u);
  EXPECT_EQ(s.push_limit_cycles, 1600u);  // nothing in the window constrains it
  EXPECT_EQ(s.predicted_saving_cycles, 499u);
  ASSERT_EQ(s.moves.size(), 1u);
  EXPECT_EQ(s.moves[0].pcs, (std::vector<uint64_t>{0x1040, 0x1044}));
  EXPECT_EQ(s.moves[0].before_pc, 0x1028u);
  EXPECT_TRUE(s.fallback_moves.empty());
  EXPECT_NE(s.text.find("before the op starts"), std::string::npos);
  EXPECT_NE(s.text.find("its address depends on nothing in the op"), std::string::npos) << s.text;
}

TEST(Suggestions, CrossOpMoveWithFallbackToTheOpStart) {
  // Stall 3100 - 1601 = 1499: the ISSUE must go to cycle <= 101, i.e.
  // before op a's second instruction (cycle 100): a cross-op move (Q1).
  Prefetch p;
  build_prefetch(p, 3100);
  const Analysis a = analyze(p.b.build(), {});
  ASSERT_EQ(a.suggestions.size(), 1u);
  const Suggestion& s = a.suggestions[0];
  EXPECT_TRUE(s.cross_op);
  EXPECT_EQ(s.moves[0].before_pc, 0x1004u);
  EXPECT_EQ(s.predicted_saving_cycles, 1499u);
  ASSERT_EQ(s.fallback_moves.size(), 1u);
  EXPECT_EQ(s.fallback_moves[0].before_pc, 0x1028u);
  EXPECT_EQ(s.fallback_moves[0].pcs, (std::vector<uint64_t>{0x1040, 0x1044}));
}

TEST(Suggestions, ASignalWaitStopsTheMove) {
  // A sem.wait that consumed no DMA (a handshake) at position 5 (cycle
  // 500): the move stops right after it, before position 6 (pc 0x1018),
  // which saves 1600 - 600 = 1000 of the 1499 stall cycles.
  Prefetch p;
  for (int i = 0; i < 5; ++i) p.b.inst(0, 0x1000 + 4 * i, "a", "vadd.f32", 100 * i);
  p.b.inst(0, 0x1014, "a", "sem.wait", 500);
  for (int i = 6; i < 10; ++i) p.b.inst(0, 0x1000 + 4 * i, "a", "vadd.f32", 100 * i);
  for (int i = 0; i < 6; ++i) p.b.inst(0, 0x1028 + 4 * i, "b", "vadd.f32", 1000 + 100 * i);
  p.lui = p.b.inst(0, 0x1040, "b", "lui", 1590);
  p.issue = p.b.inst(0, 0x1044, "b", "dma.issue", 1600);
  p.wait = p.b.inst(0, 0x1048, "b", "sem.wait", 3100, 1499);
  p.b.reg(p.lui, p.issue, 5);
  p.b.dma(p.issue, 512, 1600, 1700, 1700, 3100);
  p.b.waited(0, p.wait, 1601, 3100);
  const Analysis a = analyze(p.b.build(), {});
  ASSERT_EQ(a.suggestions.size(), 1u);
  EXPECT_EQ(a.suggestions[0].moves[0].before_pc, 0x1018u);
  EXPECT_EQ(a.suggestions[0].predicted_saving_cycles, 1000u);
}

TEST(Suggestions, ARegisterHazardStopsTheMove) {
  // Op b's third instruction (position 12, cycle 1200) reads x5 from the
  // window's first instruction; moving `lui x5` above it would change
  // what it reads. The move stops before position 13 (pc 0x1034, cycle
  // 1300): saving 300 of 499 - over the default half of the stall, under
  // a required 70%.
  Prefetch p;
  build_prefetch(p, 2100);
  p.b.reg(p.steps[0], p.steps[12], 5);
  const Analysis a = analyze(p.b.build(), {});
  ASSERT_EQ(a.suggestions.size(), 1u);
  EXPECT_FALSE(a.suggestions[0].cross_op);
  EXPECT_EQ(a.suggestions[0].moves[0].before_pc, 0x1034u);
  EXPECT_EQ(a.suggestions[0].predicted_saving_cycles, 300u);
  EXPECT_NE(a.suggestions[0].text.find("earlier inside the op"), std::string::npos);
  AnalyzeOptions options;
  options.min_saving_fraction = 0.7;
  EXPECT_TRUE(analyze(p.b.build(), options).suggestions.empty());
}

TEST(Suggestions, DestinationInUseNeedsReallocation) {
  // Page 0 (the destination) holds a value written at 500 and read at
  // 1200: landing there from cycle 1000 would clobber it. Pages 1-7 are
  // free, so VMEM has room elsewhere: reallocation, and no moves.
  Prefetch p;
  build_prefetch(p, 2100);
  p.b.vmem(0, 0, 0, true, 500, 500);
  p.b.vmem(0, 0, 0, false, 1200, 1200);
  const Analysis a = analyze(p.b.build(), {});
  ASSERT_EQ(a.suggestions.size(), 1u);
  EXPECT_TRUE(a.suggestions[0].memory_available);
  EXPECT_TRUE(a.suggestions[0].needs_reallocation);
  EXPECT_TRUE(a.suggestions[0].moves.empty());
  EXPECT_NE(a.suggestions[0].text.find("reallocation"), std::string::npos);
}

TEST(Suggestions, NoRoomInVmemNoSuggestion) {
  // Every page holds a value from 0 to 2500: nowhere to land 512 B early.
  Prefetch p;
  build_prefetch(p, 2100);
  p.b.vmem(0, 0, 7, true, 0, 0);
  p.b.vmem(0, 0, 7, false, 2500, 2500);
  EXPECT_TRUE(analyze(p.b.build(), {}).suggestions.empty());
}

// Applies moves to a static pc order as the verifier does: each move takes
// its pcs out and puts them, in order, right before before_pc.
std::vector<uint64_t> apply(std::vector<uint64_t> order, const std::vector<CodeMove>& moves) {
  for (const CodeMove& m : moves) {
    std::vector<uint64_t> kept;
    for (uint64_t pc : order) {
      if (std::find(m.pcs.begin(), m.pcs.end(), pc) == m.pcs.end()) kept.push_back(pc);
    }
    auto at = std::find(kept.begin(), kept.end(), m.before_pc);
    EXPECT_NE(at, kept.end()) << "before_pc " << m.before_pc << " was moved away";
    kept.insert(at, m.pcs.begin(), m.pcs.end());
    order = std::move(kept);
  }
  return order;
}

TEST(Suggestions, ChainsAreInterleavedLevelByLevel) {
  RunBuilder b;
  const auto layout = build_chains(b, 3, 3, true);
  const rundb::RunData data = b.build();
  const Analysis a = analyze(data, {});
  const Suggestion* chains = nullptr;
  for (const Suggestion& s : a.suggestions) {
    if (s.kind == Suggestion::Kind::kParallelChainHeads) chains = &s;
  }
  ASSERT_NE(chains, nullptr);
  EXPECT_EQ(chains->op, "setup");
  EXPECT_EQ(chains->dma_ids.size(), 9u);
  // Each chain stalls 3 x 489 cycles on base latency; overlapped, the
  // three chains cost one chain's: 3 x 1467 - 1467 hidden.
  EXPECT_EQ(chains->hidden_stall_cycles, 2934u);
  // Re-timed: per level the three base latencies overlap and the three
  // 10-cycle transfers queue on the one link, so each level's WAITs stall
  // about 518 cycles in all instead of 3 x 499 (the model's exact count).
  EXPECT_EQ(chains->predicted_saving_cycles, 2936u);
  std::vector<uint64_t> order;
  for (const auto& inst : data.instructions) order.push_back(inst.pc);
  const std::vector<uint64_t> moved = apply(order, chains->moves);
  ASSERT_EQ(moved.size(), order.size());
  auto where = [&](uint64_t step) {
    return std::find(moved.begin(), moved.end(), data.instructions[step].pc) - moved.begin();
  };
  for (uint32_t level = 0; level < 3; ++level) {
    for (uint32_t c = 0; c < 3; ++c) {
      for (uint32_t other = 0; other < 3; ++other) {
        // Every chain's level-n ISSUE comes before any level-n WAIT, and
        // every level-n WAIT before any level-(n+1) address load.
        EXPECT_LT(where(layout.issue_steps[c][level]), where(layout.wait_steps[other][level]));
        if (level + 1 < 3) {
          EXPECT_LT(where(layout.wait_steps[c][level]), where(layout.load_steps[other][level + 1]));
        }
      }
      EXPECT_LT(where(layout.load_steps[c][level]), where(layout.issue_steps[c][level]));
    }
  }
}

TEST(Suggestions, ChainsReusingRegistersAreFlagged) {
  // Every chain computes its address in x7: interleaving them reorders
  // x7 writes, which the text says. With one register per chain it does not.
  for (const bool distinct : {false, true}) {
    RunBuilder b;
    build_chains(b, 3, 3, true, distinct);
    const Analysis a = analyze(b.build(), {});
    ASSERT_FALSE(a.suggestions.empty());
    const Suggestion& s = a.suggestions[0];
    ASSERT_EQ(s.kind, Suggestion::Kind::kParallelChainHeads);
    EXPECT_EQ(s.text.find("distinct registers") != std::string::npos, !distinct) << s.text;
    // Conflict-free, the heads go before the first chain's address computation (pc 0x1000).
    if (distinct) {
      EXPECT_EQ(s.moves[0].before_pc, 0x1000u);
    }
  }
}

TEST(Suggestions, KeepsTheTopNIssueEarlierAndEveryChain) {
  RunBuilder b;
  build_chains(b, 2, 2, true);
  AnalyzeOptions options;
  options.top_suggestions = 0;
  const Analysis a = analyze(b.build(), options);
  ASSERT_EQ(a.suggestions.size(), 1u);
  EXPECT_EQ(a.suggestions[0].kind, Suggestion::Kind::kParallelChainHeads);
}

}  // namespace
}  // namespace snr::analyze
