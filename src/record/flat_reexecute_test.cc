// Re-execution of a flat-address-space snapshot without QEMU: a hand-built
// window of four instructions around a recorded read(2) on a stack far
// above the NPU's map. The kernel's answer is injected, and a program that
// strays from the recording is caught where it strays.
#include <gtest/gtest.h>

#include <cstring>

#include "common/hash.h"
#include "hw/config.h"
#include "record/reexecute.h"
#include "replay/replayer.h"

namespace snr::record {
namespace {

namespace pb = snapshot::pb;

constexpr uint64_t kText = 0x10000;
constexpr uint64_t kStack = 0x4000800000;
constexpr uint64_t kBuffer = kStack + 64;
constexpr uint64_t kSp = kStack + 0x100;

void save_x(pb::Chip& chip, uint32_t index, uint64_t value) {
  pb::RegisterValue* reg = chip.add_registers();
  reg->set_kind(pb::STATE_X);
  reg->set_index(index);
  reg->set_value(std::string(reinterpret_cast<const char*>(&value), 8));
}

// addi a2, zero, 8; ecall (read(0, kBuffer, 8) -> 8, "hellohi!");
// ld t0, 0(a1); sd t0, 8(sp). `compressed`: the first instruction is the
// 2-byte c.li a2, 8 instead, as in a foreign program's rv64gc code.
snapshot::Snapshot window(bool compressed = false) {
  snapshot::Snapshot s;
  hw::HwConfig config = hw::preset("tpu-v4-like");
  hw::apply_overrides(config, {"chips=1"});
  s.header.set_isa_hash(isa::isa_table_hash());
  s.header.set_hw_config_yaml(config.to_yaml());
  s.header.set_chip_count(1);
  s.header.add_recorded_chips(0);
  s.header.set_address_space(pb::ADDRESS_SPACE_FLAT);
  s.header.mutable_stats()->set_instructions(4);
  std::string schedule;
  snapshot::append_varint(schedule, 0);
  snapshot::append_varint(schedule, 4);
  s.header.set_schedule(schedule);
  pb::Chip& chip = s.chips.emplace_back();
  chip.set_chip(0);
  chip.set_recorded(true);
  const uint64_t first = compressed ? 2 : 4;
  const std::vector<uint64_t> pcs = {kText, kText + first, kText + first + 4, kText + first + 8};
  chip.set_first_pc(kText);
  chip.set_instruction_count(pcs.size());
  chip.set_pc_deltas(snapshot::encode_pc_deltas(pcs));
  const uint32_t words[] = {0x00800613, 0x00000073, 0x0005B283, 0x00513423};
  std::string code_bytes(reinterpret_cast<const char*>(words), sizeof words);
  if (compressed) code_bytes.replace(0, 4, std::string("\x21\x46", 2));  // c.li a2, 8
  pb::CodeRange* code = chip.add_code();
  code->set_address(kText);
  code->set_data(code_bytes);
  for (uint64_t page : {kText, kStack}) {
    pb::Interval* range = chip.add_pages();
    range->set_address(page);
    range->set_length(snapshot::kFlatPageBytes);
  }
  save_x(chip, 2, kSp);
  save_x(chip, 10, 0);
  save_x(chip, 11, kBuffer);
  save_x(chip, 17, 63);
  pb::Syscall* call = chip.add_syscalls();
  call->set_instruction(1);
  call->set_number(63);
  for (uint64_t arg : {uint64_t{0}, kBuffer, uint64_t{8}}) call->add_args(arg);
  call->set_result(8);
  pb::MemoryRegion* written = call->add_written();
  written->set_space(pb::SPACE_FLAT);
  written->set_address(kBuffer);
  written->set_data("hellohi!");
  uint64_t loaded = 0;
  std::memcpy(&loaded, "hellohi!", 8);
  pb::FinalState* final_state = chip.mutable_final_state();
  for (uint64_t i = 0; i < 32; ++i) final_state->add_x(0);
  final_state->set_x(2, kSp);
  final_state->set_x(5, loaded);
  final_state->set_x(10, 8);
  final_state->set_x(11, kBuffer);
  final_state->set_x(12, 8);
  final_state->set_x(17, 63);
  final_state->set_pc(kText + first + 12);
  uint64_t hash = kFnvOffsetBasis;
  for (uint64_t address : {kBuffer, kSp + 8}) {
    pb::Interval* interval = final_state->add_written_memory();
    interval->set_address(address);
    interval->set_length(8);
    hash = snapshot::hash_region(hash, address, "hellohi!");
  }
  final_state->set_written_memory_hash(hash);
  return s;
}

std::string problems_of(const CheckResult& result) {
  std::string all;
  for (const std::string& p : result.problems) all += p + "\n";
  return all;
}

TEST(FlatReexecution, InjectsTheRecordedSystemCall) {
  const snapshot::Snapshot s = window();
  ASSERT_EQ(snapshot::validate_snapshot(s), std::vector<std::string>{});
  const CheckResult result = check_snapshot(s);
  EXPECT_TRUE(result.matched) << problems_of(result);
  EXPECT_EQ(result.instructions, 4u);
  const replay::ReplayResult replayed =
      replay::run_replay(replay::replay_input_from_snapshot(s, "flat window"), replay::ReplayOptions{});
  EXPECT_EQ(replayed.instructions, 4u);
  EXPECT_EQ(replayed.final_state_problems, std::vector<std::string>{});
}

TEST(FlatReexecution, CompressedInstructionsRunAtHalfwordPcs) {
  const snapshot::Snapshot s = window(/*compressed=*/true);
  ASSERT_EQ(snapshot::validate_snapshot(s), std::vector<std::string>{});
  const CheckResult result = check_snapshot(s);
  EXPECT_TRUE(result.matched) << problems_of(result);
  EXPECT_EQ(result.instructions, 4u);
  const replay::ReplayResult replayed =
      replay::run_replay(replay::replay_input_from_snapshot(s, "compressed window"), replay::ReplayOptions{});
  EXPECT_EQ(replayed.instructions, 4u);
  EXPECT_EQ(replayed.final_state_problems, std::vector<std::string>{});
}

TEST(FlatReexecution, ACallThatDiffersFromTheRecordingIsADivergence) {
  snapshot::Snapshot s = window();
  s.chips[0].mutable_syscalls(0)->set_number(64);
  CheckResult result = check_snapshot(s);
  EXPECT_FALSE(result.matched);
  EXPECT_NE(problems_of(result).find("the device made call 64, the simulator call 63"), std::string::npos)
      << problems_of(result);

  s = window();
  s.chips[0].mutable_syscalls(0)->set_args(1, kBuffer + 8);
  result = check_snapshot(s);
  EXPECT_NE(problems_of(result).find("argument a1: device 0x4000800048, simulator 0x4000800040"), std::string::npos)
      << problems_of(result);
}

TEST(FlatReexecution, AccessesOutsideTheRecordedPagesFault) {
  snapshot::Snapshot s = window();
  s.chips[0].mutable_registers(0)->set_value(std::string("\x00\x10\x80\x00\x40\x00\x00\x00", 8));  // sp a page up
  const CheckResult result = check_snapshot(s);
  EXPECT_FALSE(result.matched);
  EXPECT_NE(problems_of(result).find("store of 8 bytes at 0x4000801008 is outside the pages the recorded window "
                                     "touched"), std::string::npos) << problems_of(result);
}

}  // namespace
}  // namespace snr::record
