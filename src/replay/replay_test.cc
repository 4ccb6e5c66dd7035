// Replays exact programs captured from functional runs: end state, pc
// checking, determinism, what-if hardware and the exported timeline.
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/scratch_dir.h"
#include "export/perfetto_export.h"
#include "formats/perfetto/trace_validator.h"
#include "formats/rundb/reader.h"
#include "formats/rundb/writer.h"
#include "isa/address_map.h"
#include "replay/program_capture.h"
#include "replay/replayer.h"
#include "asm/program_builder.h"
#include "sim/elf_loader.h"
#include "sim/sim_test_util.h"

namespace snr::replay {
namespace {

using Op = isa::Opcode;
constexpr uint64_t kText = isa::kDefaultTextBase;

std::filesystem::path scratch(const std::string& name) { return snr::testing::scratch_path(name); }

// Every chip: a scalar loop of a0 iterations, then a remote DMA of 6400 B
// from its HBM into the next chip's VMEM (sem 1), a remote signal of the
// next chip's sem 2, waits for its own and the incoming DMA (sem 1 >= 2) and
// the neighbour's signal, loads the received data into v1 and exits.
sim::ProgramImage ring_program(uint32_t chips) {
  assembler::ProgramBuilder b;
  b.csr_read(5, isa::kCsrMhartid);
  auto loop = b.new_label();
  b.li(9, 0);
  b.bind(loop);
  b.i(Op::kAddi, 9, 9, 3);
  b.i(Op::kAddi, 10, 10, -1);
  b.branch(Op::kBne, 10, 0, loop);
  b.i(Op::kAddi, 7, 5, 1);
  b.li(8, chips);
  b.r(Op::kRemu, 7, 7, 8);  // next chip
  b.i(Op::kSlli, 7, 7, isa::kGlobalChipShift);
  b.li(6, static_cast<int64_t>(isa::kGlobalRemoteBit | isa::kVmemBase));
  b.r(Op::kOr, 6, 6, 7);    // next chip's VMEM
  b.li(11, static_cast<int64_t>(isa::kHbmBase));
  b.li(12, 6400);
  b.dma(6, 11, 12, 1);
  b.i(Op::kSrli, 7, 7, isa::kGlobalChipShift);
  b.sem_signal_remote(2, 7, 1);
  b.sem_wait(1, 2);
  b.sem_wait(2, 1);
  b.li(13, static_cast<int64_t>(isa::kVmemBase));
  b.li(14, 512);
  b.vld(1, 13, 14);
  b.vector(Op::kVaddF32, 2, 1, 1);
  b.li(15, 0);
  b.exit(15);
  return sim::program_from_builder(b, "ring");
}

CapturedRun capture_ring(uint32_t chips, int64_t loop_count) {
  return capture_program_run(ring_program(chips), sim::testing::round_number_config(chips),
                             {.initialize = [loop_count](sim::ChipState& chip) {
                                chip.x[10] = static_cast<uint64_t>(loop_count);
                                chip.hbm.write(0, std::vector<uint8_t>(6400, static_cast<uint8_t>(chip.chip_id + 1)));
                              }});
}

TEST(Replay, MultiChipRingReachesTheFunctionalEndState) {
  CapturedRun captured = capture_ring(4, 5);
  // The HBM contents are part of the saved state.
  for (ReplayChip& chip : captured.input.chips) chip.memory.push_back({isa::kHbmBase, std::string(6400, static_cast<char>(chip.chip + 1))});
  ReplayResult result = run_replay(captured.input, {});
  EXPECT_TRUE(result.final_state_problems.empty()) << result.final_state_problems.front();
  for (uint32_t c = 0; c < 4; ++c) {
    const sim::ChipState& expected = captured.system->chip(c);
    const sim::ChipState& actual = result.system->chip(c);
    EXPECT_EQ(actual.x, expected.x) << "chip " << c;
    EXPECT_EQ(actual.pc, expected.pc) << "chip " << c;
    EXPECT_EQ(actual.semaphore, expected.semaphore) << "chip " << c;
    EXPECT_EQ(actual.v[2].element, expected.v[2].element) << "chip " << c;
    // The neighbour's bytes arrived.
    EXPECT_EQ(actual.v[1].element[0], 0x01010101u * ((c + 3) % 4 + 1)) << "chip " << c;
  }
  const rundb::RunData& data = result.data;
  EXPECT_EQ(data.dmas.size(), 4u);
  for (const rundb::DmaRecord& dma : data.dmas) {
    EXPECT_TRUE(dma.waited);
    EXPECT_EQ(dma.bytes, 6400u);
    EXPECT_EQ(dma.src_space, "hbm");
    EXPECT_EQ(dma.dst_space, "vmem");
    EXPECT_EQ(dma.dst_chip, (dma.chip + 1) % 4);
    EXPECT_EQ(dma.src_address, isa::kHbmBase);
    EXPECT_LE(dma.issue_cycle, dma.base_done_cycle);
    EXPECT_LE(dma.transfer_start_cycle, dma.transfer_end_cycle);
  }
  EXPECT_EQ(result.instructions, data.instructions.size());
  uint64_t recorded = 0;
  for (const ReplayChip& chip : captured.input.chips) recorded += chip.pcs.size();
  EXPECT_EQ(result.instructions, recorded);
  bool has_register_edge = false, has_dma_edge = false, has_vmem_edge = false;
  for (const rundb::DependencyRecord& dep : data.dependencies) {
    EXPECT_LT(dep.producer_step, dep.consumer_step);
    has_register_edge |= dep.kind == "x" || dep.kind == "v";
    has_dma_edge |= dep.kind == "dma";
    has_vmem_edge |= dep.kind == "vmem";
  }
  EXPECT_TRUE(has_register_edge);
  EXPECT_TRUE(has_dma_edge);
  EXPECT_TRUE(has_vmem_edge);  // vld reads pages the remote DMA wrote
  EXPECT_FALSE(data.vmem_runs.empty());
  EXPECT_FALSE(data.semaphores.empty());
}

std::string expect_divergence(const ReplayInput& input) {
  try {
    run_replay(input, {});
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "the corrupted input replayed without divergence";
  return "";
}

TEST(Replay, CorruptedRegisterIsCaughtByThePcCheck) {
  CapturedRun captured = capture_ring(2, 5);
  for (SavedState& state : captured.input.chips[1].registers) {
    if (state.kind == snapshot::pb::STATE_X && state.index == 10) state.bytes[0] = 4;  // loop count 5 -> 4
  }
  const std::string message = expect_divergence(captured.input);
  // The fourth bne falls through on chip 1 instead of looping back.
  EXPECT_NE(message.find("replay diverged at step"), std::string::npos) << message;
  EXPECT_NE(message.find("chip 1 instruction"), std::string::npos) << message;
  EXPECT_NE(message.find("expected pc 0x10008"), std::string::npos) << message;
  EXPECT_NE(message.find("addi"), std::string::npos) << message;
}

TEST(Replay, CorruptedInstructionWordIsCaughtByThePcCheck) {
  CapturedRun captured = capture_ring(2, 5);
  // `addi a0, a0, -1` becomes `addi a0, a0, -5`: the loop exits after its
  // first iteration instead of its fifth.
  std::vector<uint32_t>& words = captured.input.code[0].words;
  auto counter = std::find_if(words.begin(), words.end(), [](uint32_t word) {
    const isa::DecodedInstruction d = isa::decode(word);
    return d.opcode == Op::kAddi && d.rd == 10 && d.rs1 == 10;
  });
  ASSERT_NE(counter, words.end());
  isa::DecodedInstruction d = isa::decode(*counter);
  d.imm = -5;
  *counter = isa::encode(d).value();
  const std::string message = expect_divergence(captured.input);
  EXPECT_NE(message.find("replay diverged"), std::string::npos) << message;
  EXPECT_NE(message.find("actual pc"), std::string::npos) << message;
}

// The same capture as a snapshot file (encode, decode, convert), so the
// snapshot adapter is on the tested path; then one instruction word of the
// saved code is altered.
snapshot::Snapshot snapshot_of(const CapturedRun& captured) {
  snapshot::Snapshot snap;
  snap.header.set_format_version(snapshot::kFormatVersion);
  snap.header.set_isa_hash(captured.input.isa_hash);
  snap.header.set_hw_config_yaml(captured.input.hw_config_yaml);
  snap.header.set_chip_count(captured.input.chip_count);
  snap.header.set_chip_sections(static_cast<uint32_t>(captured.input.chips.size()));
  for (const ReplayChip& chip : captured.input.chips) {
    snap.header.add_recorded_chips(chip.chip);
    snapshot::pb::Chip& out = snap.chips.emplace_back();
    out.set_chip(chip.chip);
    out.set_recorded(true);
    for (const SavedState& state : chip.registers) {
      snapshot::pb::RegisterValue* value = out.add_registers();
      value->set_kind(state.kind);
      value->set_index(state.index);
      value->set_value(state.bytes);
    }
    for (const SavedMemory& region : chip.memory) {
      snapshot::pb::MemoryRegion* memory = out.add_memory();
      memory->set_address(region.address);
      memory->set_data(std::string(region.bytes.view()));
    }
    for (const CodeRange& range : captured.input.code) {
      snapshot::pb::CodeRange* code = out.add_code();
      code->set_address(range.address);
      code->set_data(std::string(reinterpret_cast<const char*>(range.words.data()), range.words.size() * 4));
    }
    out.set_first_pc(chip.pcs.front());
    out.set_instruction_count(chip.pcs.size());
    out.set_pc_deltas(snapshot::encode_pc_deltas(chip.pcs));
    snapshot::pb::FinalState* end = out.mutable_final_state();
    end->set_pc(chip.end.pc);
    for (uint64_t x : chip.end.x) end->add_x(x);
    end->set_written_memory_hash(chip.end.written_memory_hash);
  }
  const std::string bytes = snapshot::encode_snapshot(snap);
  return snapshot::decode_snapshot(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
                                   "test snapshot").value();
}

TEST(Replay, SnapshotRoundTripReplaysAndCatchesAnAlteredInstructionWord) {
  CapturedRun captured = capture_ring(2, 4);
  snapshot::Snapshot snap = snapshot_of(captured);
  const ReplayResult good = run_replay(replay_input_from_snapshot(snap, "test"), {});
  EXPECT_TRUE(good.final_state_problems.empty());
  // bne a0, zero, loop  ->  beq a0, zero, loop on chip 0's copy of the code.
  std::string& code = *snap.chips[0].mutable_code(0)->mutable_data();
  for (size_t i = 0; i + 4 <= code.size(); i += 4) {
    uint32_t word = 0;
    std::memcpy(&word, code.data() + i, 4);
    isa::DecodedInstruction d = isa::decode(word);
    if (d.opcode != Op::kBne) continue;
    d.opcode = Op::kBeq;
    word = isa::encode(d).value();
    std::memcpy(code.data() + i, &word, 4);
    for (auto& chip : snap.chips) chip.mutable_code(0)->mutable_data()->replace(i, 4, code.substr(i, 4));
    break;
  }
  const std::string message = expect_divergence(replay_input_from_snapshot(snap, "test"));
  EXPECT_NE(message.find("replay diverged at step"), std::string::npos) << message;
  EXPECT_NE(message.find("expected pc 0x10008"), std::string::npos) << message;  // back to the loop body
}

TEST(Replay, WindowEndingMidProgramStopsEachChipAtItsLastRecordedInstruction) {
  CapturedRun captured = capture_ring(4, 5);
  for (ReplayChip& chip : captured.input.chips) {
    chip.end.pc = chip.pcs[12];
    chip.end.known = false;  // the functional end state is past the window
    chip.pcs.resize(12);
  }
  const ReplayResult result = run_replay(captured.input, {});
  EXPECT_EQ(result.instructions, 48u);
  for (uint32_t c = 0; c < 4; ++c) {
    EXPECT_EQ(result.system->chip(c).pc, captured.input.chips[c].end.pc) << c;
    EXPECT_EQ(result.data.chips[c].instructions, 12u) << c;
  }
}

TEST(Replay, RunDatabaseIsDeterministic) {
  CapturedRun captured = capture_ring(4, 3);
  const auto a = scratch("a.db"), b = scratch("b.db");
  rundb::write_run_db(a.string(), run_replay(captured.input, {}).data);
  rundb::write_run_db(b.string(), run_replay(captured.input, {}).data);
  rundb::RunDbReader ra(a.string()), rb(b.string());
  const std::string dump = rundb::dump_tables(ra, {"replay_wall_ns"});
  EXPECT_EQ(dump, rundb::dump_tables(rb, {"replay_wall_ns"}));
  EXPECT_NE(dump.find("instructions|"), std::string::npos);
}

// Three chains like the all-gather setup phase: on each of three chips an
// initial DMA and two dependent ones (each issued after sem.wait on its
// predecessor), 6400 B HBM -> VMEM, each chip on its own link and memories.
sim::ProgramImage dma_chain_program() {
  assembler::ProgramBuilder b;
  b.li(11, static_cast<int64_t>(isa::kHbmBase));
  b.li(12, 6400);
  for (int link = 0; link < 3; ++link) {
    b.li(13, static_cast<int64_t>(isa::kVmemBase + link * 0x2000));
    b.dma(13, 11, 12, 0);
    b.sem_wait(0, 1);
  }
  b.li(15, 0);
  b.exit(15);
  return sim::program_from_builder(b, "dma-chains");
}

TEST(Replay, HalvingDmaBaseLatencyShortensDependentChainsByTheModelsAmount) {
  CapturedRun captured = capture_program_run(dma_chain_program(), sim::testing::round_number_config(3));
  const ReplayResult slow = run_replay(captured.input, {});
  ReplayOptions what_if;
  what_if.overrides = {"dma.base_latency=50ns"};
  const ReplayResult fast = run_replay(captured.input, what_if);
  ASSERT_EQ(slow.data.dmas.size(), 9u);
  // At 1 GHz the base latency drops from 100 to 50 cycles; a transfer
  // (6400 B at HBM's 64 B/cycle) stays 100 cycles. Each DMA of a chain is
  // issued only after the WAIT on its predecessor, so a chain pays the base
  // latency three times: 3 x (100 - 50) = 150 cycles shorter, on every chip.
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(slow.data.dmas[i].base_done_cycle - slow.data.dmas[i].issue_cycle, 100u) << i;
    EXPECT_EQ(fast.data.dmas[i].base_done_cycle - fast.data.dmas[i].issue_cycle, 50u) << i;
    EXPECT_EQ(slow.data.dmas[i].transfer_end_cycle - slow.data.dmas[i].transfer_start_cycle, 100u) << i;
    EXPECT_EQ(fast.data.dmas[i].transfer_end_cycle - fast.data.dmas[i].transfer_start_cycle, 100u) << i;
  }
  EXPECT_EQ(slow.data.total_cycles - fast.data.total_cycles, 150u);
  for (uint32_t chip = 0; chip < 3; ++chip) {
    EXPECT_EQ(slow.data.chips[chip].last_cycle - fast.data.chips[chip].last_cycle, 150u) << chip;
  }
}

TEST(Replay, ExportedTimelineNestsOnEveryTrack) {
  CapturedRun captured = capture_ring(4, 3);
  const auto db = scratch("timeline.db");
  rundb::write_run_db(db.string(), run_replay(captured.input, {}).data);
  rundb::RunDbReader reader(db.string());
  const std::string json = exporter::build_timeline(reader).render();
  const perfetto::TraceCheck check = perfetto::check_chrome_trace(json);
  EXPECT_TRUE(check.ok()) << check.summary();
  EXPECT_EQ(check.flows, 4u);  // one arrow per DMA to its WAIT
  EXPECT_GT(check.counters, 0u);
  EXPECT_NE(json.find("\"DMA links\""), std::string::npos);
  EXPECT_NE(json.find("unit vector"), std::string::npos);
}

TEST(Replay, SmallerHardwareThanRecordedIsAClearError) {
  CapturedRun captured = capture_ring(2, 1);
  ReplayOptions options;
  options.overrides = {"dma.no_such_key=1"};
  EXPECT_THROW(run_replay(captured.input, options), Error);
  captured.input.isa_hash ^= 1;
  try {
    run_replay(captured.input, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ISA"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace snr::replay
