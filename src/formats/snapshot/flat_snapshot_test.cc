// Flat-address-space snapshots (a foreign RV64 process): the sparse pages
// and the recorded system calls survive a round trip through the file, and
// malformed ones are rejected with a message naming what is wrong.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "formats/snapshot/shared_snapshot.h"
#include "formats/snapshot/snapshot.h"
#include "isa/isa.h"

namespace snr::snapshot {
namespace {

constexpr uint64_t kText = 0x10000;
constexpr uint64_t kStack = 0x4000800000;  // qemu-riscv64's stack region

void add_pages(pb::Chip& chip, uint64_t address, uint64_t length) {
  pb::Interval* range = chip.add_pages();
  range->set_address(address);
  range->set_length(length);
}

// Three instructions (addi, ecall, addi) whose ecall is a recorded write.
Snapshot flat_sample() {
  Snapshot s;
  s.header.set_isa_hash(isa::isa_table_hash());
  s.header.set_hw_config_yaml("chips: 1\n");
  s.header.set_chip_count(1);
  s.header.add_recorded_chips(0);
  s.header.set_address_space(pb::ADDRESS_SPACE_FLAT);
  s.header.mutable_stats()->set_instructions(3);
  std::string schedule;
  append_varint(schedule, 0);
  append_varint(schedule, 3);
  s.header.set_schedule(schedule);
  pb::Chip& chip = s.chips.emplace_back();
  chip.set_chip(0);
  chip.set_recorded(true);
  const std::vector<uint64_t> pcs = {kText, kText + 4, kText + 8};
  chip.set_first_pc(pcs[0]);
  chip.set_instruction_count(pcs.size());
  chip.set_pc_deltas(encode_pc_deltas(pcs));
  pb::CodeRange* code = chip.add_code();
  code->set_address(kText);
  code->set_data(std::string("\x13\x00\x00\x00\x73\x00\x00\x00\x13\x00\x00\x00", 12));
  add_pages(chip, kText, kFlatPageBytes);
  add_pages(chip, kStack, 2 * kFlatPageBytes);
  pb::MemoryRegion* region = chip.add_memory();
  region->set_space(pb::SPACE_FLAT);
  region->set_address(kStack + kFlatPageBytes - 8);  // across the two stack pages
  region->set_data("sixteen bytes!!!");
  pb::Syscall* call = chip.add_syscalls();
  call->set_instruction(1);
  call->set_number(63);
  for (uint64_t arg : {uint64_t{0}, kStack + 64, uint64_t{5}}) call->add_args(arg);
  call->set_result(5);
  pb::MemoryRegion* written = call->add_written();
  written->set_space(pb::SPACE_FLAT);
  written->set_address(kStack + 64);
  written->set_data("hello");
  for (int i = 0; i < 32; ++i) chip.mutable_final_state()->add_x(0);
  return s;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

std::string problems_of(const Snapshot& s) {
  // Through the file, as `snr snapshot validate` reads it.
  const Snapshot back = decode_snapshot(bytes_of(encode_snapshot(s)), "flat.snr").value();
  std::string all;
  for (const std::string& p : validate_snapshot(back)) all += p + "\n";
  return all;
}

TEST(FlatSnapshot, PagesAndSyscallsRoundTrip) {
  const Snapshot original = flat_sample();
  const std::string encoded = encode_snapshot(original);
  const Snapshot back = decode_snapshot(bytes_of(encoded), "flat.snr").value();
  EXPECT_EQ(back.header.address_space(), pb::ADDRESS_SPACE_FLAT);
  ASSERT_EQ(back.chips.size(), 1u);
  EXPECT_EQ(back.chips[0].SerializeAsString(), original.chips[0].SerializeAsString());
  ASSERT_EQ(back.chips[0].pages_size(), 2);
  EXPECT_EQ(back.chips[0].pages(1).address(), kStack);
  ASSERT_EQ(back.chips[0].syscalls_size(), 1);
  EXPECT_EQ(back.chips[0].syscalls(0).written(0).data(), "hello");
  EXPECT_EQ(validate_snapshot(back), std::vector<std::string>{});
  // The replay's in-place decoding sees the same regions and finds them valid.
  const SharedSnapshot shared = decode_snapshot_shared(bytes_of(encoded), "flat.snr").value();
  ASSERT_EQ(shared.memory.size(), 1u);
  ASSERT_EQ(shared.memory[0].size(), 1u);
  EXPECT_EQ(shared.memory[0][0].space, pb::SPACE_FLAT);
  EXPECT_EQ(shared.memory[0][0].address, kStack + kFlatPageBytes - 8);
  EXPECT_EQ(validate_shared_snapshot(shared), std::vector<std::string>{});
  EXPECT_TRUE(inside_pages(back.chips[0], kStack + 10, 2 * kFlatPageBytes - 10));
  EXPECT_FALSE(inside_pages(back.chips[0], kStack + 10, 2 * kFlatPageBytes));
  EXPECT_FALSE(inside_pages(back.chips[0], kText + kFlatPageBytes, 1));
}

TEST(FlatSnapshot, RejectsOverlappingPages) {
  Snapshot s = flat_sample();
  add_pages(s.chips[0], kStack + kFlatPageBytes, kFlatPageBytes);
  const std::string all = problems_of(s);
  EXPECT_NE(all.find("chip 0 page range 2: overlapping pages"), std::string::npos) << all;
}

TEST(FlatSnapshot, RejectsUnalignedAndEmptyPages) {
  Snapshot s = flat_sample();
  s.chips[0].mutable_pages(0)->set_length(100);
  EXPECT_NE(problems_of(s).find("page range 0: [0x10000, +0x64) is empty or not whole 4096-byte pages"),
            std::string::npos) << problems_of(s);
}

TEST(FlatSnapshot, RejectsHugeCounts) {
  Snapshot s = flat_sample();
  add_pages(s.chips[0], uint64_t{1} << 40, (kMaxFlatPages + 1) * kFlatPageBytes);
  std::string all = problems_of(s);
  EXPECT_NE(all.find("more than the limit of 1048576 pages"), std::string::npos) << all;

  s = flat_sample();
  s.chips[0].mutable_syscalls(0)->set_instruction(1000);
  all = problems_of(s);
  EXPECT_NE(all.find("system call 0: instruction 1000 is past the 3 recorded instructions"), std::string::npos) << all;

  s = flat_sample();
  for (int i = 0; i < 4; ++i) s.chips[0].mutable_syscalls(0)->add_args(0);
  all = problems_of(s);
  EXPECT_NE(all.find("system call 0: 7 arguments, at most 6"), std::string::npos) << all;
}

TEST(FlatSnapshot, RejectsBadAddresses) {
  Snapshot s = flat_sample();
  s.chips[0].mutable_memory(0)->set_address(uint64_t{1} << 60);
  std::string all = problems_of(s);
  EXPECT_NE(all.find("chip 0 memory region 0: bad address: [0x1000000000000000"), std::string::npos) << all;

  s = flat_sample();
  add_pages(s.chips[0], kFlatAddressLimit - kFlatPageBytes, 2 * kFlatPageBytes);
  all = problems_of(s);
  EXPECT_NE(all.find("page range 2: bad address"), std::string::npos) << all;

  s = flat_sample();
  s.chips[0].mutable_memory(0)->set_address(kStack + 2 * kFlatPageBytes);  // just past the stack pages
  all = problems_of(s);
  EXPECT_NE(all.find("memory region 0: [0x4000802000, 0x4000802010) is not inside the chip's pages"),
            std::string::npos) << all;

  s = flat_sample();
  s.chips[0].mutable_syscalls(0)->mutable_written(0)->set_address(0x20000);
  all = problems_of(s);
  EXPECT_NE(all.find("system call 0 written region 0: [0x20000, 0x20005) is not inside the chip's pages"),
            std::string::npos) << all;
}

TEST(FlatSnapshot, RejectsSyscallsThatAreNotAtAnEcall) {
  Snapshot s = flat_sample();
  s.chips[0].mutable_syscalls(0)->set_instruction(2);
  const std::string all = problems_of(s);
  EXPECT_NE(all.find("system call 0: the instruction at pc 0x10008 is not an ecall"), std::string::npos) << all;
}

TEST(FlatSnapshot, CompressedInstructionsNeedOnlyTheirTwoBytes) {
  Snapshot s = flat_sample();
  // The last instruction becomes a 2-byte c.nop: 10 bytes of code suffice.
  s.chips[0].mutable_code(0)->set_data(std::string("\x13\x00\x00\x00\x73\x00\x00\x00\x01\x00", 10));
  EXPECT_EQ(problems_of(s), "");
  // A 4-byte instruction cut short by the end of its range is not covered.
  s.chips[0].mutable_code(0)->set_data(std::string("\x13\x00\x00\x00\x73\x00\x00\x00\x13\x00", 10));
  std::string all = problems_of(s);
  EXPECT_NE(all.find("instruction 2 at pc 0x10008 is not in any saved code range"), std::string::npos) << all;
  // Halfword alignment is required, and an NPU snapshot still needs whole words.
  s = flat_sample();
  s.chips[0].set_first_pc(kText + 1);
  all = problems_of(s);
  EXPECT_NE(all.find("instruction 0 at pc 0x10001 is misaligned"), std::string::npos) << all;
}

TEST(FlatSnapshot, KeepsTheAddressSpacesApart) {
  Snapshot s = flat_sample();
  s.header.set_address_space(pb::ADDRESS_SPACE_NPU);
  std::string all = problems_of(s);
  EXPECT_NE(all.find("pages and system calls belong to flat-address-space snapshots only"), std::string::npos) << all;
  EXPECT_NE(all.find("SPACE_FLAT region at 0x4000800ff8 in a snapshot with the NPU address space"),
            std::string::npos) << all;

  s = flat_sample();
  s.chips[0].mutable_memory(0)->set_space(pb::SPACE_HBM);
  all = problems_of(s);
  EXPECT_NE(all.find("a flat-address-space snapshot holds only SPACE_FLAT regions, found SPACE_HBM"),
            std::string::npos) << all;

  s = flat_sample();
  s.header.set_address_space(static_cast<pb::AddressSpace>(7));
  all = problems_of(s);
  EXPECT_NE(all.find("header: unknown address space 7"), std::string::npos) << all;
}

}  // namespace
}  // namespace snr::snapshot
