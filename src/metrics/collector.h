// Metrics of a live run: subscribes to the simulator's event bus and feeds
// the same RunMetricsBuilder that reads run data, so `snr run` and the
// profiler count exactly what a replay's analysis of the same run counts.
// Like every bus subscriber it must outlive the runs it listens to.
#pragma once

#include <cstdint>
#include <vector>

#include "metrics/run_metrics.h"
#include "sim/events.h"

namespace snr::metrics {

class MetricsCollector {
 public:
  MetricsCollector(sim::EventBus& bus, uint32_t chips, uint64_t mxu_count);
  MetricsCollector(const MetricsCollector&) = delete;
  MetricsCollector& operator=(const MetricsCollector&) = delete;

  [[nodiscard]] RunMetrics finish(uint64_t total_cycles) const;

 private:
  static constexpr uint64_t kNone = UINT64_MAX;
  struct OpenDma {
    uint32_t chip = 0;
    uint64_t bytes = 0;
    uint64_t base_done_cycle = 0;
    uint64_t transfer_start_cycle = 0;
    uint64_t transfer_end_cycle = 0;
    bool waited = false;
    RunMetricsBuilder::WaitKey wait{};
    uint64_t wait_start_cycle = 0;
    uint64_t wait_end_cycle = 0;
  };

  void on_dma(const sim::DmaEvent& event);

  RunMetricsBuilder builder_;
  std::vector<OpenDma> dmas_;             // by dma_id (ids are dense, in issue order)
  std::vector<uint64_t> issued_;          // per chip: instructions issued so far
  std::vector<uint64_t> executing_;       // per chip: the issued, not yet retired instruction, or kNone
};

}  // namespace snr::metrics
