// A few independent jobs (reading several traces, a workflow's stages) on
// the machine's cores. Deliberately small: no pool outlives the call, and
// each job's exception comes back to the caller, which decides which one
// the user sees (usually the first in job order, as a serial run would).
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <vector>

namespace snr {

// Threads the machine runs at once (at least 1).
size_t hardware_threads();

// Runs every job once on up to `max_threads` threads, this one included
// (0 counts as 1): a job starts, in job order, when a thread is free.
// Returns when all are done, with each job's exception (null where the job
// returned).
std::vector<std::exception_ptr> run_jobs(const std::vector<std::function<void()>>& jobs, size_t max_threads);

// The first exception in job order, rethrown; nothing when there is none.
void rethrow_first(const std::vector<std::exception_ptr>& errors);

}  // namespace snr
