// Shared by the tests that record real programs from qemu-riscv64's
// gdbstub: tool checks, building a program with Debian's cross gcc, and one
// recorded window.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "formats/snapshot/snapshot.h"

namespace snr::record::qemu_test {

// True when `tool` is on PATH.
bool have(const char* tool);
// True when the cross compiler can link C programs against its glibc
// (Debian's libc6-dev-riscv64-cross).
bool have_riscv_glibc();

// A fresh directory under the system temp directory, removed with the object.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Compiles testdata/`source` with riscv64-linux-gnu-gcc and `flags` into
// `out`; throws snr::Error with the command on failure.
void build_program(const std::string& source, const std::string& flags, const std::string& out);

// Starts `qemu-riscv64 -g PORT elf` (its stdout to /dev/null), records
// `count` instructions from the entry of `symbol` and returns the snapshot.
// Throws snr::Error when no connection can be made or recording fails.
snapshot::Snapshot record_from_qemu(const std::string& elf_path, const std::string& symbol, uint64_t count);

}  // namespace snr::record::qemu_test
