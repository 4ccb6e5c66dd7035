// System calls of a foreign RV64 process as a recording saw them, answered
// again without a kernel: the functional re-execution and the timing replay
// both install this as the executor's SyscallHandler. Each ecall takes its
// chip's next recorded call, which must be at the same instruction (counted
// from the start of the window), with the same number (a7) and arguments;
// then the kernel's result (a0) and the bytes it wrote are applied.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/executor.h"

namespace snr::sim {

struct RecordedSyscall {
  uint64_t instruction = 0;  // index in the chip's window
  uint64_t number = 0;       // a7
  std::vector<uint64_t> args;  // a0.. as the kernel read them
  uint64_t result = 0;       // a0 after the call
  std::vector<std::pair<uint64_t, std::string>> written;  // (address, bytes) the kernel wrote
};

class RecordedSyscalls final : public SyscallHandler {
 public:
  // Window positions count from each chip's instret now (call after the
  // window's state is installed, before it runs).
  explicit RecordedSyscalls(System& system);

  void set_calls(uint32_t chip, std::vector<RecordedSyscall> calls) { calls_[chip] = std::move(calls); }
  StepResult on_ecall(ChipState& chip) override;
  // Recorded calls of `chip` the run never reached.
  [[nodiscard]] size_t unused(uint32_t chip) const;

 private:
  std::vector<uint64_t> start_instret_;
  std::map<uint32_t, std::vector<RecordedSyscall>> calls_;
  std::map<uint32_t, size_t> next_;
};

}  // namespace snr::sim
