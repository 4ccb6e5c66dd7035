#include "record/qemu_test_support.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>

#include "common/error.h"
#include "elf/elf.h"
#include "hw/config.h"
#include "record/recorder.h"
#include "rsp/socket.h"

extern char** environ;

namespace snr::record::qemu_test {
namespace {

uint16_t free_port() {
  rsp::Listener probe("127.0.0.1", 0);
  return probe.port();
}

// Kills and reaps the QEMU process on every path out of a recording.
struct Child {
  pid_t pid = 0;
  ~Child() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
  }
};

}  // namespace

bool have(const char* tool) { return std::system(fmt::format("command -v {} >/dev/null 2>&1", tool).c_str()) == 0; }

bool have_riscv_glibc() {
  return have("riscv64-linux-gnu-gcc") &&
         std::system("riscv64-linux-gnu-gcc -print-file-name=libc.a 2>/dev/null | grep -q / && "
                     "echo '#include <stdio.h>' | riscv64-linux-gnu-gcc -E -x c - >/dev/null 2>&1") == 0;
}

ScratchDir::ScratchDir(const std::string& name)
    : path_(std::filesystem::temp_directory_path() / fmt::format("snr_{}_{}", name, ::getpid())) {
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void build_program(const std::string& source, const std::string& flags, const std::string& out) {
  const std::string command = fmt::format("riscv64-linux-gnu-gcc {} -o {} {}/{}", flags, out, SNR_RECORD_TESTDATA, source);
  if (std::system(command.c_str()) != 0) throw Error(fmt::format("building {} failed: {}", source, command));
}

snapshot::Snapshot record_from_qemu(const std::string& elf_path, const std::string& symbol, uint64_t count) {
  // snr's own ELF reader, as `snr record --elf` uses it (glibc's static
  // binaries carry TLS and IFUNC symbols it must take).
  const elf::Image image = elf::read_elf_file(elf_path).value();
  const elf::Symbol* found = image.find_symbol(symbol);
  if (found == nullptr) throw Error(fmt::format("{} has no symbol {}", elf_path, symbol));
  const uint64_t address = found->value;
  hw::HwConfig config = hw::preset("tpu-v4-like");
  hw::apply_overrides(config, {"chips=1"});
  for (int attempt = 0; attempt < 5; ++attempt) {
    const std::string port = std::to_string(free_port());
    const char* argv[] = {"qemu-riscv64", "-g", port.c_str(), elf_path.c_str(), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    Child qemu;
    const int spawned = posix_spawnp(&qemu.pid, "qemu-riscv64", &actions, nullptr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) throw Error(fmt::format("cannot start qemu-riscv64: error {}", spawned));
    for (int wait = 0; wait < 50; ++wait) {
      try {
        rsp::Client client(rsp::connect_tcp({"127.0.0.1", static_cast<uint16_t>(std::stoi(port))},
                                            std::chrono::milliseconds(2000)),
                           std::chrono::milliseconds(30000));
        RemoteTarget target(client, std::chrono::milliseconds(30000));
        RecordOptions options;
        options.breakpoint_address = address;
        options.breakpoint_text = symbol;
        options.count_per_chip = count;
        options.fallback_hw_config_yaml = config.to_yaml();
        return record_window(target, options);
      } catch (const Error& e) {
        if (std::string(e.what()).find("cannot connect") == std::string::npos) throw;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  }
  throw Error("could not connect to qemu-riscv64 -g");
}

}  // namespace snr::record::qemu_test
