// Records from a real second stub: qemu-riscv64's gdbstub running an RV64IM
// program built with Debian's cross gcc; skipped when either is missing.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "elf/elf.h"
#include "record/recorder.h"
#include "record/reexecute.h"
#include "rsp/socket.h"

extern char** environ;

namespace snr::record {
namespace {

bool have(const char* tool) { return std::system(fmt::format("command -v {} >/dev/null 2>&1", tool).c_str()) == 0; }

uint16_t free_port() {
  rsp::Listener probe("127.0.0.1", 0);
  return probe.port();
}

TEST(QemuRecording, TenThousandInstructionsReexecuteExactly) {
  if (!have("qemu-riscv64") || !have("riscv64-linux-gnu-gcc")) {
    GTEST_SKIP() << "qemu-riscv64 or riscv64-linux-gnu-gcc is not installed (Debian qemu-user, gcc-riscv64-linux-gnu)";
  }
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / fmt::format("snr_qemu_{}", ::getpid());
  std::filesystem::create_directories(dir);
  const std::string elf_path = (dir / "checksum.elf").string();
  ASSERT_EQ(std::system(fmt::format("riscv64-linux-gnu-gcc -march=rv64im -mabi=lp64 -static -nostdlib -fno-pie -no-pie "
                                    "-Wl,--no-warn-rwx-segments -O2 -o {} {}/checksum.c", elf_path, SNR_RECORD_TESTDATA).c_str()), 0);
  const elf::Image elf = elf::read_elf_file(elf_path).value();

  snapshot::Snapshot snapshot;
  bool recorded = false;
  for (int attempt = 0; attempt < 5 && !recorded; ++attempt) {
    const std::string port = std::to_string(free_port());
    const char* argv[] = {"qemu-riscv64", "-g", port.c_str(), elf_path.c_str(), nullptr};
    pid_t qemu = 0;
    ASSERT_EQ(posix_spawnp(&qemu, "qemu-riscv64", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
    for (int wait = 0; wait < 50 && !recorded; ++wait) {
      try {
        rsp::Client client(rsp::connect_tcp({"127.0.0.1", static_cast<uint16_t>(std::stoi(port))},
                                            std::chrono::milliseconds(2000)),
                           std::chrono::milliseconds(30000));
        RemoteTarget target(client, std::chrono::milliseconds(30000));
        RecordOptions options;
        options.breakpoint_address = elf.find_symbol("work")->value;
        options.count_per_chip = 10500;
        hw::HwConfig config = hw::preset("tpu-v4-like");
        hw::apply_overrides(config, {"chips=1"});
        options.fallback_hw_config_yaml = config.to_yaml();
        snapshot = record_window(target, options);
        recorded = true;
      } catch (const Error& e) {
        if (std::string(e.what()).find("cannot connect") == std::string::npos) {
          ::kill(qemu, SIGKILL);
          ::waitpid(qemu, nullptr, 0);
          FAIL() << e.what();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    if (!recorded) ::kill(qemu, SIGKILL);
    int status = 0;
    ::waitpid(qemu, &status, 0);
  }
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(recorded) << "could not connect to qemu-riscv64 -g";
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
