// Per-NPU compute slow-down (stragglers, heterogeneous chips): scales the
// duration of every compute node (GPU and CPU) of each NPU's graph by that
// NPU's factor, once before the run, so the event loop and the results see
// the slowed times as the NPU's own. Factors come from
// --perturbation-configuration (dsim/perturbation).
#pragma once

#include <vector>

#include "dsim/workload/workload.h"

namespace snr::dsim {

// `factors` has one entry per graph (or is empty: nothing changes). A
// slowed duration is rounded to the nearest ns; one that does not fit the
// simulator's clock is an snr::Error naming the NPU and node.
void apply_compute_slowdown(std::vector<RankGraph>& graphs, const std::vector<double>& factors);

}  // namespace snr::dsim
