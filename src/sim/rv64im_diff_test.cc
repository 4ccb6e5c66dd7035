// Differential test against a real RV64IM implementation: each program in
// testdata/rv64im is compiled with the RISC-V cross compiler, run under
// qemu-riscv64 and under snr (functional and timing mode), and the bytes it
// writes to stdout (its final registers or computed results) must match.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "common/file_io.h"
#include "sim/elf_loader.h"
#include "sim/timing.h"

namespace snr::sim {
namespace {

namespace fs = std::filesystem;

bool have_tool(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

std::string run_capture(const std::string& command, int& status) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    status = -1;
    return out;
  }
  std::array<char, 4096> buffer;
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  status = pclose(pipe);
  return out;
}

class Rv64imDifferential : public ::testing::TestWithParam<std::string> {};

TEST_P(Rv64imDifferential, SameOutputAsQemu) {
  const char* source_dir = std::getenv("SNR_SOURCE_DIR");
  if (source_dir == nullptr) source_dir = SNR_SOURCE_DIR_FALLBACK;
  if (!have_tool("riscv64-linux-gnu-gcc") || !have_tool("qemu-riscv64")) {
    GTEST_SKIP() << "riscv64-linux-gnu-gcc or qemu-riscv64 not installed (Debian: gcc-riscv64-linux-gnu, qemu-user)";
  }
  const fs::path dir = fs::path(source_dir) / "src/sim/testdata/rv64im";
  const fs::path source = dir / GetParam();
  const fs::path work = fs::temp_directory_path() / ("snr_rv64im_" + std::to_string(::getpid()));
  fs::create_directories(work);
  const fs::path elf = work / (GetParam() + ".elf");
  int status = 0;
  std::string log = run_capture("riscv64-linux-gnu-gcc -march=rv64im -mabi=lp64 -O1 -static -nostdlib -nostartfiles -I" +
                                    dir.string() + " -o " + elf.string() + " " + source.string() + " 2>&1",
                                status);
  ASSERT_EQ(status, 0) << "compile failed: " << log;
  const std::string expected = run_capture("qemu-riscv64 " + elf.string(), status);
  ASSERT_EQ(status, 0) << "qemu run failed";
  ASSERT_FALSE(expected.empty());

  hw::HwConfig config = hw::preset("tpu-v4-like");
  ProgramImage program = load_elf_program(elf.string());
  {
    System system(config);
    system.load(program);
    run_functional(system, 100'000'000);
    EXPECT_EQ(system.chip(0).status, ChipStatus::kExited);
    EXPECT_EQ(system.chip(0).exit_code, 0);
    EXPECT_EQ(system.chip(0).console, expected) << "functional mode differs from qemu";
  }
  {
    System system(config);
    system.load(program);
    TimingSimulator(system).run(1'000'000'000);
    EXPECT_EQ(system.chip(0).console, expected) << "timing mode differs from qemu";
  }
  fs::remove_all(work);
}

INSTANTIATE_TEST_SUITE_P(Programs, Rv64imDifferential,
                         ::testing::Values("arith.S", "muldiv.S", "memory.S", "compiled.c"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name = param_info.param;
                           return name.substr(0, name.find('.'));
                         });

}  // namespace
}  // namespace snr::sim
