#include "record/linux_syscalls.h"

#include <gtest/gtest.h>

namespace snr::record {
namespace {

std::vector<Interval> written_by(uint64_t number, const SyscallArgs& args, uint64_t result, std::string* why = nullptr) {
  const LinuxSyscall* call = find_linux_syscall(number);
  EXPECT_NE(call, nullptr) << number;
  std::vector<Interval> out;
  if (call == nullptr) return out;
  const std::string problem = call->written(args, result, out);
  if (why != nullptr) *why = problem;
  return out;
}

TEST(LinuxSyscalls, ReadWritesTheBytesItReturned) {
  EXPECT_EQ(written_by(63, {0, 0x5000, 100}, 42), (std::vector<Interval>{{0x5000, 0x502a}}));
  EXPECT_TRUE(written_by(63, {0, 0x5000, 100}, static_cast<uint64_t>(-9)).empty()) << "EBADF writes nothing";
  EXPECT_TRUE(written_by(64, {1, 0x5000, 100}, 100).empty()) << "write only reads the process";
}

TEST(LinuxSyscalls, FixedSizeResultsOnlyOnSuccess) {
  EXPECT_EQ(written_by(80, {1, 0x7000}, 0), (std::vector<Interval>{{0x7000, 0x7080}}));
  EXPECT_TRUE(written_by(80, {1, 0x7000}, static_cast<uint64_t>(-14)).empty());
  EXPECT_EQ(written_by(113, {1, 0x8000}, 0), (std::vector<Interval>{{0x8000, 0x8010}}));
}

TEST(LinuxSyscalls, RefusesEffectsItCannotKnow) {
  std::string why;
  written_by(222, {0, 4096, 1, 0x02 /* private, from a file */, 3, 0}, 0x1000, &why);
  EXPECT_NE(why.find("mmap of fd 3"), std::string::npos) << why;
  written_by(222, {0x1000, 4096, 3, 0x32 /* fixed anonymous */, static_cast<uint64_t>(-1), 0}, 0x1000, &why);
  EXPECT_NE(why.find("MAP_FIXED"), std::string::npos) << why;
  written_by(222, {0, 4096, 3, 0x22, static_cast<uint64_t>(-1), 0}, 0x1000, &why);
  EXPECT_EQ(why, "");
  written_by(29, {1, 0x1234, 0x9000}, 0, &why);
  EXPECT_NE(why.find("ioctl request 0x1234"), std::string::npos) << why;
  EXPECT_EQ(find_linux_syscall(220), nullptr) << "clone is not recordable";
  EXPECT_EQ(linux_syscall_label(220), "220");
  EXPECT_EQ(linux_syscall_label(64), "write (64)");
}

}  // namespace
}  // namespace snr::record
