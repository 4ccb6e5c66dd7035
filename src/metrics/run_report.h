// Summaries of a finished run for people (text) and programs (JSON):
// cycles, instructions, IPC, stall breakdown and per-unit utilization per
// chip (run_metrics.h), plus each chip's status and console output. Strings
// only; callers decide where they go.
#pragma once

#include <string>

#include "metrics/run_metrics.h"
#include "sim/system.h"

namespace snr::metrics {

enum class RunMode { kTiming, kFunctional };

struct RunDescription {
  std::string program_name;
  RunMode mode = RunMode::kTiming;
};

// A timing run's lines for one chip: stall cycles by reason, utilization
// per unit, DMA transfers and the WAIT stall charged to them. `snr run` and
// `snr replay` print the same lines.
std::string format_chip_metrics(const RunMetrics& metrics, uint32_t chip);

std::string format_run_text(const RunDescription& what, const sim::System& system, const RunMetrics& metrics);
std::string format_run_json(const RunDescription& what, const sim::System& system, const RunMetrics& metrics);

}  // namespace snr::metrics
