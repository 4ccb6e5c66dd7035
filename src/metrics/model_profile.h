// Runs a compiled model in timing mode and turns the simulator's events
// into the coarse per-op profile a classic profiler gives (seed 000
// Figure 2a: op, time, achieved FLOP/s, HBM bandwidth) - step 1 of the
// workflow in §4.4 - plus the DMA records needed to examine one op closer
// (base-latency vs transfer stalls, the dependency chains of the
// all-gather's setup phase).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/model_image.h"
#include "compiler/vmem_liveness.h"
#include "metrics/run_metrics.h"
#include "sim/events.h"

namespace snr::metrics {

struct OpProfile {
  std::string name;
  std::string kind;
  double cycles = 0;             // mean over chips
  uint64_t instructions = 0;     // per chip (chip 0)
  uint64_t flops = 0;            // per chip
  uint64_t hbm_bytes = 0;        // per chip
  uint64_t network_bytes = 0;    // per chip
  double matrix_busy_cycles = 0; // mean over chips, summed over matrix units
};

// One DMA as the timing model saw it (cycles on the issuing chip's clock).
struct DmaRecord {
  uint32_t chip = 0;
  uint64_t dma_id = 0;
  int op = -1;  // index into compiler::ModelImage::ops of the issuing instruction
  uint64_t pc = 0;
  uint64_t src = 0, dst = 0, bytes = 0;  // operand values at issue
  sim::MemoryKind src_memory = sim::MemoryKind::kHbm, dst_memory = sim::MemoryKind::kVmem;
  uint64_t issue = 0, base_done = 0, transfer_start = 0, transfer_end = 0;
  uint64_t wait_start = 0, wait_end = 0;  // 0/0 when no WAIT named it
  // The earlier DMA (index into RunProfile::dmas) whose destination bytes
  // this DMA's source address was loaded from, or -1.
  int64_t address_from = -1;
  // Its share of its WAIT's stall, split as in seed 000 Figure 4 (wait_stall.h).
  uint64_t base_stall_cycles = 0;
  uint64_t transfer_stall_cycles = 0;
};

struct RunProfile {
  uint64_t cycles = 0;
  double clock_hz = 0;
  uint32_t chips = 0;
  uint32_t mxu_count = 0;
  std::vector<uint64_t> instructions_per_chip;
  std::vector<OpProfile> ops;   // same order as compiler::ModelImage::ops
  std::vector<DmaRecord> dmas;  // chip 0's DMAs, in issue order
  RunMetrics metrics;           // per chip, as every other command reports them
  // Chip 0's VMEM page liveness over the requested window (§5.3.2).
  std::optional<compiler::VmemLiveness> vmem_liveness;

  [[nodiscard]] double matrix_utilization() const;  // mean over chips (busy.h)
  [[nodiscard]] double op_matrix_utilization(size_t op) const;
};

// The window whose VMEM liveness a profile measures on chip 0: from the
// first instruction of op `begin_op` to the first of `end_op` (the end of
// the run when empty) - where a recorder would break and stop.
struct LivenessWindow {
  std::string begin_op;
  std::string end_op;
  uint64_t samples = 1000;
};

// One layer of a transformer step as a window: layer 1 when there are two
// or more layers (steady state, what a recording would take), else layer 0.
LivenessWindow layer_window(const compiler::ModelImage& image);

// Installs and runs the image in timing mode (throws on deadlock or after
// max_cycles). With `vmem_window`, also tracks chip 0's VMEM pages.
RunProfile profile_model(const compiler::ModelImage& image, uint64_t max_cycles,
                         const std::optional<LivenessWindow>& vmem_window = std::nullopt);

// Fixed-width table: op, kind, time, % of step, GFLOP/s, HBM GB/s, matrix
// utilization; then totals. Deterministic text.
std::string format_profile(const RunProfile& profile);
std::string format_profile_json(const RunProfile& profile);

// `snr run outdir/`: reads a compiled-model directory, applies hardware
// `key=value` overrides (what-if runs: --set dma.base_latency=250ns), runs
// every chip in timing mode and returns the profile as text or JSON.
std::string run_compiled_model(const std::string& directory, const std::vector<std::string>& hardware_overrides,
                               bool json, uint64_t max_cycles);

}  // namespace snr::metrics
