// A zero-latency replay of all ranks of a workload through the trace feeder:
// compute completes at once, a collective completes when every member of its
// group has issued its matching collective, a send/recv pair completes when
// both sides have issued. If some rank still has nodes when nothing can
// progress, the workload would deadlock in a simulator; the result says
// which nodes are stuck.
#pragma once

#include <cstdint>
#include <string>

#include "et/generate/workload_builder.h"

namespace snr::et {

struct ReplayResult {
  bool completed = false;
  uint64_t nodes_completed = 0;
  uint64_t collectives_completed = 0;  // group-wide operations
  uint64_t messages_completed = 0;
  std::string stuck;  // description of the blocked nodes when !completed
};

// Throws snr::Error for malformed traces (cycles, dangling dependencies, as
// reported by the feeder).
ReplayResult replay_with_feeders(const Workload& workload);

}  // namespace snr::et
