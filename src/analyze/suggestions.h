// Optimization suggestions (seed 000 Algorithm 2 and beyond): move a
// stalled DMA's ISSUE, with its lightweight address computation, as early
// as its relaxed dependencies, the instructions in between and VMEM allow;
// issue independent dependent-DMA chains level by level so their base
// latencies overlap. Suggestions are static code moves on one chip's
// stream (all chips run one text).
#pragma once

#include <vector>

#include "analyze/analysis.h"
#include "analyze/analyze.h"
#include "analyze/dependencies.h"
#include "analyze/run_index.h"
#include "analyze/vmem_usage.h"

namespace snr::analyze {

struct SuggestionInputs {
  const RunIndex& index;
  const std::vector<DmaStall>& dmas;
  const DependencyResult& dependencies;
  const VmemTimeline& vmem;
  uint64_t dma_max_outstanding = 0;  // hw dma.max_outstanding; 0: unlimited
};

// Best predicted saving first: the top options.top_suggestions
// issue-earlier suggestions plus every chain suggestion. The predicted
// saving re-times the chip's stream with the moves applied (saving_model.h);
// a suggestion predicted to save nothing is dropped.
std::vector<Suggestion> suggest(const SuggestionInputs& inputs, const AnalyzeOptions& options);

}  // namespace snr::analyze
