// Unit utilization (seed 000 §5.3.1, Figure 7): how many instances of a
// unit are busy at each cycle, integrated over windows or any span.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "analyze/run_index.h"

namespace snr::analyze {

// A piecewise-constant busy count built from [start, end) intervals, with
// its running integral, so the busy instance-cycles inside any span cost a
// binary search. `instances` caps the count: the mean over instances is
// busy_cycles / (instances * span).
class BusyProfile {
 public:
  struct Interval {
    uint64_t start_cycle = 0;
    uint64_t end_cycle = 0;
  };
  BusyProfile() = default;
  BusyProfile(std::vector<Interval> intervals, uint64_t instances);

  // Instance-cycles busy in [begin, end).
  [[nodiscard]] uint64_t busy_cycles(uint64_t begin, uint64_t end) const;
  // Mean busy fraction over instances in [begin, end), 0 for an empty span.
  [[nodiscard]] double fraction(uint64_t begin, uint64_t end) const;
  [[nodiscard]] uint64_t instances() const { return instances_; }

 private:
  [[nodiscard]] uint64_t integral_to(uint64_t cycle) const;

  uint64_t instances_ = 1;
  std::vector<uint64_t> cycle_;     // segment starts, ascending
  std::vector<uint64_t> count_;     // busy count from cycle_[i] to cycle_[i+1]
  std::vector<uint64_t> integral_;  // instance-cycles before cycle_[i]
};

// The units of Figure 7 in table order.
inline const std::vector<std::string>& utilization_units() {
  static const std::vector<std::string> units = {"matrix", "vector", "scalar", "dma"};
  return units;
}

// profiles[chip][u] for utilization_units()[u]: matrix / vector / scalar
// from run.db unit_busy (matrix counted over `mxu_count` instances), dma =
// any DMA issued by the chip in flight (issue to transfer end).
std::vector<std::vector<BusyProfile>> build_busy_profiles(const RunIndex& index, uint64_t mxu_count);

// One series per chip and unit, windows of `window_cycles` covering
// [0, total_cycles).
std::vector<UtilizationSeries> utilization_series(const std::vector<std::vector<BusyProfile>>& profiles,
                                                  uint64_t total_cycles, uint64_t window_cycles);

}  // namespace snr::analyze
