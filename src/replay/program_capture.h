// Builds a ReplayInput by running a program functionally from its start:
// the loaded image and initial registers become the saved state, the
// executed pcs the recorded sequence, the end state the device's. Lets
// tests and benchmarks replay exact programs without a device or recorder.
#pragma once

#include <cstdint>
#include <functional>

#include "hw/config.h"
#include "replay/replay_input.h"
#include "sim/program.h"
#include "sim/system.h"

namespace snr::replay {

struct CaptureOptions {
  // Adjusts registers after loading, before the run (e.g. arguments in a0).
  std::function<void(sim::ChipState&)> initialize;
  uint64_t max_instructions = uint64_t{1} << 32;
};

struct CapturedRun {
  ReplayInput input;
  std::unique_ptr<sim::System> system;  // the functional end state
};

// Every chip runs to exit, one instruction per turn in chip-id order (a
// chip blocked on a semaphore yields its turn). Throws on deadlock, fault or
// the instruction limit.
CapturedRun capture_program_run(const sim::ProgramImage& program, const hw::HwConfig& config,
                                const CaptureOptions& options = {});

}  // namespace snr::replay
