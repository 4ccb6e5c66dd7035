// Records ordinary Linux programs from qemu-riscv64 on QEMU's own stack
// (no stack moved into .bss): a deep recursion, a window full of system
// calls (write, brk, mmap), and a -O2 program linked statically against
// glibc, with one window in its own code and one inside the library's
// compressed qsort. Each is built at test time with Debian's cross gcc,
// recorded, then re-executed in the simulator and replayed under the timing
// model, which must retire the same pc sequence and reach the same
// registers and memory. Skipped when the tools are missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "common/error.h"
#include "record/qemu_test_support.h"
#include "record/reexecute.h"
#include "replay/replayer.h"

namespace snr::record {
namespace {

namespace pb = snapshot::pb;

constexpr const char* kNoLibc = "-march=rv64im -mabi=lp64 -static -nostdlib -fno-pie -no-pie -Wl,--no-warn-rwx-segments";

bool have_qemu_and_gcc() { return qemu_test::have("qemu-riscv64") && qemu_test::have("riscv64-linux-gnu-gcc"); }

// Re-executes `snapshot` and expects an exact match over `instructions`.
void expect_reexecutes(const snapshot::Snapshot& snapshot, uint64_t instructions) {
  const std::vector<std::string> invalid = snapshot::validate_snapshot(snapshot);
  EXPECT_TRUE(invalid.empty()) << (invalid.empty() ? "" : invalid.front());
  const CheckResult result = check_snapshot(snapshot);
  std::string problems;
  for (const std::string& p : result.problems) problems += p + "\n";
  EXPECT_TRUE(result.matched) << problems;
  EXPECT_EQ(result.instructions, instructions);
  // The timing replay (with the performance tracker) runs the same window
  // on the same sparse pages with the same injected system calls.
  const replay::ReplayResult replayed =
      replay::run_replay(replay::replay_input_from_snapshot(snapshot, "qemu window"), replay::ReplayOptions{});
  EXPECT_EQ(replayed.instructions, instructions);
  std::string replay_problems;
  for (const std::string& p : replayed.final_state_problems) replay_problems += p + "\n";
  EXPECT_TRUE(replayed.final_state_problems.empty()) << replay_problems;
}

// The highest page the window touched: QEMU's stack sits far above the text.
uint64_t highest_page(const pb::Chip& chip) {
  uint64_t highest = 0;
  for (const pb::Interval& range : chip.pages()) highest = std::max(highest, range.address() + range.length());
  return highest;
}

TEST(QemuPrograms, DeepRecursionOnQemusStackReexecutesExactly) {
  if (!have_qemu_and_gcc()) GTEST_SKIP() << "qemu-riscv64 or riscv64-linux-gnu-gcc is not installed";
  const qemu_test::ScratchDir dir("qemu_recursion");
  const std::string elf = (dir.path() / "recursion.elf").string();
  qemu_test::build_program("recursion.c", std::string(kNoLibc) + " -O1", elf);
  constexpr uint64_t kCount = 15000;
  const snapshot::Snapshot snapshot = qemu_test::record_from_qemu(elf, "walk", kCount);
  ASSERT_EQ(snapshot.header.address_space(), pb::ADDRESS_SPACE_FLAT);
  ASSERT_EQ(snapshot.chips.size(), 1u);
  const pb::Chip& chip = snapshot.chips[0];
  EXPECT_EQ(chip.instruction_count(), kCount);
  EXPECT_GT(highest_page(chip), uint64_t{1} << 32) << "the stack should be QEMU's, far above the program";
  // Hundreds of 80-byte frames: the stack spans many pages.
  uint64_t page_bytes = 0;
  for (const pb::Interval& range : chip.pages()) page_bytes += range.length();
  EXPECT_GE(page_bytes, 8 * snapshot::kFlatPageBytes);
  expect_reexecutes(snapshot, kCount);
}

TEST(QemuPrograms, SystemCallsInsideTheWindowAreInjected) {
  if (!have_qemu_and_gcc()) GTEST_SKIP() << "qemu-riscv64 or riscv64-linux-gnu-gcc is not installed";
  const qemu_test::ScratchDir dir("qemu_syscalls");
  const std::string elf = (dir.path() / "syscalls.elf").string();
  qemu_test::build_program("syscalls.c", std::string(kNoLibc) + " -O2", elf);
  // More than the program runs: the window ends just before its exit.
  const snapshot::Snapshot snapshot = qemu_test::record_from_qemu(elf, "work", 200000);
  ASSERT_EQ(snapshot.chips.size(), 1u);
  const pb::Chip& chip = snapshot.chips[0];
  EXPECT_EQ(chip.final_state().end(), "exit");
  int writes = 0, brks = 0, mmaps = 0;
  for (const pb::Syscall& call : chip.syscalls()) {
    writes += call.number() == 64;
    brks += call.number() == 214;
    mmaps += call.number() == 222;
    if (call.number() == 64) {
      EXPECT_EQ(call.result(), call.args(2)) << "write returns the length written";
    }
  }
  EXPECT_EQ(writes, 40);
  EXPECT_EQ(brks, 2);
  EXPECT_EQ(mmaps, 1);
  expect_reexecutes(snapshot, chip.instruction_count());
}

TEST(QemuPrograms, AnUnknownSystemCallIsRefusedByNumberAndPc) {
  if (!have_qemu_and_gcc()) GTEST_SKIP() << "qemu-riscv64 or riscv64-linux-gnu-gcc is not installed";
  const qemu_test::ScratchDir dir("qemu_refused");
  const std::string elf = (dir.path() / "syscalls.elf").string();
  qemu_test::build_program("syscalls.c", std::string(kNoLibc) + " -O2", elf);
  try {
    qemu_test::record_from_qemu(elf, "refused", 100);
    FAIL() << "sched_getaffinity (123) should not record";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("system call 123 (a7) is not one whose effects the recorder knows"), std::string::npos)
        << what;
    EXPECT_NE(what.find(" pc 0x"), std::string::npos) << what;
    EXPECT_NE(what.find("ecall"), std::string::npos) << what;
  }
}

TEST(QemuPrograms, GlibcProgramAtO2ReexecutesExactly) {
  if (!have_qemu_and_gcc() || !qemu_test::have_riscv_glibc()) {
    GTEST_SKIP() << "qemu-riscv64, riscv64-linux-gnu-gcc or its glibc (libc6-dev-riscv64-cross) is not installed";
  }
  const qemu_test::ScratchDir dir("qemu_glibc");
  const std::string elf = (dir.path() / "libc_sort.elf").string();
  // The C library is rv64gc; this file is built without compressed code so
  // the window (inside work(), which calls no library function) decodes.
  qemu_test::build_program("libc_sort.c", "-march=rv64imfd -mabi=lp64d -static -O2 -fno-tree-loop-distribute-patterns",
                         elf);
  constexpr uint64_t kCount = 12000;
  const snapshot::Snapshot snapshot = qemu_test::record_from_qemu(elf, "work", kCount);
  ASSERT_EQ(snapshot.chips.size(), 1u);
  EXPECT_GT(highest_page(snapshot.chips[0]), uint64_t{1} << 32);
  expect_reexecutes(snapshot, kCount);
}

TEST(QemuPrograms, WindowInsideGlibcsCompressedQsortReexecutesExactly) {
  if (!have_qemu_and_gcc() || !qemu_test::have_riscv_glibc()) {
    GTEST_SKIP() << "qemu-riscv64, riscv64-linux-gnu-gcc or its glibc (libc6-dev-riscv64-cross) is not installed";
  }
  const qemu_test::ScratchDir dir("qemu_qsort");
  const std::string elf = (dir.path() / "libc_sort.elf").string();
  qemu_test::build_program("libc_sort.c", "-march=rv64imfd -mabi=lp64d -static -O2 -fno-tree-loop-distribute-patterns",
                         elf);
  // glibc's qsort (merge sort through a stack buffer) is rv64gc code and
  // calls compare_desc() back: the window mixes 2- and 4-byte instructions.
  constexpr uint64_t kCount = 8000;
  const snapshot::Snapshot snapshot = qemu_test::record_from_qemu(elf, "qsort", kCount);
  ASSERT_EQ(snapshot.chips.size(), 1u);
  const std::vector<uint64_t> pcs = snapshot::decode_pcs(snapshot.chips[0]);
  int compressed_steps = 0;  // straight-line steps of 2 bytes
  for (size_t i = 1; i < pcs.size(); ++i) compressed_steps += pcs[i] == pcs[i - 1] + 2;
  EXPECT_GT(compressed_steps, 100) << "the window should run compressed library code";
  expect_reexecutes(snapshot, kCount);
}

}  // namespace
}  // namespace snr::record
