// The functional core: executes one instruction of one chip with exact
// architectural semantics (RV64IM, Zicsr, the accelerator extension). The
// timing layer reuses it unchanged and only decides *when* each instruction
// issues and when a DMA's completion becomes visible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/dma_timing.h"
#include "sim/system.h"

namespace snr::sim {

enum class StepResult : uint8_t {
  kRetired,  // the instruction completed architecturally; pc advanced
  kBlocked,  // sem.wait below its threshold; nothing changed, retry later
  kExited,   // ecall exit; chip.exit_code set
  kBreak,    // ebreak; pc stays on the ebreak
};

// How DMA completions reach the semaphores. Functional runs signal at issue
// (the data is copied at issue anyway); the timing model defers the signal
// to the cycle the transfer really ends.
class DmaCompletionPolicy {
 public:
  virtual ~DmaCompletionPolicy() = default;
  // Called after the data of `request` has been copied.
  virtual void dma_issued(ChipState& issuer, const DmaRequest& request) = 0;
};

// Adds the completion signal of `request`: +1 on the issuing chip's
// semaphore and, when the destination is another chip, on the same index
// there too.
void signal_dma_completion(System& system, const DmaRequest& request, uint64_t cycle);

// What an ecall does when the program is a foreign process whose system
// calls were recorded (re-execution injects the kernel's answers instead of
// running a kernel). Without a handler ecall is the NPU's exit/write.
class SyscallHandler {
 public:
  virtual ~SyscallHandler() = default;
  // Called for the ecall at chip.pc; applies the call's effects (registers,
  // memory) and advances pc, or throws snr::Error saying why it cannot.
  virtual StepResult on_ecall(ChipState& chip) = 0;
};

class Executor {
 public:
  // `policy` nullptr = functional: DMA completions are signalled at issue.
  explicit Executor(System& system, DmaCompletionPolicy* policy = nullptr);

  // nullptr (the default): the NPU's own ecalls.
  void set_syscall_handler(SyscallHandler* handler) { syscalls_ = handler; }

  // Executes the instruction at chip.pc. Throws snr::Error naming chip, pc,
  // instruction and cause on an illegal instruction or access fault.
  StepResult step(ChipState& chip);

  // Runs up to `max_instructions` (stops early on anything but kRetired).
  StepResult run(ChipState& chip, uint64_t max_instructions, uint64_t& retired);

  // The timing layer publishes retirements itself (with real cycles).
  void set_publish_retired(bool publish) { publish_retired_ = publish; }

  // "chip 0 pc 0x10040 (0x0000a503 ld a0, 0(zero))" for messages.
  [[nodiscard]] std::string describe(const ChipState& chip, const isa::DecodedInstruction& d) const;

 private:
  StepResult execute(ChipState& chip, const isa::DecodedInstruction& d);
  StepResult execute_system(ChipState& chip, const isa::DecodedInstruction& d);
  void execute_csr(ChipState& chip, const isa::DecodedInstruction& d);
  void execute_vector(ChipState& chip, const isa::DecodedInstruction& d);
  void execute_vector_memory(ChipState& chip, const isa::DecodedInstruction& d);
  void execute_matrix(ChipState& chip, const isa::DecodedInstruction& d);
  void execute_dma(ChipState& chip, const isa::DecodedInstruction& d);
  StepResult execute_semaphore(ChipState& chip, const isa::DecodedInstruction& d);
  uint64_t scalar_load(ChipState& chip, const isa::DecodedInstruction& d, uint64_t address);
  void scalar_store(ChipState& chip, const isa::DecodedInstruction& d, uint64_t address, uint64_t value);
  uint64_t flat_load(ChipState& chip, const isa::DecodedInstruction& d, uint64_t address);
  void flat_store(ChipState& chip, const isa::DecodedInstruction& d, uint64_t address, uint64_t value);
  MemoryTarget vmem_target(ChipState& chip, const isa::DecodedInstruction& d, uint64_t address,
                           uint64_t length, std::string_view what);
  void publish_memory(const ChipState& chip, MemoryKind kind, uint64_t offset, uint64_t row_bytes, uint64_t rows,
                      uint64_t stride, bool is_write) const;
  void publish_registers(const ChipState& chip, const isa::DecodedInstruction& d) const;
  [[noreturn]] void fault(const ChipState& chip, const isa::DecodedInstruction& d, const std::string& why) const;

  System& system_;
  DmaCompletionPolicy* policy_;
  SyscallHandler* syscalls_ = nullptr;
  std::vector<uint8_t> dma_scratch_;
  bool publish_retired_ = true;
};

}  // namespace snr::sim
