// Suggestion verification (seed 000 Algorithm 2, one step further): plan the
// code moves, check that the rewritten order keeps every dependency, replay
// the original and the rewritten window in timing mode and report what the
// suggestion really saves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "replay/replay_input.h"
#include "replay/replayer.h"

namespace snr::rewrite {

struct VerifyOptions {
  replay::ReplayOptions replay;  // hardware and overrides, for both replays
};

// What verification needs from a timing replay: total cycles and, per DMA,
// its issuing chip and pc and the cycles its WAIT stalled on it.
struct DmaStallSample {
  uint32_t chip = 0;
  uint64_t issue_pc = 0;
  uint64_t wait_stall_cycles = 0;
};

struct ReplaySummary {
  uint64_t total_cycles = 0;
  std::vector<DmaStallSample> dmas;
  std::vector<std::string> final_state_problems;  // empty: the device's end state was reached
};

// Replays `input` once (the baseline shared by many suggestions). Throws
// snr::Error like run_replay.
ReplaySummary replay_summary(const replay::ReplayInput& input, const VerifyOptions& options);

// Summed WAIT stalls of the DMAs issued at `issue_pcs`, any chip.
uint64_t target_stall_cycles(const ReplaySummary& summary, const std::vector<uint64_t>& issue_pcs);

// Verifies one suggestion against a precomputed baseline of the same input
// and options. An illegal rewrite is a result (legal = false, reason set),
// not an exception; a replay that cannot run at all throws snr::Error.
analyze::Verification verify(const replay::ReplayInput& input, const ReplaySummary& baseline,
                             const std::vector<analyze::CodeMove>& moves, const VerifyOptions& options);

// Same, replaying the baseline first.
analyze::Verification verify(const replay::ReplayInput& input, const std::vector<analyze::CodeMove>& moves,
                             const VerifyOptions& options);

}  // namespace snr::rewrite
