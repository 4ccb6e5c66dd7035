// What a reordering of one chip's stream saves, predicted from the run
// data alone: a light re-timing of the chip's program in which each link
// (source chip and memory → destination chip and memory) serves one
// transfer at a time in arrival order, as the simulator's DMA engine does.
//
// Hiding a DMA's WAIT stall does not save that stall when the transfer
// still has to queue on a link that other traffic keeps busy, or when the
// program then reaches the next WAIT earlier and stalls there instead (a
// prefetch pipeline whose depth the move does not change). Both show up
// only when the DMAs' completions are recomputed with the new issue times,
// so the prediction re-times the whole stream instead of summing stalls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/run_index.h"

namespace snr::analyze {

// Positions of one chip's stream (RunIndex::position_in_chip) that move,
// in their order, to immediately before the instruction at position
// `before` in the layout the previous moves left (CodeMove's semantics).
struct PositionMove {
  std::vector<uint32_t> positions;
  uint32_t before = 0;
};

class SavingModel {
 public:
  // `max_outstanding_dmas`: DMAs a chip may have in flight before an ISSUE
  // blocks (hw `dma.max_outstanding`); 0 means unlimited.
  SavingModel(const RunIndex& index, uint32_t chip, uint64_t max_outstanding_dmas);

  // Predicted cycles saved by the moves on the chip's stream: the modeled
  // stalls (WAITs on the chip's own DMAs, full DMA queues) of the recorded
  // order minus those of the new order. Negative when the order is slower.
  [[nodiscard]] int64_t predicted_saving_cycles(const std::vector<PositionMove>& moves) const;

 private:
  struct Transfer {
    uint64_t arrival_cycle = 0;   // base latency done: joins the link's queue
    uint64_t duration_cycles = 0;  // as recorded (the bandwidth it got)
  };

  // The stream's positions in the order the moves leave.
  [[nodiscard]] std::vector<uint32_t> new_order(const std::vector<PositionMove>& moves,
                                                std::vector<bool>& moved) const;

  const RunIndex& index_;
  uint64_t max_outstanding_;
  std::vector<uint32_t> stream_;            // instruction indexes of the chip, in order
  std::vector<uint64_t> stall_free_cycle_;  // per position: issue cycle less the modeled stalls up to it
  std::vector<uint32_t> dma_at_;            // per position: index into dmas of the DMA it issued, or kNone
  std::vector<uint32_t> wait_begin_;        // per position + 1: range into wait_dmas_
  std::vector<uint32_t> wait_dmas_;         // DMAs each modeled WAIT consumed
  std::vector<uint64_t> wait_lag_cycles_;   // per position: WAIT end after the last transfer end, as recorded
  std::vector<uint32_t> link_of_dma_;       // per DMA: link id
  std::vector<std::vector<Transfer>> other_traffic_;  // per link: other chips' transfers, by arrival
  uint64_t recorded_stall_cycles_ = 0;
};

}  // namespace snr::analyze
