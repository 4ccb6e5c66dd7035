#include "record/linux_syscalls.h"

#include <fmt/format.h>

#include <algorithm>

namespace snr::record {
namespace {

// Linux returns -errno in [-4095, -1]; anything else is success.
bool failed(uint64_t result) { return result >= static_cast<uint64_t>(-4095); }

void add(std::vector<Interval>& out, uint64_t address, uint64_t length) {
  if (length != 0) out.push_back({address, address + length});
}

std::string none(const SyscallArgs&, uint64_t, std::vector<Interval>&) { return ""; }

// read-like calls: the buffer in argument `Buffer` holds the `result` bytes read.
template <int Buffer>
std::string result_bytes(const SyscallArgs& args, uint64_t result, std::vector<Interval>& out) {
  if (!failed(result)) add(out, args[Buffer], result);
  return "";
}

// A fixed-size struct at argument `Buffer` filled on success.
template <int Buffer, uint64_t Bytes>
std::string struct_out(const SyscallArgs& args, uint64_t result, std::vector<Interval>& out) {
  if (!failed(result) && args[Buffer] != 0) add(out, args[Buffer], Bytes);
  return "";
}

// struct stat of the generic ABI (riscv64): 128 bytes.
constexpr uint64_t kStatBytes = 128;
constexpr uint64_t kTimespecBytes = 16;
constexpr uint64_t kUtsnameBytes = 6 * 65;
constexpr uint64_t kRlimitBytes = 16;

std::string ioctl_out(const SyscallArgs& args, uint64_t result, std::vector<Interval>& out) {
  constexpr uint64_t kTcgets = 0x5401, kTiocgwinsz = 0x5413;
  constexpr uint64_t kTermiosBytes = 36, kWinsizeBytes = 8;  // struct termios / winsize of the generic ABI
  const uint64_t request = args[1] & 0xffffffffu;
  if (request == kTcgets) {
    if (!failed(result)) add(out, args[2], kTermiosBytes);
    return "";
  }
  if (request == kTiocgwinsz) {
    if (!failed(result)) add(out, args[2], kWinsizeBytes);
    return "";
  }
  return fmt::format("ioctl request {:#x} is not one whose output the recorder knows (TCGETS, TIOCGWINSZ)", request);
}

std::string mmap_out(const SyscallArgs& args, uint64_t, std::vector<Interval>&) {
  constexpr uint64_t kMapFixed = 0x10, kMapAnonymous = 0x20;
  if ((args[3] & kMapAnonymous) == 0) {
    return fmt::format("mmap of fd {}: a file's contents are not recorded (only anonymous mappings are)", args[4]);
  }
  // Fresh anonymous pages read as zero and the recorder reads them when the
  // window first does; a fixed mapping over live pages would zero bytes
  // the snapshot may already hold.
  if ((args[3] & kMapFixed) != 0) return "MAP_FIXED mmap: it may replace pages the window already read";
  return "";
}

std::string rt_sigprocmask_out(const SyscallArgs& args, uint64_t result, std::vector<Interval>& out) {
  if (!failed(result) && args[2] != 0) add(out, args[2], std::min<uint64_t>(args[3], 128));
  return "";
}

std::string gettimeofday_out(const SyscallArgs& args, uint64_t result, std::vector<Interval>& out) {
  if (failed(result)) return "";
  if (args[0] != 0) add(out, args[0], 16);
  if (args[1] != 0) add(out, args[1], 8);
  return "";
}

constexpr LinuxSyscall kTable[] = {
    {17, "getcwd", 2, result_bytes<0>},
    {29, "ioctl", 3, ioctl_out},
    {56, "openat", 4, none},
    {57, "close", 1, none},
    {62, "lseek", 3, none},
    {63, "read", 3, result_bytes<1>},
    {64, "write", 3, none},
    {66, "writev", 3, none},
    {67, "pread64", 4, result_bytes<1>},
    {78, "readlinkat", 4, result_bytes<2>},
    {79, "newfstatat", 4, struct_out<2, kStatBytes>},
    {80, "fstat", 2, struct_out<1, kStatBytes>},
    {96, "set_tid_address", 1, none},
    {99, "set_robust_list", 2, none},
    {113, "clock_gettime", 2, struct_out<1, kTimespecBytes>},
    {124, "sched_yield", 0, none},
    {135, "rt_sigprocmask", 4, rt_sigprocmask_out},
    {160, "uname", 1, struct_out<0, kUtsnameBytes>},
    {169, "gettimeofday", 2, gettimeofday_out},
    {172, "getpid", 0, none},
    {173, "getppid", 0, none},
    {174, "getuid", 0, none},
    {175, "geteuid", 0, none},
    {176, "getgid", 0, none},
    {177, "getegid", 0, none},
    {178, "gettid", 0, none},
    {214, "brk", 1, none},
    {215, "munmap", 2, none},
    {222, "mmap", 6, mmap_out},
    {226, "mprotect", 3, none},
    {261, "prlimit64", 4, struct_out<3, kRlimitBytes>},
    {278, "getrandom", 3, result_bytes<0>},
};

}  // namespace

const LinuxSyscall* find_linux_syscall(uint64_t number) {
  for (const LinuxSyscall& call : kTable) {
    if (call.number == number) return &call;
  }
  return nullptr;
}

std::string linux_syscall_label(uint64_t number) {
  if (number == kLinuxExit) return "exit (93)";
  if (number == kLinuxExitGroup) return "exit_group (94)";
  const LinuxSyscall* call = find_linux_syscall(number);
  return call == nullptr ? std::to_string(number) : fmt::format("{} ({})", call->name, number);
}

std::string known_linux_syscalls() {
  std::string out;
  for (const LinuxSyscall& call : kTable) {
    if (!out.empty()) out += ", ";
    out += call.name;
  }
  return out;
}

}  // namespace snr::record
