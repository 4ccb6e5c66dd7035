// Run data details of a replay: the cycles-only mode, replaying code that
// was rewritten in memory, and SMEM / HBM dependency edges.
#include <algorithm>
#include <cstring>
#include <gtest/gtest.h>

#include "common/error.h"
#include "isa/address_map.h"
#include "isa/isa.h"
#include "replay/program_capture.h"
#include "replay/replayer.h"
#include "asm/program_builder.h"
#include "sim/elf_loader.h"
#include "sim/sim_test_util.h"

namespace snr::replay {
namespace {

using Op = isa::Opcode;
constexpr uint64_t kText = isa::kDefaultTextBase;
constexpr uint64_t kDescriptor = 0x8000;  // SMEM, above the text

std::string le64(uint64_t value) {
  std::string bytes(8, '\0');
  std::memcpy(bytes.data(), &value, 8);
  return bytes;
}

// The all-gather setup pattern on one chip: a DMA brings a descriptor from
// HBM into SMEM, `ld` reads the next source address from it, and a second
// DMA uses that register; then the data goes VMEM -> HBM and back, so HBM
// is written and read within the window.
sim::ProgramImage descriptor_chain_program() {
  assembler::ProgramBuilder b;
  b.li(11, static_cast<int64_t>(isa::kHbmBase));
  b.li(12, 8);
  b.li(13, static_cast<int64_t>(kDescriptor));
  b.dma(13, 11, 12, 0);  // HBM descriptor -> SMEM
  b.sem_wait(0, 1);
  b.i(Op::kLd, 14, 13, 0);  // the next address, from the descriptor
  b.li(15, static_cast<int64_t>(isa::kVmemBase));
  b.li(16, 1024);
  b.dma(15, 14, 16, 0);  // HBM data -> VMEM
  b.sem_wait(0, 1);
  b.li(17, static_cast<int64_t>(isa::kHbmBase + 0x10000));
  b.dma(17, 15, 16, 0);  // VMEM -> HBM
  b.sem_wait(0, 1);
  b.li(18, static_cast<int64_t>(isa::kVmemBase + 0x4000));
  b.dma(18, 17, 16, 0);  // HBM (written above) -> VMEM
  b.sem_wait(0, 1);
  b.li(10, 0);
  b.exit(10);
  return sim::program_from_builder(b, "descriptor-chain");
}

CapturedRun capture_descriptor_chain() {
  constexpr uint64_t data_address = isa::kHbmBase + 0x1000;
  CapturedRun captured = capture_program_run(
      descriptor_chain_program(), sim::testing::round_number_config(1),
      {.initialize = [](sim::ChipState& chip) {
         const std::string descriptor = le64(data_address);
         chip.hbm.write(0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(descriptor.data()), 8));
       }});
  captured.input.chips[0].memory.push_back({isa::kHbmBase, le64(data_address)});
  return captured;
}

std::vector<uint64_t> steps_of(const rundb::RunData& data, std::string_view mnemonic) {
  std::vector<uint64_t> steps;
  for (const rundb::InstructionRecord& r : data.instructions) {
    if (r.mnemonic == mnemonic) steps.push_back(r.step);
  }
  return steps;
}

const rundb::DependencyRecord* find_edge(const rundb::RunData& data, uint64_t producer, uint64_t consumer,
                                         std::string_view kind) {
  for (const rundb::DependencyRecord& edge : data.dependencies) {
    if (edge.producer_step == producer && edge.consumer_step == consumer && edge.kind == kind) return &edge;
  }
  return nullptr;
}

TEST(ReplayRunData, DmaToLoadToDmaChainGoesThroughSmem) {
  const ReplayResult result = run_replay(capture_descriptor_chain().input, {});
  ASSERT_TRUE(result.final_state_problems.empty()) << result.final_state_problems.front();
  const rundb::RunData& data = result.data;
  const std::vector<uint64_t> dmas = steps_of(data, "dma.issue");
  const std::vector<uint64_t> loads = steps_of(data, "ld");
  ASSERT_EQ(dmas.size(), 4u);
  ASSERT_EQ(loads.size(), 1u);
  // DMA 0 landed the descriptor; the ld read all 8 bytes of it.
  const rundb::DependencyRecord* smem = find_edge(data, dmas[0], loads[0], "smem");
  ASSERT_NE(smem, nullptr);
  EXPECT_EQ(smem->first, kDescriptor);
  EXPECT_EQ(smem->last, kDescriptor + 7);
  EXPECT_EQ(smem->chip, 0u);
  // The next DMA's source register came from the ld.
  const rundb::DependencyRecord* reg = find_edge(data, loads[0], dmas[1], "x");
  ASSERT_NE(reg, nullptr);
  EXPECT_EQ(reg->first, 14u);
  // Its source was read before anything in the window wrote it.
  for (const rundb::DependencyRecord& edge : data.dependencies) {
    if (edge.consumer_step == dmas[1]) {
      EXPECT_NE(edge.kind, "hbm");
    }
  }
  EXPECT_EQ(data.dmas[1].src_address, isa::kHbmBase + 0x1000);  // the operand as issued
}

TEST(ReplayRunData, DmaReadingHbmAnEarlierDmaWroteDependsOnItsIssue) {
  const ReplayResult result = run_replay(capture_descriptor_chain().input, {});
  const rundb::RunData& data = result.data;
  const std::vector<uint64_t> dmas = steps_of(data, "dma.issue");
  ASSERT_EQ(dmas.size(), 4u);
  const rundb::DependencyRecord* hbm = find_edge(data, dmas[2], dmas[3], "hbm");
  ASSERT_NE(hbm, nullptr);
  EXPECT_EQ(hbm->first, isa::kHbmBase + 0x10000);
  EXPECT_EQ(hbm->last, isa::kHbmBase + 0x10000 + 1023);
  // The VMEM -> HBM DMA read the pages DMA 1 landed: one edge for both pages.
  const rundb::DependencyRecord* vmem = find_edge(data, dmas[1], dmas[2], "vmem");
  ASSERT_NE(vmem, nullptr);
  EXPECT_EQ(vmem->first, 0u);
  EXPECT_EQ(vmem->last, 1u);
  EXPECT_EQ(std::count_if(data.dependencies.begin(), data.dependencies.end(),
                          [&](const rundb::DependencyRecord& e) { return e.consumer_step == dmas[2] && e.kind == "vmem"; }),
            1);
}

TEST(ReplayRunData, CyclesOnlyReplayGivesTheSameSummaryWithoutRunData) {
  const CapturedRun captured = capture_descriptor_chain();
  const ReplayResult full = run_replay(captured.input, {});
  ReplayOptions options;
  options.collect_run_data = false;
  const ReplayResult lean = run_replay(captured.input, options);
  EXPECT_TRUE(lean.final_state_problems.empty());
  EXPECT_EQ(lean.instructions, full.instructions);
  EXPECT_GT(lean.data.total_cycles, 0u);
  EXPECT_EQ(lean.data.total_cycles, full.data.total_cycles);
  ASSERT_EQ(lean.data.chips.size(), full.data.chips.size());
  for (size_t c = 0; c < full.data.chips.size(); ++c) {
    EXPECT_EQ(lean.data.chips[c].instructions, full.data.chips[c].instructions) << c;
    EXPECT_EQ(lean.data.chips[c].first_cycle, full.data.chips[c].first_cycle) << c;
    EXPECT_EQ(lean.data.chips[c].last_cycle, full.data.chips[c].last_cycle) << c;
    EXPECT_EQ(lean.data.chips[c].stall_cycles, full.data.chips[c].stall_cycles) << c;
  }
  EXPECT_TRUE(lean.data.instructions.empty());
  EXPECT_TRUE(lean.data.dmas.empty());
  EXPECT_TRUE(lean.data.dependencies.empty());
  EXPECT_FALSE(lean.data.meta.empty());
  EXPECT_FALSE(lean.data.hw_config_yaml.empty());
}

// Straight-line code with two independent instructions, so swapping them
// keeps the program's meaning.
sim::ProgramImage independent_pair_program() {
  assembler::ProgramBuilder b;
  b.li(20, 7);
  b.i(Op::kAddi, 21, 0, 5);   // independent of the next
  b.i(Op::kAddi, 22, 20, 3);  // reads x20 only
  b.r(Op::kAdd, 23, 21, 22);
  b.li(10, 0);
  b.exit(10);
  return sim::program_from_builder(b, "independent-pair");
}

TEST(ReplayRunData, ReplaysCodeAndPcsRewrittenInMemory) {
  CapturedRun captured = capture_program_run(independent_pair_program(), sim::testing::round_number_config(1));
  ReplayInput input = captured.input;
  ReplayChip& chip = input.chips[0];
  std::vector<uint32_t>& words = input.code[0].words;
  auto is_addi_to = [](uint8_t rd) {
    return [rd](uint32_t word) {
      const isa::DecodedInstruction d = isa::decode(word);
      return d.opcode == Op::kAddi && d.rd == rd;
    };
  };
  auto first = std::find_if(words.begin(), words.end(), is_addi_to(21));
  auto second = std::find_if(words.begin(), words.end(), is_addi_to(22));
  ASSERT_NE(first, words.end());
  ASSERT_EQ(second, first + 1);
  const uint64_t first_pc = input.code[0].address + 4 * static_cast<uint64_t>(first - words.begin());
  std::iter_swap(first, second);
  // The rewritten code visits the same addresses; the instruction moved
  // from first_pc + 4 now runs first, so the recorded sequence is unchanged
  // except for what it names.
  auto at = std::find(chip.pcs.begin(), chip.pcs.end(), first_pc);
  ASSERT_NE(at, chip.pcs.end());
  ASSERT_EQ(*(at + 1), first_pc + 4);
  const ReplayResult rewritten = run_replay(input, {});
  EXPECT_TRUE(rewritten.final_state_problems.empty()) << rewritten.final_state_problems.front();
  EXPECT_EQ(rewritten.system->chip(0).x[23], 15u);
  const auto index = static_cast<size_t>(at - chip.pcs.begin());
  EXPECT_EQ(rewritten.data.instructions[index].pc, first_pc);
  // x22 = x20 + 3 now issues first and x23 still depends on both.
  bool add_reads_moved = false;
  for (const rundb::DependencyRecord& edge : rewritten.data.dependencies) {
    if (edge.kind == "x" && edge.first == 21 && edge.producer_step == index + 1) add_reads_moved = true;
  }
  EXPECT_TRUE(add_reads_moved);

  // A pc sequence that disagrees with the rewritten code is still caught.
  std::iter_swap(first, second);
  std::swap(*at, *(at + 1));
  EXPECT_THROW(run_replay(input, {}), Error);
}

}  // namespace
}  // namespace snr::replay
