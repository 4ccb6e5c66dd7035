// DMA stall analysis (seed 000 §5.2, Figure 4): each DMA's share of the
// WAIT stall that consumed it, split into the part before its base latency
// was fulfilled and the part after, or the slack when the WAIT came after
// the transfer ended; totals by op, link and chain.
#pragma once

#include <functional>
#include <vector>

#include "analyze/analysis.h"
#include "analyze/run_index.h"

namespace snr::analyze {

// One DmaStall per run.db DMA, in dma_id order, with its Figure 4 split
// (metrics/wait_stall.h, the split every command uses); dependency fields
// (backtails, chains) are left for dependencies.h.
std::vector<DmaStall> dma_stalls(const RunIndex& index);

// Totals per key, largest total stall (base + transfer) first, then key.
std::vector<StallGroup> group_stalls(const std::vector<DmaStall>& dmas,
                                     const std::function<std::string(const DmaStall&)>& key_of);

}  // namespace snr::analyze
