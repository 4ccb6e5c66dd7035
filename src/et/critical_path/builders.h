// Where a TimedJob comes from.
#pragma once

#include <cstdint>
#include <filesystem>

#include "dsim/simulator.h"
#include "et/critical_path/timed_job.h"

namespace snr::et::critical_path {

// A simulated run; `result` must hold its timeline (record_details).
TimedJob from_simulation(const dsim::SimulationResult& result);

// A trace whose nodes carry measured start times (start_time_micros and
// duration_micros, as `snr et convert` writes a PyTorch job): every rank of
// PREFIX.<rank>.et, with the communicator groups of PREFIX.comm_groups.json
// or, without it, of the traces' process_group:init nodes. Timed nodes
// without a start time are counted in `untimed_nodes` and taken as
// instants. Throws snr::Error when no node has a start time.
struct MeasuredTrace {
  TimedJob job;
  uint64_t untimed_nodes = 0;
};
MeasuredTrace from_measured_trace(const std::filesystem::path& prefix);

}  // namespace snr::et::critical_path
