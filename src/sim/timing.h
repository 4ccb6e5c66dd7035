// Cycle-level timing layered on the functional core (seed 000 §4.2, §5.2).
//
// Each chip issues in order, at most one instruction per cycle, when its
// source and destination registers are ready (register scoreboard), its
// unit is free, and any wait condition holds. The vector unit, the matrix
// units and the DMA engine run asynchronously beside the scalar pipeline.
// An instruction that cannot issue stalls with one reason: the constraint
// that was satisfied last. Semantics come from Executor unchanged; this
// layer only decides the cycle of each step and when DMAs complete.
//
// Chips advance in lockstep cycles, in chip-id order within a cycle, so
// multi-chip runs are deterministic.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "sim/dma_timing.h"
#include "sim/executor.h"
#include "sim/system.h"

namespace snr::sim {

struct ChipRunStats {
  uint64_t instructions = 0;
  uint64_t last_cycle = 0;  // cycle after the chip's last issue
  std::array<uint64_t, static_cast<size_t>(StallReason::kCount)> stall_cycles{};
  uint64_t dma_count = 0;
  uint64_t dma_bytes = 0;
};

struct RunOutcome {
  uint64_t cycles = 0;  // total simulated cycles (timing) or 0 (functional)
  std::vector<ChipRunStats> chips;
};

class TimingSimulator final : private DmaCompletionPolicy {
 public:
  explicit TimingSimulator(System& system);

  // Runs until every chip has exited, hit ebreak or issued its instruction
  // limit. Throws snr::Error on a fault, on a deadlock (naming chips and
  // semaphores) or after `max_cycles`.
  RunOutcome run(uint64_t max_cycles);

  [[nodiscard]] const DmaTiming& dma() const { return dma_; }

  // The chip stops after issuing this many instructions (a replay window's
  // end); 0 = it does not run at all. DMAs it issued still complete.
  void set_instruction_limit(uint32_t chip, uint64_t instructions);
  // How ecalls are answered (Executor::set_syscall_handler); nullptr = the NPU's own.
  void set_syscall_handler(SyscallHandler* handler) { executor_.set_syscall_handler(handler); }

 private:
  struct CoreTiming {
    std::array<uint64_t, 32> x_ready{};
    std::array<uint64_t, isa::kVectorRegisterCount> v_ready{};
    uint64_t next_issue = 0;    // earliest cycle for the next instruction (1/cycle, branch bubble)
    uint64_t nominal_issue = 0; // the same without the branch bubble, for stall accounting
    uint64_t next_try = 0;      // when the main loop looks at this chip again
    uint64_t vector_free = 0;
    uint64_t vector_done = 0;   // all issued vector work finished
    uint64_t divider_free = 0;
    std::vector<uint64_t> mxu_free, mxu_weights_ready, mxu_acc_ready;
    uint64_t matrix_done = 0;
    bool blocked = false;
    bool done = false;
    uint64_t instruction_limit = UINT64_MAX;
    StallReason blocked_reason = StallReason::kNone;
    std::array<std::deque<uint64_t>, isa::kSemaphoreCount> dma_ids_by_semaphore;
  };

  void dma_issued(ChipState& issuer, const DmaRequest& request) override;
  void on_dma_complete(const DmaCompletion& completion);
  void attempt_issue(uint32_t chip_id, uint64_t now);
  uint64_t static_ready(const CoreTiming& core, const isa::DecodedInstruction& d, StallReason& reason) const;
  StallReason dynamic_block(const ChipState& chip, const isa::DecodedInstruction& d) const;
  void account_issue(uint32_t chip_id, const isa::DecodedInstruction& d, uint64_t now, uint64_t old_pc);
  void publish_waits(uint32_t chip_id, const isa::DecodedInstruction& d, uint64_t wait_start, uint64_t now);
  void publish_dma_memory(const DmaCompletion& completion) const;
  void publish_unit_busy(uint32_t chip, isa::Unit unit, uint64_t start, uint64_t end, uint64_t pc) const;
  [[noreturn]] void report_deadlock(uint64_t now) const;

  System& system_;
  Executor executor_;
  DmaTiming dma_;
  std::vector<CoreTiming> cores_;
  std::vector<ChipRunStats> stats_;
  std::vector<DmaRequest> requests_;  // by DMA id
  uint64_t dma_issue_cycle_ = 0;  // cycle of the instruction being executed
};

// Runs every chip functionally, round-robin in chip-id order (one
// instruction per turn with several chips); a chip blocked on a semaphore
// yields. Throws on deadlock.
RunOutcome run_functional(System& system, uint64_t max_instructions);

}  // namespace snr::sim
