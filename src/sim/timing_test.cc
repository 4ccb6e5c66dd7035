// Timing-mode tests with hand-computed cycles (config: sim_test_util.h).
#include "sim/timing.h"

#include <gtest/gtest.h>

#include <map>

#include "isa/address_map.h"
#include "asm/program_builder.h"
#include "sim/elf_loader.h"
#include "sim/sim_test_util.h"

namespace snr::sim {

using assembler::ProgramBuilder;
namespace {

using Op = isa::Opcode;
constexpr uint64_t kText = isa::kDefaultTextBase;

struct Recorded {
  std::map<DmaPhase, uint64_t> dma_phase_cycle;
  std::vector<InstructionIssued> issued;
};

// Program: 4 setup instructions (cycles 0-3), dma.issue at cycle 4 of 1600
// bytes HBM -> VMEM (base done 104; at the 16 B/cycle HBM of this test the
// transfer ends at 204), then `filler` nops, then sem.wait and exit.
RunOutcome run_figure4_program(int filler, Recorded& rec) {
  hw::HwConfig config = testing::round_number_config();
  config.set("hbm.bandwidth", "16GB/s");
  ProgramBuilder b;
  b.i(Op::kAddi, 5, 0, 1);
  b.i(Op::kSlli, 5, 5, 32);          // x5 = HBM base
  b.i(Op::kLui, 6, 0, 0x10000);      // x6 = VMEM base
  b.i(Op::kAddi, 7, 0, 1600);
  b.dma(6, 5, 7, 0);
  for (int i = 0; i < filler; ++i) b.nop();
  b.sem_wait(0, 1);
  b.exit(0);
  EventBus bus;
  bus.dma.subscribe([&](const DmaEvent& e) { rec.dma_phase_cycle[e.phase] = e.cycle; });
  bus.instruction_issued.subscribe([&](const InstructionIssued& e) { rec.issued.push_back(e); });
  System system(config, &bus);
  system.load(sim::program_from_builder(b, "figure4"));
  TimingSimulator sim(system);
  return sim.run(1'000'000);
}

// The cycle limit holds for the whole run, DMAs landing after the last
// issue included: a run of exactly the limit passes, one cycle more does not.
// Functional mode counts instructions over all chips; the error says the
// limit it passed.
TEST(Functional, InstructionLimitIsNamed) {
  ProgramBuilder b;
  const ProgramBuilder::Label loop = b.new_label();
  b.bind(loop);
  b.jump(loop);
  System system(testing::round_number_config());
  system.load(sim::program_from_builder(b, "spin"));
  try {
    (void)run_functional(system, 100);
    ADD_FAILURE() << "a program that never exits ran to the end";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("past the limit of 100; raise the limit"), std::string::npos) << e.what();
  }
}

TEST(Timing, CycleLimitCountsTheWholeRun) {
  hw::HwConfig config = testing::round_number_config();
  ProgramBuilder b;
  b.i(Op::kAddi, 5, 0, 1);
  b.i(Op::kSlli, 5, 5, 32);      // x5 = HBM base
  b.i(Op::kLui, 6, 0, 0x10000);  // x6 = VMEM base
  b.i(Op::kAddi, 7, 0, 1600);
  b.dma(6, 5, 7, 0);  // lands long after the exit
  b.exit(0);
  auto run = [&](uint64_t limit) {
    System system(config);
    system.load(sim::program_from_builder(b, "limit"));
    return TimingSimulator(system).run(limit).cycles;
  };
  const uint64_t cycles = run(1'000'000);
  EXPECT_GT(cycles, 10u);
  EXPECT_EQ(run(cycles), cycles);
  EXPECT_THROW((void)run(cycles - 1), Error);
  EXPECT_THROW((void)run(10), Error);
}

TEST(TimingFigure4, WaitBeforeBaseLatencyEndsStallsForBaseAndTransfer) {
  Recorded rec;
  RunOutcome out = run_figure4_program(0, rec);
  EXPECT_EQ(rec.dma_phase_cycle.at(DmaPhase::kIssued), 4u);
  EXPECT_EQ(rec.dma_phase_cycle.at(DmaPhase::kBaseLatencyDone), 104u);
  EXPECT_EQ(rec.dma_phase_cycle.at(DmaPhase::kTransferEnd), 204u);
  EXPECT_EQ(rec.dma_phase_cycle.at(DmaPhase::kWaitStart), 5u);   // before base latency ends
  EXPECT_EQ(rec.dma_phase_cycle.at(DmaPhase::kWaitEnd), 204u);
  const InstructionIssued& wait = rec.issued.at(5);
  EXPECT_EQ(wait.cycle, 204u);
  EXPECT_EQ(wait.stall_cycles, 199u);  // 99 of base latency + 100 of transfer
  EXPECT_EQ(wait.stall_reason, StallReason::kSemaphoreWait);
  EXPECT_EQ(out.chips[0].stall_cycles[static_cast<size_t>(StallReason::kSemaphoreWait)], 199u);
}

TEST(TimingFigure4, WaitDuringTransferStallsOnlyForTheRest) {
  Recorded rec;
  run_figure4_program(145, rec);  // wait reaches issue at cycle 150
  EXPECT_EQ(rec.dma_phase_cycle.at(DmaPhase::kWaitStart), 150u);
  EXPECT_EQ(rec.dma_phase_cycle.at(DmaPhase::kWaitEnd), 204u);
  EXPECT_EQ(rec.issued.at(150).stall_cycles, 54u);
}

TEST(TimingFigure4, WaitAfterCompletionHasSlack) {
  Recorded rec;
  RunOutcome out = run_figure4_program(300, rec);  // wait at cycle 305
  EXPECT_EQ(rec.dma_phase_cycle.at(DmaPhase::kTransferEnd), 204u);
  EXPECT_EQ(rec.dma_phase_cycle.at(DmaPhase::kWaitStart), 305u);
  EXPECT_EQ(rec.dma_phase_cycle.at(DmaPhase::kWaitEnd), 305u);  // slack = 305 - 204
  EXPECT_EQ(rec.issued.at(305).stall_cycles, 0u);
  // 305 sem.wait, 306 addi a0, 307 li a7, 308 ecall.
  EXPECT_EQ(out.cycles, 309u);
}

TEST(Timing, ScoreboardStallsOnMultiplyLatency) {
  ProgramBuilder b;
  b.i(Op::kAddi, 5, 0, 3);
  b.r(Op::kMul, 6, 5, 5);   // cycle 1, result at 4 (3-cycle multiply)
  b.r(Op::kAdd, 7, 6, 6);   // data hazard: issues at 4
  b.exit(7);
  EventBus bus;
  std::vector<InstructionIssued> issued;
  bus.instruction_issued.subscribe([&](const InstructionIssued& e) { issued.push_back(e); });
  System system(testing::round_number_config(), &bus);
  system.load(sim::program_from_builder(b, "mul"));
  TimingSimulator sim(system);
  sim.run(1000);
  EXPECT_EQ(issued.at(2).cycle, 4u);
  EXPECT_EQ(issued.at(2).stall_cycles, 2u);
  EXPECT_EQ(issued.at(2).stall_reason, StallReason::kDataHazard);
  EXPECT_EQ(system.chip(0).exit_code, 18);
}

TEST(Timing, MatrixUnitWeightLoadFillAndDrain) {
  hw::HwConfig config = testing::round_number_config();
  ProgramBuilder b;
  b.i(Op::kLui, 5, 0, 0x10000);  // VMEM base
  b.mxu_ldw(0, 5, 0);            // cycle 1: weights ready at 1 + 128
  b.mxu_mul(0, 1);               // waits for weights: 129; accumulator at 129 + 128
  b.mxu_pop(2, 0);               // waits for the accumulator: 257; v2 ready at 257 + 8
  b.exit(0);
  EventBus bus;
  std::vector<InstructionIssued> issued;
  bus.instruction_issued.subscribe([&](const InstructionIssued& e) { issued.push_back(e); });
  uint64_t matrix_busy_cycles = 0;
  bus.unit_busy.subscribe([&](const UnitBusy& e) {
    if (e.unit == isa::Unit::kMatrix) matrix_busy_cycles += e.end_cycle - e.start_cycle;
  });
  System system(config, &bus);
  system.load(sim::program_from_builder(b, "mxu"));
  TimingSimulator sim(system);
  sim.run(10'000);
  EXPECT_EQ(issued.at(2).cycle, 129u);
  EXPECT_EQ(issued.at(3).cycle, 257u);
  EXPECT_EQ(matrix_busy_cycles, 128u + 8u + 8u);
}

TEST(Timing, TakenBranchBubbleIsCountedAsBranchStall) {
  hw::HwConfig config = testing::round_number_config();
  config.set("scalar.branch_taken_penalty_cycles", "2");
  ProgramBuilder b;
  auto target = b.new_label();
  b.jump(target);  // cycle 0
  b.nop();
  b.bind(target);
  b.exit(0);       // addi at cycle 3
  EventBus bus;
  std::vector<InstructionIssued> issued;
  bus.instruction_issued.subscribe([&](const InstructionIssued& e) { issued.push_back(e); });
  System system(config, &bus);
  system.load(sim::program_from_builder(b, "branch"));
  TimingSimulator(system).run(1000);
  EXPECT_EQ(issued.at(1).cycle, 3u);
  EXPECT_EQ(issued.at(1).stall_reason, StallReason::kBranch);
}

// A window end: the chip stops after its limit even though its next
// instruction (a sem.wait nobody signals) would block forever; the DMA it
// issued still lands, and a limit of 0 keeps a chip from running at all.
TEST(Timing, InstructionLimitStopsAChipWhereItsWindowEnds) {
  hw::HwConfig config = testing::round_number_config(2);
  ProgramBuilder b;
  b.i(Op::kAddi, 5, 0, 1);
  b.i(Op::kSlli, 5, 5, 32);      // x5 = HBM base
  b.i(Op::kLui, 6, 0, 0x10000);  // x6 = VMEM base
  b.i(Op::kAddi, 7, 0, 64);
  b.dma(6, 5, 7, 0);
  b.sem_wait(1, 1);              // never signalled
  b.exit(0);
  EventBus bus;
  std::vector<DmaPhase> phases;
  bus.dma.subscribe([&](const DmaEvent& e) { phases.push_back(e.phase); });
  System system(config, &bus);
  system.load(sim::program_from_builder(b, "limit"));
  TimingSimulator sim(system);
  sim.set_instruction_limit(0, 5);
  sim.set_instruction_limit(1, 0);
  const RunOutcome out = sim.run(1'000'000);
  EXPECT_EQ(out.chips[0].instructions, 5u);
  EXPECT_EQ(out.chips[1].instructions, 0u);
  EXPECT_EQ(system.chip(0).pc, kText + 5 * 4);  // on the sem.wait, not past it
  EXPECT_EQ(system.chip(1).pc, kText);
  EXPECT_EQ(system.chip(0).semaphore[0], 1u);   // the DMA completed
  EXPECT_EQ(phases.back(), DmaPhase::kTransferEnd);
}

}  // namespace
}  // namespace snr::sim
