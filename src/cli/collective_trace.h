// The `snr collective --trace FILE.json` timeline (Chrome trace-event JSON
// for ui.perfetto.dev): a process per GPU with a "kernels" track and a track
// per group of CUs holding one slice per workgroup, and a "NoC links"
// process with counter tracks per link kind (busy fraction, GB/s, messages
// waiting) from the network's LinkTimeline. Layout and caps:
// docs/gpu-model.md, "Results".
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "dsim/gpu/gpu_model.h"
#include "dsim/loadstore/program.h"
#include "dsim/noc/link_timeline.h"
#include "dsim/noc/noc_network.h"

namespace snr::cli {

struct CollectiveTraceOptions {
  // Workgroup slices beyond this many are left out (evenly per GPU, each
  // GPU's first workgroups in Program order kept); the trace's `otherData`
  // and an instant on the "trace notes" track say how many.
  size_t max_workgroup_slices = 200000;
  // CU tracks per GPU at most: CUs are grouped in ranges of
  // ceil(compute_units / max_cu_tracks).
  uint32_t max_cu_tracks = 16;
};

struct CollectiveTraceSummary {
  size_t workgroup_slices = 0;   // written
  size_t workgroups_left_out = 0;
  size_t counter_tracks = 0;
  uint32_t cus_per_track = 1;
  uint64_t link_bin_ps = 0;  // the counters' bin width (0: no counters)
};

// CUs per track for a GPU of `compute_units` under `max_tracks`.
uint32_t cus_per_trace_track(uint32_t compute_units, uint32_t max_tracks);

// Writes the timeline to `path` (atomically; throws snr::Error naming it).
// `timeline` and `links` may be null (a network that records none): then
// there are no counter tracks.
CollectiveTraceSummary write_collective_trace(const std::filesystem::path& path,
                                              const dsim::loadstore::Program& program,
                                              const dsim::gpu::RunStats& stats, uint32_t compute_units,
                                              const dsim::noc::NocStats* links,
                                              const dsim::noc::LinkTimeline* timeline,
                                              const CollectiveTraceOptions& options = {});

}  // namespace snr::cli
