// The dynamic half of suggestion verification: re-executes the recorded
// window functionally, records what every instruction inside a rewritten
// span reads and writes, and checks that the rewritten order keeps every
// dependency (docs/rewrite.md, "Legality").
#pragma once

#include <cstdint>
#include <string>

#include "replay/replay_input.h"
#include "rewrite/plan.h"

namespace snr::rewrite {

struct LegalityResult {
  bool legal = false;
  std::string reason;             // the first violation, as a sentence (when !legal)
  uint64_t instructions = 0;      // re-executed, all chips
  uint64_t span_traversals = 0;   // straight-line executions of rewritten spans, all chips
  uint64_t recorded_accesses = 0; // accesses indexed for the check
  uint64_t pairs_examined = 0;    // candidate pairs looked at
};

// `plan` must be valid. Throws snr::Error when the window itself cannot be
// re-executed (divergence from the recorded pcs, fault, deadlock); a
// dependency the rewrite would break is a result, not an exception.
LegalityResult check_legality(const replay::ReplayInput& input, const RewritePlan& plan);

}  // namespace snr::rewrite
