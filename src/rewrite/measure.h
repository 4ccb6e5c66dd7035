// A timing replay that keeps only what suggestion verification compares:
// total cycles, each DMA's issuing pc and WAIT stall, and whether the
// device's end state was reached. It subscribes a few counters to the
// event bus instead of the performance tracker, so it costs about a bare
// timing run (docs/benchmarks.md, "Suggestion verification").
#pragma once

#include "replay/replay_input.h"
#include "replay/replayer.h"
#include "rewrite/verify.h"

namespace snr::rewrite {

// Same pc check, window end and end-state comparison as replay::run_replay;
// throws snr::Error on a divergence, fault or deadlock.
ReplaySummary measure_replay(const replay::ReplayInput& input, const replay::ReplayOptions& options);

}  // namespace snr::rewrite
