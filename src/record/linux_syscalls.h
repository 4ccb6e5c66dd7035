// What the recorder knows about RV64 Linux system calls (the generic
// syscall numbers of asm-generic/unistd.h): how many argument registers the
// kernel reads and which bytes of the process it may write, given the
// arguments and the result. A call not in the table, or one whose effects
// depend on something the recorder cannot see (a file-backed mmap, an
// unknown ioctl), is refused by name instead of guessed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "record/interval_set.h"

namespace snr::record {

constexpr uint64_t kLinuxExit = 93;
constexpr uint64_t kLinuxExitGroup = 94;

using SyscallArgs = std::array<uint64_t, 6>;  // a0..a5 before the call

struct LinuxSyscall {
  uint64_t number = 0;
  std::string_view name;
  uint8_t args = 0;  // argument registers a0.. the kernel reads
  // Appends to `written` the byte ranges the kernel wrote, from the
  // arguments and the result (a0 after the call); returns "" or why the
  // effects cannot be known.
  std::string (*written)(const SyscallArgs& args, uint64_t result, std::vector<Interval>& written) = nullptr;
};

// nullptr when the recorder does not know the call.
const LinuxSyscall* find_linux_syscall(uint64_t number);
// "openat (56)", or "56" for an unknown number.
std::string linux_syscall_label(uint64_t number);
// Comma-separated names of every known call, for error messages and docs.
std::string known_linux_syscalls();

}  // namespace snr::record
