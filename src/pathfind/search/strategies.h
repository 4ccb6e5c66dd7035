// The parallelism strategy space of seed 004 §3.3: every strategy that
// spreads a workload over exactly N devices and that predict() accepts.
//
//  transformer  tp x pp x dp = N (CR-{tp}-d{dp}-p{pp}, Megatron's tensor
//               parallelism): tp divides the heads, the feedforward width
//               and the vocabulary (and the sequence with sp; the key/value
//               heads split or replicate evenly in inference); pp x
//               interleave divides the blocks; dp x microbatch divides the
//               batch (training) or dp divides it (inference).
//  gemm         d{N}-p1, CR-{kp1}-d{dp}-p1 and RC-{kp1}-{kp2}-d{dp}-p1: one
//               GEMM has no layers to pipeline; every device gets work
//               (dp x KP1 rows at most M for RC, dp at most M otherwise,
//               KP2 at most N, CR's KP1 at most K).
//  lstm         d-p, CR and RC: lp divides the layers, dp the batch.
#pragma once

#include <cstdint>
#include <vector>

#include "pathfind/predict/strategy.h"
#include "pathfind/predict/workload.h"

namespace snr::pathfind::search {

// Most strategies one enumeration may give; far above real device counts
// (2^40 devices give about 10^5 GEMM strategies).
inline constexpr size_t kMaxStrategies = 200000;

// Every strategy for `devices`, kernel split none, then CR, then RC, each by
// ascending factors. `options` carries what is not enumerated
// (interleave, sp, recompute, zero1 for a transformer); its counts must be
// 1. Throws snr::Error naming the option that does not apply to the
// workload, or when nothing fits (saying why).
std::vector<Strategy> enumerate_strategies(const Workload& workload, uint64_t devices, const Strategy& options = {});

// "search" or "search,sp,recompute=selective": the options part as a
// Strategy whose counts are 1; throws naming a count given there.
Strategy parse_search_options(std::string_view text);

// What users write for the parallelism of a search: one strategy
// ("CR-8-d64-p1", "tp=8,pp=4"), whose device count must equal `devices`
// unless that is 0, or "search[,OPTIONS]" for every strategy of `devices`
// (then required). Throws naming what is wrong.
std::vector<Strategy> strategies_to_search(const Workload& workload, std::string_view parallelism, uint64_t devices);

}  // namespace snr::pathfind::search
