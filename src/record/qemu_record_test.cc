// Records from a real second stub: qemu-riscv64's gdbstub running an RV64IM
// program built with Debian's cross gcc; skipped when either is missing.
#include <gtest/gtest.h>

#include "record/qemu_test_support.h"
#include "record/reexecute.h"

namespace snr::record {
namespace {

TEST(QemuRecording, TenThousandInstructionsReexecuteExactly) {
  if (!qemu_test::have("qemu-riscv64") || !qemu_test::have("riscv64-linux-gnu-gcc")) {
    GTEST_SKIP() << "qemu-riscv64 or riscv64-linux-gnu-gcc is not installed (Debian qemu-user, gcc-riscv64-linux-gnu)";
  }
  const qemu_test::ScratchDir dir("qemu");
  const std::string elf_path = (dir.path() / "checksum.elf").string();
  qemu_test::build_program("checksum.c",
                         "-march=rv64im -mabi=lp64 -static -nostdlib -fno-pie -no-pie -Wl,--no-warn-rwx-segments -O2",
                         elf_path);
  const snapshot::Snapshot snapshot = qemu_test::record_from_qemu(elf_path, "work", 10500);
  EXPECT_EQ(snapshot.header.stats().instructions(), 10500u);
  EXPECT_TRUE(snapshot::validate_snapshot(snapshot).empty());
  const CheckResult result = check_snapshot(snapshot);
  std::string problems;
  for (const std::string& p : result.problems) problems += p + "\n";
  EXPECT_TRUE(result.matched) << problems;
  EXPECT_EQ(result.instructions, 10500u);
}

}  // namespace
}  // namespace snr::record
