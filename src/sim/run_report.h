// Summaries of a finished run for people (text) and programs (JSON):
// cycles, instructions, IPC, stall breakdown and per-unit utilization per
// chip, plus each chip's console output. Strings only; callers decide where
// they go.
#pragma once

#include <string>

#include "sim/system.h"
#include "sim/timing.h"

namespace snr::sim {

enum class RunMode { kTiming, kFunctional };

struct RunDescription {
  std::string program_name;
  RunMode mode = RunMode::kTiming;
};

std::string format_run_text(const RunDescription& what, const System& system, const RunOutcome& outcome);
std::string format_run_json(const RunDescription& what, const System& system, const RunOutcome& outcome);

}  // namespace snr::sim
