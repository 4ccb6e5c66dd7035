// run.db → Chrome trace-event JSON for the Perfetto UI: per chip an op
// track (consecutive instructions of one op as one slice), a stall track,
// one track per unit and one per chip's DMAs; one track per DMA link for the
// transfers; counters for VMEM pages in use and per-unit utilization; and a
// flow arrow from each DMA's issue to the WAIT that consumed it. Overlapping
// slices on a track are spread to sibling lanes, so every track nests.
#pragma once

#include <string>

#include "formats/perfetto/trace_writer.h"
#include "formats/rundb/reader.h"

namespace snr::exporter {

struct TimelineOptions {
  // Utilization counters average busy cycles over buckets of this many cycles
  // (0 = about 200 buckets over the run).
  uint64_t utilization_bucket_cycles = 0;
};

perfetto::TraceWriter build_timeline(rundb::RunDbReader& run, const TimelineOptions& options = {});

}  // namespace snr::exporter
