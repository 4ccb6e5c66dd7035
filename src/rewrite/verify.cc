#include "rewrite/verify.h"

#include <algorithm>
#include <unordered_set>

#include "isa/isa.h"
#include "rewrite/legality.h"
#include "rewrite/measure.h"
#include "rewrite/plan.h"

namespace snr::rewrite {

ReplaySummary replay_summary(const replay::ReplayInput& input, const VerifyOptions& options) {
  return measure_replay(input, options.replay);
}

uint64_t target_stall_cycles(const ReplaySummary& summary, const std::vector<uint64_t>& issue_pcs) {
  const std::unordered_set<uint64_t> targets(issue_pcs.begin(), issue_pcs.end());
  uint64_t total = 0;
  for (const DmaStallSample& dma : summary.dmas) {
    if (targets.count(dma.issue_pc)) total += dma.wait_stall_cycles;
  }
  return total;
}

analyze::Verification verify(const replay::ReplayInput& input, const ReplaySummary& baseline,
                             const std::vector<analyze::CodeMove>& moves, const VerifyOptions& options) {
  analyze::Verification v;
  v.attempted = true;
  v.baseline_cycles = baseline.total_cycles;
  const RewritePlan plan = plan_moves(input, moves);
  if (!plan.valid) {
    v.illegal_reason = plan.problem;
    return v;
  }
  const LegalityResult legality = check_legality(input, plan);
  if (!legality.legal) {
    v.illegal_reason = legality.reason;
    return v;
  }
  v.legal = true;
  // The suggestion's target DMAs: the moved DMA issues, found in the
  // rewritten run at their new addresses.
  std::vector<uint64_t> before_pcs, after_pcs;
  for (const analyze::CodeMove& move : moves) {
    for (uint64_t pc : move.pcs) {
      const isa::DecodedInstruction d = isa::decode(plan.old_words[plan.slot(pc)]);
      if (d.valid() && (d.row->effect == isa::Effect::kDma1d || d.row->effect == isa::Effect::kDma2d)) {
        before_pcs.push_back(pc);
        after_pcs.push_back(plan.new_pc(pc));
      }
    }
  }
  // Copies of the input share its saved memory (replay::SharedBytes), so
  // the rewritten variant costs no copy of the hundreds of MB.
  const ReplaySummary rewritten = measure_replay(apply_plan(input, plan), options.replay);
  v.rewritten_cycles = rewritten.total_cycles;
  v.measured_saving_cycles = static_cast<int64_t>(baseline.total_cycles) - static_cast<int64_t>(rewritten.total_cycles);
  v.target_stall_cycles_before = target_stall_cycles(baseline, before_pcs);
  v.target_stall_cycles_after = target_stall_cycles(rewritten, after_pcs);
  v.final_state_matched = rewritten.final_state_problems.empty();
  return v;
}

analyze::Verification verify(const replay::ReplayInput& input, const std::vector<analyze::CodeMove>& moves,
                             const VerifyOptions& options) {
  return verify(input, replay_summary(input, options), moves, options);
}

}  // namespace snr::rewrite
