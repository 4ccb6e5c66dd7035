// Conservative and relaxed dependencies, backtails and chains: the
// all-gather setup's 3 chains x 3 levels, found without knowing the
// compiler, and the cases that stop the relaxed walk.
#include <gtest/gtest.h>

#include "analyze/dependencies.h"
#include "analyze/dma_stalls.h"
#include "analyze/run_index.h"
#include "analyze/test_run_data.h"

namespace snr::analyze {
namespace {

using testing::build_chains;
using testing::RunBuilder;

struct Analyzed {
  rundb::RunData data;
  std::vector<DmaStall> dmas;
  DependencyResult deps;
};

Analyzed run(RunBuilder& b) {
  Analyzed a;
  a.data = b.build();
  const RunIndex index(a.data);
  a.dmas = dma_stalls(index);
  a.deps = analyze_dependencies(index, a.dmas);
  return a;
}

TEST(Dependencies, FindsThreeChainsOfThreeThroughSmemLoads) {
  RunBuilder b;
  const auto layout = build_chains(b, 3, 3, true);
  const Analyzed a = run(b);
  ASSERT_EQ(a.deps.chains.size(), 3u);
  for (uint32_t c = 0; c < 3; ++c) {
    EXPECT_EQ(a.deps.chains[c].dma_ids, layout.dma_ids[c]);
    EXPECT_EQ(a.deps.chains[c].op, "setup");
    // 3 DMAs x 489 base-latency stall cycles.
    EXPECT_EQ(a.deps.chains[c].base_stall_cycles, 3u * 489);
    EXPECT_EQ(a.deps.chains[c].stall_cycles, 3u * 499);
  }
  EXPECT_EQ(a.deps.edges.size(), 6u);
  for (uint32_t c = 0; c < 3; ++c) {
    for (uint32_t l = 0; l < 3; ++l) {
      const DmaStall& d = a.dmas[layout.dma_ids[c][l]];
      ASSERT_TRUE(d.chain.has_value());
      EXPECT_EQ(*d.chain, c);
      EXPECT_EQ(d.chain_depth, l);
      // Slice: the instruction that computed the address (lui or ld).
      EXPECT_EQ(d.slice_pcs, (std::vector<uint64_t>{a.data.instructions[layout.load_steps[c][l]].pc}));
      if (l == 0) {
        // Heads depend on nothing in the window: their backtail reaches its start.
        EXPECT_EQ(d.earliest_issue_step, 0u);
        EXPECT_TRUE(d.producer_dmas.empty());
      } else {
        // Right after the predecessor's WAIT, i.e. at the ld.
        EXPECT_EQ(d.earliest_issue_step, layout.wait_steps[c][l - 1] + 1);
        EXPECT_EQ(d.earliest_issue_cycle, a.data.instructions[layout.wait_steps[c][l - 1] + 1].issue_cycle);
        EXPECT_EQ(d.producer_dmas, (std::vector<uint64_t>{layout.dma_ids[c][l - 1]}));
      }
      // Conservative: the ISSUE's register input is produced right before it.
      EXPECT_EQ(d.conservative_ready_step, layout.issue_steps[c][l]);
    }
  }
}

TEST(Dependencies, WithoutSmemEdgesTheLoadStopsTheWalk) {
  RunBuilder b;
  const auto layout = build_chains(b, 3, 3, false);
  const Analyzed a = run(b);
  EXPECT_TRUE(a.deps.chains.empty());
  EXPECT_TRUE(a.deps.edges.empty());
  const DmaStall& d = a.dmas[layout.dma_ids[1][2]];
  EXPECT_EQ(d.earliest_issue_step, layout.issue_steps[1][2]);  // cannot move past its ld
  EXPECT_TRUE(d.slice_pcs.empty());
}

TEST(Dependencies, HeavyProducerStopsTheWalk) {
  // addi x5 <- csrrs x6 (not lightweight); the ISSUE reads x5. The walk
  // passes the addi and stops at the csrrs: earliest = the addi.
  RunBuilder b;
  b.inst(0, 0x1000, "op", "vadd.f32", 0);
  const uint64_t csr = b.inst(0, 0x1004, "op", "csrrs", 1);
  const uint64_t add = b.inst(0, 0x1008, "op", "addi", 2);
  b.inst(0, 0x100c, "op", "vadd.f32", 3);
  const uint64_t issue = b.inst(0, 0x1010, "op", "dma.issue", 4);
  b.reg(csr, add, 6);
  b.reg(add, issue, 5);
  b.dma(issue, 64, 4, 100, 100, 110);
  const Analyzed a = run(b);
  EXPECT_EQ(a.dmas[0].earliest_issue_step, add);
  EXPECT_EQ(a.dmas[0].earliest_issue_cycle, 2u);
  EXPECT_EQ(a.dmas[0].slice_pcs, (std::vector<uint64_t>{0x1008}));
  EXPECT_EQ(a.dmas[0].conservative_ready_step, add + 1);
}

TEST(Dependencies, VmemWrittenByAStoreStopsTheWalk) {
  // The DMA's source pages were written by a vst: the ISSUE stays after it.
  RunBuilder b;
  b.inst(0, 0x1000, "op", "addi", 0);
  const uint64_t vst = b.inst(0, 0x1004, "op", "vst", 1);
  b.inst(0, 0x1008, "op", "addi", 2);
  const uint64_t issue = b.inst(0, 0x100c, "op", "dma.issue", 3);
  b.edge(vst, issue, "vmem", 0, 4, 7);
  b.dma(issue, 64, 3, 100, 100, 110);
  const Analyzed a = run(b);
  EXPECT_EQ(a.dmas[0].earliest_issue_step, vst + 1);
}

TEST(Dependencies, DataFromADmaWaitedOnAnotherChipBlocksTheMove) {
  // Chip 1's DMA lands in chip 0's VMEM and chip 1 waits for it; chip 0's
  // ISSUE reads those pages. Nothing on chip 0 orders the two: no move.
  RunBuilder b;
  b.inst(0, 0x1000, "op", "addi", 0);
  const uint64_t remote = b.inst(1, 0x1000, "op", "dma.issue", 0);
  const uint64_t remote_wait = b.inst(1, 0x1004, "op", "sem.wait", 50, 40);
  b.inst(0, 0x1004, "op", "addi", 60);
  const uint64_t issue = b.inst(0, 0x1008, "op", "dma.issue", 61);
  b.dma(remote, 64, 0, 30, 30, 50);
  b.waited(0, remote_wait, 10, 50);
  b.edge(remote, issue, "vmem", 0, 0, 0);
  b.dma(issue, 64, 61, 100, 100, 110);
  const Analyzed a = run(b);
  EXPECT_EQ(a.dmas[1].earliest_issue_step, issue);
  EXPECT_TRUE(a.deps.backtails[1].blocked);
  EXPECT_EQ(a.dmas[1].producer_dmas, (std::vector<uint64_t>{0}));
}

TEST(Dependencies, ChainsStayInsideOneOp) {
  // A -> B across two ops is a dependency but not a chain.
  std::vector<DmaStall> dmas(2);
  dmas[0].dma_id = 0;
  dmas[0].op = "x";
  dmas[1].dma_id = 1;
  dmas[1].op = "y";
  dmas[1].issue_step = 5;
  EXPECT_TRUE(find_chains(dmas, {{0, 1, "via"}}).empty());
  dmas[1].op = "x";
  ASSERT_EQ(find_chains(dmas, {{0, 1, "via"}}).size(), 1u);
}

}  // namespace
}  // namespace snr::analyze
