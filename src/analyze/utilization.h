// Unit utilization over time (seed 000 §5.3.1, Figure 7): each unit's busy
// fraction in consecutive windows. What "busy" means per unit is defined
// once, in the metrics layer (metrics/busy.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "metrics/busy.h"

namespace snr::analyze {

using metrics::BusyProfile;

// The units of Figure 7 in metrics::kBusyUnits order.
const std::vector<std::string>& utilization_units();

// One series per chip and unit, windows of `window_cycles` covering
// [0, total_cycles); profiles[chip] in utilization_units() order.
std::vector<UtilizationSeries> utilization_series(const std::vector<std::vector<BusyProfile>>& profiles,
                                                  uint64_t total_cycles, uint64_t window_cycles);

}  // namespace snr::analyze
