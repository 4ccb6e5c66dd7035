// Suggestion verification on hand-written programs: legal and illegal
// moves (with the dependency named), pc-relative fix-ups, and the
// three-chain dependent-DMA setup rewritten level by level.
#include <gtest/gtest.h>

#include "common/error.h"

#include <map>
#include <string>

#include "isa/address_map.h"
#include "replay/program_capture.h"
#include "rewrite/legality.h"
#include "rewrite/measure.h"
#include "rewrite/moves_file.h"
#include "rewrite/plan.h"
#include "rewrite/verify.h"
#include "asm/program_builder.h"
#include "metrics/run_metrics.h"
#include "sim/elf_loader.h"
#include "sim/sim_test_util.h"

namespace snr::rewrite {
namespace {

using Op = isa::Opcode;
constexpr uint64_t kText = isa::kDefaultTextBase;
constexpr uint64_t kVmemA = isa::kVmemBase;
constexpr uint64_t kVmemB = isa::kVmemBase + 0x10000;
constexpr uint64_t kHbmA = isa::kHbmBase;
constexpr uint64_t kHbmB = isa::kHbmBase + 0x10000;

// A ProgramBuilder that remembers the pcs of named groups of instructions.
class Builder {
 public:
  uint64_t pc() const { return kText + 4 * b.size(); }
  template <typename F>
  std::vector<uint64_t> group(F emit) {
    const size_t first = b.size();
    emit();
    std::vector<uint64_t> pcs;
    for (size_t i = first; i < b.size(); ++i) pcs.push_back(kText + 4 * i);
    return pcs;
  }
  assembler::ProgramBuilder b;
};

// Runs `program` on `chips` chips with HBM (and optionally SMEM) contents
// installed as saved state, so the replay starts from the same memory.
replay::ReplayInput capture(const sim::ProgramImage& program, uint32_t chips,
                            const std::vector<replay::SavedMemory>& memory) {
  replay::CapturedRun run = replay::capture_program_run(
      program, sim::testing::round_number_config(chips), {.initialize = [&memory](sim::ChipState& chip) {
        for (const replay::SavedMemory& region : memory) {
          const auto* bytes = reinterpret_cast<const uint8_t*>(region.bytes.data());
          if (region.address >= isa::kHbmBase) {
            chip.hbm.write(region.address - isa::kHbmBase, std::span<const uint8_t>(bytes, region.bytes.size()));
          } else {
            chip.scalar_memory.write(region.address, std::span<const uint8_t>(bytes, region.bytes.size()));
          }
        }
      }});
  for (replay::ReplayChip& chip : run.input.chips) {
    for (const replay::SavedMemory& region : memory) chip.memory.push_back(region);
  }
  return run.input;
}

std::string bytes_of(uint64_t value) { return std::string(reinterpret_cast<const char*>(&value), 8); }

// DMA 1 brings buffer A in and is waited for; DMA 2 (its address
// computation right before it) is only needed at the end, so it can be
// issued before the independent scalar work.
struct ProgramA {
  bool read_b_in_between = false;  // a vld of DMA 2's destination in the crossed code
  bool redefine_bytes = false;     // the crossed code changes DMA 2's byte count
  uint8_t dma2_sem = 2;            // 1: shares DMA 1's semaphore (and crosses its wait)
  bool untaken_branch = false;     // a never-taken branch over the moved code
  bool crossed_reads_x13 = false;  // the crossed code reads x13 (written by the moved group) from before it
  bool crossed_writes_x13 = false; // the crossed code writes x13, and code after the group reads the moved value
};

struct BuiltA {
  replay::ReplayInput input;
  uint64_t before_pc = 0;
  std::vector<uint64_t> moved;  // li x13, li x14, dma
  uint64_t dma2_pc = 0;
  uint64_t branch_pc = 0;
};

BuiltA build_a(const ProgramA& options) {
  Builder p;
  assembler::ProgramBuilder& b = p.b;
  BuiltA out;
  b.li(10, static_cast<int64_t>(kHbmA));
  b.li(11, static_cast<int64_t>(kVmemA));
  b.li(12, 4096);
  b.dma(11, 10, 12, 1);
  out.before_pc = p.pc();
  b.i(Op::kAddi, 20, 20, 1);
  assembler::ProgramBuilder::Label skip = b.new_label();
  if (options.untaken_branch) {
    out.branch_pc = p.pc();
    b.branch(Op::kBne, 0, 0, skip);
  }
  if (options.read_b_in_between) {
    b.li(16, static_cast<int64_t>(kVmemB));
    b.vld(3, 16, 0);
  }
  if (options.redefine_bytes) b.i(Op::kAddi, 12, 0, 1024);
  if (options.crossed_reads_x13) b.i(Op::kAddi, 21, 13, 0);
  if (options.crossed_writes_x13) b.i(Op::kAddi, 13, 0, 5);
  for (int k = 0; k < 150; ++k) b.i(Op::kAddi, 20, 20, 1);
  b.sem_wait(1, 1);
  b.li(17, static_cast<int64_t>(kVmemA));
  b.vld(1, 17, 0);
  out.moved = p.group([&] {
    b.li(13, static_cast<int64_t>(kHbmB));
    b.li(14, static_cast<int64_t>(kVmemB));
  });
  out.dma2_pc = p.pc();
  out.moved.push_back(out.dma2_pc);
  b.dma(14, 13, 12, options.dma2_sem);
  if (options.crossed_writes_x13) b.i(Op::kAddi, 22, 13, 0);
  b.bind(skip);
  b.sem_wait(options.dma2_sem, 1);
  b.vld(2, 14, 0);
  b.li(15, 0);
  b.exit(15);
  out.input = capture(sim::program_from_builder(b, "program-a"), 1,
                      {{kHbmA, std::string(4096, '\x11')}, {kHbmB, std::string(4096, '\x22')}});
  return out;
}

analyze::Verification verify_a(const BuiltA& a) { return verify(a.input, {{a.moved, a.before_pc}}, {}); }

TEST(Rewrite, MovingAnIndependentDmaIssueEarlierIsLegalAndFaster) {
  const BuiltA a = build_a({});
  const RewritePlan plan = plan_moves(a.input, {{a.moved, a.before_pc}});
  ASSERT_TRUE(plan.valid) << plan.problem;
  EXPECT_EQ(plan.new_pc(a.moved.front()), a.before_pc);
  EXPECT_EQ(plan.new_pc(a.before_pc), a.before_pc + 4 * a.moved.size());
  ASSERT_EQ(plan.spans.size(), 1u);
  EXPECT_EQ(plan.spans[0].start, a.before_pc);
  EXPECT_EQ(plan.spans[0].end, a.dma2_pc + 4);

  const analyze::Verification v = verify_a(a);
  ASSERT_TRUE(v.legal) << v.illegal_reason;
  EXPECT_TRUE(v.attempted);
  EXPECT_TRUE(v.final_state_matched);
  EXPECT_LT(v.rewritten_cycles, v.baseline_cycles);
  // DMA 2 (100 cycles base latency + 64 transfer) now overlaps ~150 scalar
  // instructions instead of stalling its wait.
  EXPECT_GT(v.measured_saving_cycles, 100);
  EXPECT_EQ(v.measured_saving_cycles, static_cast<int64_t>(v.baseline_cycles - v.rewritten_cycles));
  EXPECT_GT(v.target_stall_cycles_before, 100u);
  // DMA 1 still holds the HBM -> VMEM link for its 64 transfer cycles.
  EXPECT_LT(v.target_stall_cycles_after * 2, v.target_stall_cycles_before);
}

TEST(Rewrite, MovingAcrossAReadOfTheDestinationIsAWarViolation) {
  const analyze::Verification v = verify_a(build_a({.read_b_in_between = true}));
  EXPECT_TRUE(v.attempted);
  EXPECT_FALSE(v.legal);
  EXPECT_NE(v.illegal_reason.find("dma.issue"), std::string::npos) << v.illegal_reason;
  EXPECT_NE(v.illegal_reason.find("breaks WAR on vmem 0x10010000-0x10011000"), std::string::npos) << v.illegal_reason;
  EXPECT_NE(v.illegal_reason.find("the vld still reads the old contents"), std::string::npos) << v.illegal_reason;
  EXPECT_EQ(v.rewritten_cycles, 0u);
}

TEST(Rewrite, MovingAcrossARegisterRedefinitionIsRejected) {
  const analyze::Verification v = verify_a(build_a({.redefine_bytes = true}));
  EXPECT_FALSE(v.legal);
  EXPECT_NE(v.illegal_reason.find("breaks RAW on x12"), std::string::npos) << v.illegal_reason;
  EXPECT_NE(v.illegal_reason.find("before the addi writes it"), std::string::npos) << v.illegal_reason;
}

// Renaming removes only false register dependencies: a crossed read of the
// moved register's older value, or a moved value still read after the
// group's old place when the crossed code overwrites it, stays illegal.
TEST(Rewrite, RenamingDoesNotHideTrueRegisterDependencies) {
  const analyze::Verification war = verify_a(build_a({.crossed_reads_x13 = true}));
  EXPECT_FALSE(war.legal);
  EXPECT_NE(war.illegal_reason.find("breaks WAR on x13"), std::string::npos) << war.illegal_reason;
  const analyze::Verification waw = verify_a(build_a({.crossed_writes_x13 = true}));
  EXPECT_FALSE(waw.legal);
  EXPECT_NE(waw.illegal_reason.find("breaks WAW on x13"), std::string::npos) << waw.illegal_reason;
}

TEST(Rewrite, MovingAcrossAWaitOnTheSameSemaphoreIsRejected) {
  const analyze::Verification v = verify_a(build_a({.dma2_sem = 1}));
  EXPECT_FALSE(v.legal);
  EXPECT_NE(v.illegal_reason.find("on semaphore 1"), std::string::npos) << v.illegal_reason;
  EXPECT_NE(v.illegal_reason.find("sem.wait"), std::string::npos) << v.illegal_reason;
}

TEST(Rewrite, AnUntakenBranchOverTheMovedCodeGetsANewOffset) {
  const BuiltA a = build_a({.untaken_branch = true});
  const RewritePlan plan = plan_moves(a.input, {{a.moved, a.before_pc}});
  ASSERT_TRUE(plan.valid) << plan.problem;
  const uint64_t old_target = a.branch_pc + static_cast<uint64_t>(isa::decode(plan.old_words[plan.slot(a.branch_pc)]).imm);
  const uint64_t new_branch = plan.new_pc(a.branch_pc);
  const isa::DecodedInstruction moved = isa::decode(plan.new_words[plan.slot(new_branch)]);
  EXPECT_EQ(new_branch + static_cast<uint64_t>(moved.imm), old_target);  // target after the span: unchanged
  EXPECT_NE(new_branch, a.branch_pc);
  const analyze::Verification v = verify_a(a);
  EXPECT_TRUE(v.legal) << v.illegal_reason;
  EXPECT_TRUE(v.final_state_matched);
}

// la x13 (auipc + addi) of a data word, a load through it, and one more
// instruction after.
struct BuiltPcRel {
  replay::ReplayInput input;
  uint64_t before_pc = 0;
  std::vector<uint64_t> la;  // auipc, addi
  uint64_t after_pc = 0;     // addi x22 after the load
};
constexpr uint64_t kDataAddress = 0x30010;

BuiltPcRel build_pcrel(bool plain_use) {
  Builder p;
  assembler::ProgramBuilder& b = p.b;
  BuiltPcRel out;
  b.i(Op::kAddi, 20, 0, 1);
  out.before_pc = p.pc();
  b.i(Op::kAddi, 21, 0, 5);
  for (int k = 0; k < 5; ++k) b.i(Op::kAddi, 20, 20, 1);
  const uint64_t auipc_pc = p.pc();
  const int64_t distance = static_cast<int64_t>(kDataAddress - auipc_pc);
  const int64_t hi = (distance + 0x800) >> 12;
  out.la = p.group([&] {
    b.emit({.opcode = Op::kAuipc, .rd = 13, .imm = hi & 0xFFFFF});
    if (plain_use) b.r(Op::kAdd, 18, 13, 0);  // the raw upper part, used as a value
    b.i(Op::kAddi, 13, 13, distance - hi * 4096);
  });
  b.i(Op::kLd, 16, 13, 0);
  out.after_pc = p.pc();
  b.i(Op::kAddi, 22, 0, 7);
  b.li(15, 0);
  b.exit(15);
  out.input = capture(sim::program_from_builder(b, "pcrel"), 1, {{kDataAddress, bytes_of(0x1234'5678'9abc'def0)}});
  return out;
}

uint64_t la_value(const RewritePlan& plan, uint64_t auipc_old_pc) {
  const uint64_t pc = plan.new_pc(auipc_old_pc);
  const isa::DecodedInstruction auipc = isa::decode(plan.new_words[plan.slot(pc)]);
  const isa::DecodedInstruction addi = isa::decode(plan.new_words[plan.slot(plan.new_pc(auipc_old_pc + 4))]);
  EXPECT_EQ(auipc.opcode, Op::kAuipc);
  EXPECT_EQ(addi.opcode, Op::kAddi);
  return pc + static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(auipc.imm << 12)))) +
         static_cast<uint64_t>(addi.imm);
}

TEST(Rewrite, AuipcPairsKeepTheirAddressWhenMovedOrShifted) {
  const BuiltPcRel p = build_pcrel(false);
  for (const std::vector<analyze::CodeMove>& moves :
       {std::vector<analyze::CodeMove>{{p.la, p.before_pc}}, std::vector<analyze::CodeMove>{{{p.after_pc}, p.before_pc}}}) {
    const RewritePlan plan = plan_moves(p.input, moves);
    ASSERT_TRUE(plan.valid) << plan.problem;
    EXPECT_NE(plan.new_pc(p.la[0]), p.la[0]);
    EXPECT_GT(plan.reencoded_words, 0u);
    EXPECT_EQ(la_value(plan, p.la[0]), kDataAddress);
    const analyze::Verification v = verify(p.input, moves, {});
    EXPECT_TRUE(v.legal) << v.illegal_reason;
    EXPECT_TRUE(v.final_state_matched);  // x13 and the loaded x16 as on the device
  }
}

TEST(Rewrite, AuipcWithAUseThatCannotBeReencodedIsRejected) {
  const BuiltPcRel p = build_pcrel(true);
  const RewritePlan plan = plan_moves(p.input, {{p.la, p.before_pc}});
  EXPECT_FALSE(plan.valid);
  EXPECT_NE(plan.problem.find("is used by pc"), std::string::npos) << plan.problem;
  EXPECT_NE(plan.problem.find("(add "), std::string::npos) << plan.problem;
}

TEST(Rewrite, StaticRejections) {
  const BuiltA a = build_a({.untaken_branch = true});
  EXPECT_NE(plan_moves(a.input, {{{a.branch_pc}, a.before_pc}}).problem.find("changes control flow"), std::string::npos);
  EXPECT_NE(plan_moves(a.input, {{{a.before_pc}, a.dma2_pc}}).problem.find("does not come after"), std::string::npos);
  EXPECT_NE(plan_moves(a.input, {{{a.dma2_pc}, 0x4}}).problem.find("not in the recorded code"), std::string::npos);
  EXPECT_NE(plan_moves(a.input, {{{a.dma2_pc, a.dma2_pc}, a.before_pc}}).problem.find("listed twice"), std::string::npos);
  // before_pc listed among the moved pcs: the group starts where it was.
  std::vector<uint64_t> with_anchor{a.before_pc};
  with_anchor.insert(with_anchor.end(), a.moved.begin(), a.moved.end());
  const RewritePlan plan = plan_moves(a.input, {{with_anchor, a.before_pc}});
  ASSERT_TRUE(plan.valid) << plan.problem;
  EXPECT_EQ(plan.new_pc(a.before_pc), a.before_pc);
  EXPECT_EQ(plan.new_pc(a.moved.front()), a.before_pc + 4);
  EXPECT_EQ(plan.new_pc(a.before_pc + 4), a.before_pc + 4 * with_anchor.size());
}

TEST(Rewrite, ABranchIntoTheRewrittenRegionIsRejected) {
  Builder p;
  assembler::ProgramBuilder& b = p.b;
  b.li(21, 3);
  const uint64_t before = p.pc();
  b.i(Op::kAddi, 20, 20, 1);
  assembler::ProgramBuilder::Label loop = b.new_label();
  b.bind(loop);
  b.i(Op::kAddi, 21, 21, -1);
  b.branch(Op::kBne, 21, 0, loop);
  const uint64_t moved = p.pc();
  b.i(Op::kAddi, 22, 0, 1);
  b.li(15, 0);
  b.exit(15);
  const replay::ReplayInput input = capture(sim::program_from_builder(b, "loop"), 1, {});
  const analyze::Verification v = verify(input, {{{moved}, before}}, {});
  EXPECT_FALSE(v.legal);
  EXPECT_NE(v.illegal_reason.find("(bnez s5,10008) branches to pc 0x10008"), std::string::npos) << v.illegal_reason;
  EXPECT_NE(v.illegal_reason.find("out of the middle of the rewritten region 0x10004-0x10014"), std::string::npos)
      << v.illegal_reason;
}

// Three chains of three dependent DMAs, like the compiled all-gather's
// setup: level 1 fetches a descriptor from HBM into SMEM, levels 2 and 3
// load the address the previous level brought in and fetch from there.
constexpr uint64_t kScratch = 0x100000;
constexpr uint64_t kResult = 0x200000;

struct Chains {
  replay::ReplayInput input;
  std::map<std::pair<int, int>, std::vector<uint64_t>> issue;  // (chain, level) -> pcs
  std::map<std::pair<int, int>, uint64_t> wait;
  std::vector<analyze::CodeMove> level_by_level;
};

Chains build_chains(bool shared_registers, bool shared_semaphore) {
  Builder p;
  assembler::ProgramBuilder& b = p.b;
  Chains out;
  auto regs = [shared_registers](int g) {
    static constexpr uint8_t kRegs[3][3] = {{5, 6, 7}, {8, 9, 18}, {19, 20, 21}};
    return shared_registers ? kRegs[0] : kRegs[g];
  };
  auto sem = [shared_semaphore](int g) { return static_cast<uint8_t>(shared_semaphore ? 1 : 1 + g); };
  auto scratch = [](int g, int level) { return kScratch + static_cast<uint64_t>(g * 3 + level) * 0x40; };
  for (int g = 0; g < 3; ++g) {
    for (int level = 1; level <= 3; ++level) {
      const uint8_t* r = regs(g);
      out.issue[{g, level}] = p.group([&] {
        if (level == 1) {
          b.li(r[0], static_cast<int64_t>(isa::kHbmBase + static_cast<uint64_t>(g) * 0x100));
        } else {
          b.li(r[0], static_cast<int64_t>(scratch(g, level - 1)));
          b.i(Op::kLd, r[0], r[0], 0);
        }
        b.li(r[1], static_cast<int64_t>(level == 3 ? kResult + static_cast<uint64_t>(g) * 0x100 : scratch(g, level)));
        b.li(r[2], level == 3 ? 64 : 8);
        b.dma(r[1], r[0], r[2], sem(g));
      });
      out.wait[{g, level}] = p.pc();
      b.sem_wait(sem(g), 1);
    }
  }
  b.li(15, 0);
  b.exit(15);
  std::vector<replay::SavedMemory> memory;
  for (uint64_t g = 0; g < 3; ++g) {
    memory.push_back({isa::kHbmBase + g * 0x100, bytes_of(isa::kHbmBase + 0x1000 + g * 0x100)});
    memory.push_back({isa::kHbmBase + 0x1000 + g * 0x100, bytes_of(isa::kHbmBase + 0x2000 + g * 0x100)});
    memory.push_back({isa::kHbmBase + 0x2000 + g * 0x100, std::string(64, static_cast<char>('a' + g))});
  }
  out.input = capture(sim::program_from_builder(b, "chains"), 1, memory);
  // Level 1: the other heads go right after chain 0's head; levels 2, 3:
  // each chain's wait for the previous level and its next issue go right
  // after chain 0's issue of that level.
  for (int g = 1; g < 3; ++g) out.level_by_level.push_back({out.issue[{g, 1}], out.wait[{0, 1}]});
  for (int level = 2; level <= 3; ++level) {
    for (int g = 1; g < 3; ++g) {
      std::vector<uint64_t> pcs{out.wait[{g, level - 1}]};
      for (uint64_t pc : out.issue[{g, level}]) pcs.push_back(pc);
      out.level_by_level.push_back({pcs, out.wait[{0, level}]});
    }
  }
  return out;
}

uint64_t all_stalls(const ReplaySummary& summary) {
  uint64_t total = 0;
  for (const DmaStallSample& dma : summary.dmas) total += dma.wait_stall_cycles;
  return total;
}

TEST(Rewrite, DependentChainsRewrittenLevelByLevelCutTheirStallsThreefold) {
  const Chains chains = build_chains(false, false);
  const RewritePlan plan = plan_moves(chains.input, chains.level_by_level);
  ASSERT_TRUE(plan.valid) << plan.problem;
  const LegalityResult legality = check_legality(chains.input, plan);
  ASSERT_TRUE(legality.legal) << legality.reason;
  EXPECT_EQ(legality.span_traversals, 1u);

  const ReplaySummary before = replay_summary(chains.input, {});
  const ReplaySummary after = replay_summary(apply_plan(chains.input, plan), {});
  EXPECT_TRUE(after.final_state_problems.empty());
  ASSERT_EQ(before.dmas.size(), 9u);
  ASSERT_EQ(after.dmas.size(), 9u);
  const double ratio = static_cast<double>(all_stalls(before)) / static_cast<double>(all_stalls(after));
  EXPECT_GT(ratio, 2.5) << all_stalls(before) << " -> " << all_stalls(after);
  EXPECT_LT(ratio, 3.5) << all_stalls(before) << " -> " << all_stalls(after);

  const analyze::Verification v = verify(chains.input, before, chains.level_by_level, {});
  ASSERT_TRUE(v.legal) << v.illegal_reason;
  EXPECT_TRUE(v.final_state_matched);
  EXPECT_EQ(v.baseline_cycles, before.total_cycles);
  EXPECT_EQ(v.rewritten_cycles, after.total_cycles);
  EXPECT_GT(v.measured_saving_cycles, 0);
  EXPECT_LT(v.target_stall_cycles_after * 4, v.target_stall_cycles_before);
}

// Two moved DMAs that one WAIT consumes share its stall, as snr analyze
// charges them: a WAIT from cycle 50 to 150 on DMAs ending at 100 and 150
// charges 50 each. Each used to be charged its own overlap (50 and 100),
// so "moved DMAs' wait stalls" counted 150 cycles of a 100-cycle stall (a
// one-chip 555-cycle window reported 1061).
TEST(Rewrite, DmasOfOneWaitShareItsStall) {
  rundb::DmaRecord first;
  first.waited = true;
  first.wait_step = 7;
  first.base_done_cycle = 20;
  first.transfer_end_cycle = 100;
  first.wait_start_cycle = 50;
  first.wait_end_cycle = 150;
  rundb::DmaRecord second = first;
  second.base_done_cycle = 21;
  second.transfer_end_cycle = 150;
  rundb::DmaRecord elsewhere = second;  // the same cycles, another WAIT
  elsewhere.wait_step = 9;
  rundb::DmaRecord unwaited;
  EXPECT_EQ(metrics::charged_wait_stall_cycles({first, second, elsewhere, unwaited}), (std::vector<uint64_t>{50, 50, 100, 0}));
}

// The light replay verification uses agrees with the full replay and its
// run data: same cycles, same DMAs (by issuing pc), same wait stalls.
TEST(Rewrite, LightReplayAgreesWithTheFullReplay) {
  const Chains chains = build_chains(false, false);
  const replay::ReplayResult full = replay::run_replay(chains.input, {});
  const ReplaySummary light = measure_replay(chains.input, {});
  EXPECT_EQ(light.total_cycles, full.data.total_cycles);
  EXPECT_TRUE(light.final_state_problems.empty());
  ASSERT_EQ(light.dmas.size(), full.data.dmas.size());
  uint64_t full_stalls = 0;
  const std::vector<uint64_t> charged = metrics::charged_wait_stall_cycles(full.data.dmas);
  for (size_t i = 0; i < full.data.dmas.size(); ++i) {
    EXPECT_EQ(light.dmas[i].issue_pc, full.data.dmas[i].pc);
    EXPECT_EQ(light.dmas[i].wait_stall_cycles, charged[i]);
    full_stalls += charged[i];
  }
  EXPECT_GE(full_stalls, 9u * 100u);  // nine dependent DMAs, 100 cycles base latency each
  // A different end state is reported, not hidden.
  replay::ReplayInput wrong = chains.input;
  wrong.chips[0].end.x[5] ^= 1;
  EXPECT_EQ(measure_replay(wrong, {}).final_state_problems.size(), 1u);
}

// Today's compiled setup: one semaphore and one register set for all
// chains. The shared semaphore forbids the interleaving; the shared
// registers no longer do: each chain's level computes its address in
// x5-x7 and its ISSUE consumes them, so the interleaved groups' values
// never overlap, which is what renaming each group's registers would give.
// (Before renaming this was rejected: "breaks WAW on x5".)
TEST(Rewrite, ChainsReusingScratchRegistersInterleaveThroughRenaming) {
  const Chains shared_registers = build_chains(true, false);
  const ReplaySummary before = replay_summary(shared_registers.input, {});
  const analyze::Verification v = verify(shared_registers.input, before, shared_registers.level_by_level, {});
  ASSERT_TRUE(v.legal) << v.illegal_reason;
  EXPECT_TRUE(v.final_state_matched);
  EXPECT_GT(v.measured_saving_cycles, 0);
  EXPECT_LT(v.target_stall_cycles_after * 2, v.target_stall_cycles_before);
  // The same saving as with a register set per chain.
  const Chains distinct = build_chains(false, false);
  const analyze::Verification d = verify(distinct.input, distinct.level_by_level, {});
  ASSERT_TRUE(d.legal) << d.illegal_reason;
  EXPECT_EQ(v.measured_saving_cycles, d.measured_saving_cycles);
}

TEST(Rewrite, ChainsSharingASemaphoreCannotBeInterleaved) {
  const analyze::Verification both = verify(build_chains(true, true).input, build_chains(true, true).level_by_level, {});
  EXPECT_FALSE(both.legal);
  EXPECT_NE(both.illegal_reason.find("on semaphore 1"), std::string::npos) << both.illegal_reason;

  const Chains shared_semaphore = build_chains(false, true);
  const RewritePlan plan = plan_moves(shared_semaphore.input, shared_semaphore.level_by_level);
  ASSERT_TRUE(plan.valid) << plan.problem;
  const LegalityResult legality = check_legality(shared_semaphore.input, plan);
  EXPECT_FALSE(legality.legal);
  EXPECT_NE(legality.reason.find("on semaphore 1"), std::string::npos) << legality.reason;
  EXPECT_NE(legality.reason.find("dma.issue"), std::string::npos) << legality.reason;
}

// Chip 1 reads its buffer, then tells chip 0 it is free; chip 0 waits for
// that before its DMA overwrites the buffer. The DMA may not move above the
// wait, although the two touch different semaphores and chip 0 nothing else.
TEST(Rewrite, ARemoteDmaCannotMoveAboveAWaitForAnotherChip) {
  Builder p;
  assembler::ProgramBuilder& b = p.b;
  b.csr_read(5, isa::kCsrMhartid);
  assembler::ProgramBuilder::Label chip1 = b.new_label(), end = b.new_label();
  b.branch(Op::kBne, 5, 0, chip1);
  const uint64_t wait_free = p.pc();
  b.sem_wait(2, 1);
  const std::vector<uint64_t> dma = p.group([&] {
    b.li(6, static_cast<int64_t>(isa::make_remote_address(1, kVmemB)));
    b.li(7, static_cast<int64_t>(kHbmA));
    b.li(8, 4096);
    b.dma(6, 7, 8, 1);
  });
  b.sem_wait(1, 1);
  b.jump(end);
  b.bind(chip1);
  b.li(9, static_cast<int64_t>(kVmemB));
  b.vld(1, 9, 0);
  b.li(10, 0);
  b.sem_signal_remote(2, 10, 1);
  b.sem_wait(1, 1);
  b.bind(end);
  b.li(15, 0);
  b.exit(15);
  const replay::ReplayInput input = capture(sim::program_from_builder(b, "two-chips"), 2, {{kHbmA, std::string(4096, '\x33')}});
  const analyze::Verification v = verify(input, {{dma, wait_free}}, {});
  EXPECT_FALSE(v.legal);
  EXPECT_NE(v.illegal_reason.find("chip 0: moving pc"), std::string::npos) << v.illegal_reason;
  EXPECT_NE(v.illegal_reason.find("breaks the cross-chip order: the sem.wait waits for another chip's signal"),
            std::string::npos)
      << v.illegal_reason;
}

TEST(Rewrite, MovesFileRoundTripsAndRejectsMistakes) {
  const std::vector<analyze::CodeMove> moves =
      parse_moves_json(R"({"moves": [{"pcs": ["0x10040", 65604], "before_pc": "65552"}]})", "m.json");
  ASSERT_EQ(moves.size(), 1u);
  EXPECT_EQ(moves[0].pcs, (std::vector<uint64_t>{0x10040, 0x10044}));
  EXPECT_EQ(moves[0].before_pc, 0x10010u);
  const std::vector<analyze::CodeMove> again = parse_moves_json(moves_to_json(moves), "again");
  EXPECT_EQ(again[0].pcs, moves[0].pcs);
  EXPECT_EQ(again[0].before_pc, moves[0].before_pc);
  auto error_of = [](std::string_view text) {
    try {
      parse_moves_json(text, "m.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("{").find("m.json: line 1, column 2 (byte 1)"), std::string::npos);
  EXPECT_EQ(error_of(R"({"moves": [{"pcs": [], "before_pc": 1}]})"), "m.json: move 1: \"pcs\" must be a non-empty array");
  EXPECT_EQ(error_of(R"({"moves": [{"pcs": ["0x1g"], "before_pc": 1}]})"), "m.json: move 1: pcs[0]: \"0x1g\" is not a pc");
  EXPECT_EQ(error_of(R"({"moves": [{"pcs": [4]}]})"), "m.json: move 1: \"before_pc\" is missing");
  EXPECT_EQ(error_of(R"({"move": []})"), "m.json: expected an object with a \"moves\" array");
}

}  // namespace
}  // namespace snr::rewrite
