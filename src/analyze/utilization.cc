#include "analyze/utilization.h"

#include <algorithm>

namespace snr::analyze {

const std::vector<std::string>& utilization_units() {
  static const std::vector<std::string> units = [] {
    std::vector<std::string> names;
    for (metrics::BusyUnit unit : metrics::kBusyUnits) names.emplace_back(metrics::busy_unit_name(unit));
    return names;
  }();
  return units;
}

std::vector<UtilizationSeries> utilization_series(const std::vector<std::vector<BusyProfile>>& profiles,
                                                  uint64_t total_cycles, uint64_t window_cycles) {
  window_cycles = std::max<uint64_t>(window_cycles, 1);
  const uint64_t windows = (total_cycles + window_cycles - 1) / window_cycles;
  std::vector<UtilizationSeries> out;
  for (uint32_t c = 0; c < profiles.size(); ++c) {
    for (size_t u = 0; u < profiles[c].size(); ++u) {
      UtilizationSeries s;
      s.chip = c;
      s.unit = utilization_units()[u];
      s.window_cycles = window_cycles;
      s.end_cycle = total_cycles;
      s.busy_fraction.reserve(windows);
      for (uint64_t w = 0; w < windows; ++w) {
        // The last window is cut at total_cycles so it is not diluted.
        const uint64_t begin = w * window_cycles;
        s.busy_fraction.push_back(profiles[c][u].fraction(begin, std::min(begin + window_cycles, total_cycles)));
      }
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace snr::analyze
