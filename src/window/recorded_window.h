// The one driver that follows a recorded window through the simulator: the
// pc cross-check (every instruction a chip runs must be the one the device
// ran next), the window's end (each chip stops after exactly its recorded
// instructions) and the end-state rules (docs/replay.md). The replayer and
// rewrite's measurement follow it in timing mode, snapshot re-execution and
// rewrite's legality check step it functionally.
//
// The window is described without a file format: src/replay and
// src/record fill it from a ReplayInput or a snapshot.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "isa/access.h"
#include "sim/executor.h"
#include "sim/recorded_syscalls.h"
#include "sim/system.h"
#include "sim/timing.h"

namespace snr::window {

struct MemoryInterval {
  uint64_t address = 0;
  uint64_t length_bytes = 0;
};

struct StateValue {
  isa::StateKind kind = isa::StateKind::kX;
  uint32_t index = 0;
  std::string bytes;
};

// What the device reached at the end of one chip's window.
struct RecordedEnd {
  bool known = false;  // pc and x are compared only when known
  uint64_t pc = 0;
  std::vector<uint64_t> x;      // x0..x31
  uint32_t saved_x_mask = 0;    // bit i: x_i was installed from the recording
  std::vector<MemoryInterval> written_memory;
  uint64_t written_memory_hash = 0;  // snapshot::hash_region chain over written_memory
  std::vector<StateValue> written_state;  // accelerator state the window wrote, as the device left it
};

struct ChipWindow {
  uint32_t chip = 0;
  std::span<const uint64_t> pcs;  // the recorded pc sequence; empty: the chip was only read
  RecordedEnd end;
  std::vector<sim::RecordedSyscall> syscalls;  // flat address space only
};

class RecordedWindow {
 public:
  // Call after the recorded state is installed into `system` (system calls
  // are counted from each chip's instret then). `chips` may name a chip
  // once at most; chips it does not name run no instruction.
  RecordedWindow(sim::System& system, std::vector<ChipWindow> chips);

  // Answers a foreign process's system calls from the recording; nullptr
  // for NPU windows (the NPU answers its own).
  [[nodiscard]] sim::SyscallHandler* syscall_handler();

  [[nodiscard]] uint64_t window_instructions(uint32_t chip) const;
  [[nodiscard]] uint64_t position(uint32_t chip) const { return position_.at(chip); }
  [[nodiscard]] bool finished(uint32_t chip) const { return position(chip) >= window_instructions(chip); }
  [[nodiscard]] bool all_finished() const;
  [[nodiscard]] uint64_t steps() const { return steps_; }

  // The pc cross-check: nullopt when `pc` is `chip`'s next recorded pc,
  // else "step S (chip C instruction I of N): expected pc P (<instruction>),
  // actual pc Q (<instruction>)".
  [[nodiscard]] std::optional<std::string> divergence(uint32_t chip, uint64_t pc) const;
  // Throws snr::Error "<run> diverged at <divergence>" unless `chip` is at
  // its next recorded pc.
  void require_at_next_pc(uint32_t chip, std::string_view run) const;
  // `chip` retired its next recorded instruction `d` (as System::fetch
  // returned it); notes the x registers it wrote (a foreign process's ecall
  // writes a0).
  void advance(uint32_t chip, const isa::DecodedInstruction* d);

  // Timing mode: stops each chip at its window's end and checks every
  // issued pc, throwing snr::Error "<run> diverged at <divergence> (cycle N)".
  void follow(sim::TimingSimulator& timing, std::string_view run);

  // Functional mode: steps `chip` through its next recorded instruction.
  // Throws snr::Error "<run> diverged at <divergence>" when the chip is not
  // there; kBlocked leaves the position where it was.
  sim::StepResult step(sim::Executor& executor, uint32_t chip, std::string_view run);

  // The window's end: "chip C: the <run> ran I of its N recorded
  // instructions" for each chip that stopped early.
  [[nodiscard]] std::vector<std::string> unfinished_chips(std::string_view run) const;
  // Throws snr::Error with the first of unfinished_chips().
  void require_finished(std::string_view run) const;

  // The end-state rules: each recorded chip's final pc; every x register
  // the window knew (installed or written); the hash of the memory the
  // device wrote; the accelerator state it wrote; every recorded system
  // call reached. One line per mismatch ("device" vs `run`); empty when the
  // device's end state was reached.
  [[nodiscard]] std::vector<std::string> end_state_problems(std::string_view run) const;

 private:
  sim::System& system_;
  std::vector<ChipWindow> chips_;
  std::vector<const ChipWindow*> window_of_;  // by chip id
  std::vector<uint64_t> position_;
  std::vector<uint32_t> x_written_;
  sim::RecordedSyscalls syscalls_;
  uint64_t steps_ = 0;
};

// "<raw word> <disassembly>" of the instruction at `pc`, or a note that
// the recorded code has none there.
std::string describe_instruction(const sim::System& system, uint64_t pc);

}  // namespace snr::window
