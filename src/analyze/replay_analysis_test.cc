// The analyzer on a real replay: a program with two dependent descriptor
// chains (DMA HBM -> SMEM, WAIT, load the next address from SMEM, next DMA)
// and a 64 KiB weight DMA read by one vector load is captured, replayed
// with the performance tracker, stored as run.db, loaded back and analyzed.
#include <filesystem>
#include <gtest/gtest.h>

#include "analyze/analyze.h"
#include "common/scratch_dir.h"
#include "formats/rundb/load.h"
#include "formats/rundb/writer.h"
#include "isa/address_map.h"
#include "replay/program_capture.h"
#include "replay/replayer.h"
#include "asm/program_builder.h"
#include "sim/elf_loader.h"
#include "sim/sim_test_util.h"

namespace snr::analyze {
namespace {

using Op = isa::Opcode;

constexpr uint64_t kSmemTable = 0x80000;
constexpr uint64_t kWeights = 0x10000;  // HBM offset of the 64 KiB weight block

// Chain c's descriptors live at HBM offsets 0x1000*c + 0x100*l; each holds
// the global address of the next one.
void chain(assembler::ProgramBuilder& b, uint32_t c) {
  b.li(10, static_cast<int64_t>(isa::kHbmBase + 0x1000 * c));
  for (uint32_t level = 0; level < 3; ++level) {
    const uint8_t dst = static_cast<uint8_t>(12 + level);
    b.li(dst, static_cast<int64_t>(kSmemTable + 0x100 * c + 8 * level));
    b.dma(dst, level == 0 ? 10 : 11, 20, 1);
    b.sem_wait(1, 1);
    b.i(Op::kLd, 11, dst, 0);  // the next descriptor's address
  }
}

sim::ProgramImage program() {
  assembler::ProgramBuilder b;
  b.li(20, 8);
  chain(b, 0);
  chain(b, 1);
  b.li(15, static_cast<int64_t>(isa::kHbmBase + kWeights));
  b.li(16, static_cast<int64_t>(isa::kVmemBase));
  b.li(17, 65536);
  b.dma(16, 15, 17, 2);
  b.sem_wait(2, 1);
  b.li(18, 512);
  b.vld(1, 16, 18);
  b.vector(Op::kVaddF32, 2, 1, 1);
  b.li(9, 0);
  b.exit(9);
  return sim::program_from_builder(b, "chains");
}

std::vector<uint8_t> u64(uint64_t value) {
  std::vector<uint8_t> bytes(8);
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(value >> (8 * i));
  return bytes;
}

rundb::RunData replayed_run_db() {
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> hbm;
  for (uint64_t c = 0; c < 2; ++c) {
    for (uint64_t level = 0; level < 3; ++level) {
      hbm.emplace_back(0x1000 * c + 0x100 * level, u64(isa::kHbmBase + 0x1000 * c + 0x100 * (level + 1)));
    }
  }
  replay::CapturedRun captured = replay::capture_program_run(
      program(), sim::testing::round_number_config(1), {.initialize = [&](sim::ChipState& chip) {
        for (const auto& [offset, bytes] : hbm) chip.hbm.write(offset, bytes);
      }});
  for (const auto& [offset, bytes] : hbm) {
    captured.input.chips[0].memory.push_back({isa::kHbmBase + offset, std::string(bytes.begin(), bytes.end())});
  }
  replay::ReplayResult result = replay::run_replay(captured.input, {});
  EXPECT_TRUE(result.final_state_problems.empty());
  const std::string path = snr::testing::scratch_path("run.db").string();
  rundb::write_run_db(path, result.data);
  rundb::RunData loaded = rundb::load_run_data(path);
  EXPECT_EQ(loaded.instructions.size(), result.data.instructions.size());
  EXPECT_EQ(loaded.dependencies.size(), result.data.dependencies.size());
  return loaded;
}

TEST(AnalyzeReplay, StallsDependenciesAndVmemOfARealRun) {
  const rundb::RunData data = replayed_run_db();
  const Analysis a = analyze(data, {});
  ASSERT_EQ(a.dmas.size(), 7u);

  // Figure 4: each WAIT consumed one DMA, so its stall is that DMA's
  // base + transfer parts, and the totals match the WAIT instructions'.
  uint64_t wait_stalls = 0;
  for (const auto& inst : data.instructions) {
    if (inst.mnemonic == "sem.wait") wait_stalls += inst.stall_cycles;
  }
  EXPECT_EQ(a.summary.dma_stall_cycles, wait_stalls);
  for (const DmaStall& d : a.dmas) {
    ASSERT_TRUE(d.wait_start_cycle.has_value());
    EXPECT_EQ(d.stall_cycles(), *d.wait_end_cycle - *d.wait_start_cycle) << d.dma_id;
  }
  // The 8-byte descriptor DMAs stall on base latency, not on the transfer.
  for (size_t k = 0; k < 6; ++k) {
    EXPECT_GT(a.dmas[k].base_stall_cycles, 10 * a.dmas[k].transfer_stall_cycles) << k;
  }
  EXPECT_GT(a.dmas[6].transfer_stall_cycles, 0u);  // 64 KiB moves for a while

  bool smem_edges = false;
  for (const auto& e : data.dependencies) smem_edges = smem_edges || e.kind == "smem";
  if (smem_edges) {
    // The relaxed walk crosses the SMEM loads: two chains of three, found
    // from the run alone, and a suggestion to interleave them.
    ASSERT_EQ(a.chains.size(), 2u);
    EXPECT_EQ(a.chains[0].dma_ids, (std::vector<uint64_t>{0, 1, 2}));
    EXPECT_EQ(a.chains[1].dma_ids, (std::vector<uint64_t>{3, 4, 5}));
    const Suggestion* interleave = nullptr;
    for (const Suggestion& s : a.suggestions) {
      if (s.kind == Suggestion::Kind::kParallelChainHeads) interleave = &s;
    }
    ASSERT_NE(interleave, nullptr);
    EXPECT_EQ(interleave->dma_ids.size(), 6u);
    // Two chains of 3 x 99 base-latency cycles: one chain's worth overlaps.
    EXPECT_EQ(interleave->hidden_stall_cycles, a.chains[1].base_stall_cycles);
    // Re-timed, the transfers (not only the base latencies) shift too, so
    // the prediction differs from that by a few cycles only.
    EXPECT_GE(interleave->predicted_saving_cycles * 10, interleave->hidden_stall_cycles * 9);
    EXPECT_LE(interleave->predicted_saving_cycles * 10, interleave->hidden_stall_cycles * 11);
  } else {
    // Without scalar-memory edges a load's source is unknown: the walk
    // stops at it and no chain is claimed.
    EXPECT_TRUE(a.chains.empty());
    for (size_t k : {1, 2, 4, 5}) EXPECT_GT(a.dmas[k].earliest_issue_step, *a.dmas[k - 1].wait_step) << k;
  }
  // Chain 1's head depends on nothing its predecessor loaded.
  EXPECT_TRUE(a.dmas[3].producer_dmas.empty());

  // VMEM: the weight DMA lands 64 KiB = 128 pages; the vector load reads
  // 8 rows of 512 B = 8 pages. The other 120 are written and never read.
  ASSERT_EQ(a.vmem.size(), 1u);
  EXPECT_EQ(a.vmem[0].pages_written_unread_at_end, 120u);
  EXPECT_GT(a.vmem[0].median_unused_fraction, 0.99);

  for (const UtilizationSeries& s : a.utilization) {
    for (double f : s.busy_fraction) {
      EXPECT_GE(f, 0.0);
      EXPECT_LE(f, 1.0);
    }
  }
  EXPECT_GT(a.summary.unit_utilization.at("dma"), 0.5);  // a DMA is in flight most of the run
}

}  // namespace
}  // namespace snr::analyze
