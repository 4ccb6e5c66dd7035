// Per-chip metrics of one run — instructions, stall cycles by reason, unit
// utilization (busy.h) and the DMA WAIT stall split (wait_stall.h) — built
// the same way from a live run (collector.h, for `snr run` and the
// profiler) and from run data (`metrics_of`, for the replayer's summary and
// the analyzer), so every command reports the same numbers for the same run.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "formats/rundb/run_data.h"
#include "metrics/busy.h"
#include "metrics/wait_stall.h"
#include "sim/events.h"
#include "sim/timing.h"

namespace snr::metrics {

inline constexpr size_t kStallReasonCount = static_cast<size_t>(sim::StallReason::kCount);

struct ChipMetrics {
  uint64_t instructions = 0;
  std::array<uint64_t, kStallReasonCount> stall_cycles{};  // by sim::StallReason
  std::vector<BusyProfile> busy;                           // kBusyUnits order
  uint64_t dma_transfers = 0;  // DMAs the chip issued that completed
  uint64_t dma_bytes = 0;
  // WAIT stall charged to the DMAs this chip issued (wait_stall.h).
  uint64_t dma_base_stall_cycles = 0;
  uint64_t dma_transfer_stall_cycles = 0;
  // False for a chip a subset recording left out (rundb::recorded_chips):
  // it ran nothing in the window, so averages and listings skip it.
  bool recorded = true;

  [[nodiscard]] uint64_t total_stall_cycles() const;
  [[nodiscard]] const BusyProfile& profile(BusyUnit unit) const { return busy.at(static_cast<size_t>(unit)); }
};

struct RunMetrics {
  uint64_t total_cycles = 0;
  std::vector<ChipMetrics> chips;
  // Every DMA a WAIT consumed, with its charge, by ascending dma_id.
  std::vector<WaitedDma> waited_dmas;

  // Instructions per cycle of a chip over the whole run (0 without cycles).
  [[nodiscard]] double ipc(uint32_t chip) const;
  // Busy fraction of a chip's unit over the whole run [0, total_cycles).
  [[nodiscard]] double utilization(uint32_t chip, BusyUnit unit) const;
  // The same averaged over the recorded chips.
  [[nodiscard]] double mean_utilization(BusyUnit unit) const;
  [[nodiscard]] uint32_t recorded_chip_count() const;
};

// Collects what a run did, then computes the metrics. A WAIT is named by a
// key that is the same for every DMA it consumed (waiting chip, its step).
class RunMetricsBuilder {
 public:
  using WaitKey = std::pair<uint32_t, uint64_t>;

  RunMetricsBuilder(uint32_t chips, uint64_t mxu_count);

  void instruction(uint32_t chip, uint64_t stall_cycles, sim::StallReason reason);
  void unit_busy(uint32_t chip, BusyUnit unit, uint64_t start_cycle, uint64_t end_cycle);
  void dma_transfer(uint32_t issuing_chip, uint64_t bytes, uint64_t transfer_start_cycle, uint64_t transfer_end_cycle);
  void waited_dma(uint32_t issuing_chip, WaitKey wait, const WaitedDma& dma);

  [[nodiscard]] RunMetrics finish(uint64_t total_cycles) const;

 private:
  uint64_t mxu_count_;
  std::vector<ChipMetrics> chips_;
  std::vector<ChipBusyIntervals> intervals_;
  std::map<WaitKey, std::vector<std::pair<uint32_t, WaitedDma>>> waits_;
};

// Metrics of a replay's run data; `mxu_count` from its hardware config; at
// least `chips` chips (more when the records name more), those outside the
// run's recorded chips marked unrecorded. Throws snr::Error
// on a stall reason or unit name the simulator does not have (run data from
// a newer or damaged writer).
RunMetrics metrics_of(const rundb::RunData& data, uint64_t mxu_count, uint32_t chips = 0);

// Each DMA's charge of the stall of the WAIT that consumed it (0 for a DMA
// no WAIT consumed), in `dmas` order: the figure snr analyze reports per
// DMA, so a WAIT that consumes several DMAs stalls once, shared among them
// (wait_stall.h). A DMA's WAIT is named by (wait_chip, wait_step); any
// number that is one WAIT's alone on its chip will do.
std::vector<uint64_t> charged_wait_stall_cycles(const std::vector<rundb::DmaRecord>& dmas);

// A functional run has no cycles, stalls or busy units: its instruction
// counts only (the functional core publishes no per-instruction events).
RunMetrics functional_run_metrics(const sim::RunOutcome& outcome);

// sim::StallReason by its run-data name.
sim::StallReason stall_reason_of_name(std::string_view name);

}  // namespace snr::metrics
