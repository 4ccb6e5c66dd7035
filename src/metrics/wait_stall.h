// How a WAIT's stall is charged to the DMAs it consumed (seed 000 §5.2,
// Figure 4): the one split used by the profiler and the analyzer.
//
// A WAIT that consumed several DMAs stalls until the last of them ends.
// Each DMA is charged the part of that stall between the previous
// completion (of those DMAs) and its own, so the charges add up to the
// WAIT's stall; a DMA's charge is "base latency" up to its base-latency
// completion and "transfer" after. A DMA that ended before its WAIT began
// is not charged; its slack is the gap.
#pragma once

#include <cstdint>
#include <span>

namespace snr::metrics {

struct WaitedDma {
  // Inputs.
  uint64_t dma_id = 0;  // ties between equal ends break by id
  uint64_t base_done_cycle = 0;
  uint64_t transfer_end_cycle = 0;
  uint64_t wait_start_cycle = 0;
  uint64_t wait_end_cycle = 0;
  // Outputs.
  uint64_t base_stall_cycles = 0;
  uint64_t transfer_stall_cycles = 0;
  uint64_t slack_cycles = 0;
};

// `consumed` are the DMAs one WAIT consumed, in any order; fills the three
// outputs of each in place (the elements keep their order).
void split_wait_stall(std::span<WaitedDma> consumed);

}  // namespace snr::metrics
