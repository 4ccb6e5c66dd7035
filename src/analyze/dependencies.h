// Dependency analysis (seed 000 §5.4, Figures 9 and 10). Conservative: a
// DMA ISSUE depends on the immediate producers of its registers. Relaxed:
// the walk continues backwards through lightweight scalar instructions (and
// scalar loads, through their memory edge) until it reaches memory a DMA
// wrote; the ISSUE could then move up to just after the WAIT that consumed
// that DMA. The DMA-to-DMA edges found this way give the dependent chains.
#pragma once

#include <cstdint>
#include <vector>

#include "analyze/analysis.h"
#include "analyze/run_index.h"

namespace snr::analyze {

// Per DMA (same order as the DmaStall vector): where its ISSUE is and how
// far the relaxed model lets it move, as positions in the issuing chip's
// stream (RunIndex::chip_stream).
struct Backtail {
  uint32_t issue = RunIndex::kNone;  // instruction index of the ISSUE
  uint32_t earliest_position = 0;    // the ISSUE may be placed right before this position
  uint32_t conservative_position = 0;
  std::vector<uint32_t> slice;       // lightweight instructions it needs, ascending
  bool blocked = false;              // a producer could not be ordered (e.g. WAIT on another chip)
};

struct DependencyResult {
  std::vector<Backtail> backtails;
  std::vector<DmaDependency> edges;  // relaxed DMA -> DMA, by consumer then producer
  std::vector<DmaChain> chains;
};

// Fills every DmaStall's backtail, conservative ready point, slice pcs,
// producers and chain membership.
DependencyResult analyze_dependencies(const RunIndex& index, std::vector<DmaStall>& dmas);

// Chains = maximal paths of the relaxed DMA graph inside one op of one chip:
// each head (a DMA with a successor but no predecessor there) is followed
// through its earliest-issued successor not yet in a chain. Chains of one
// DMA are not reported.
std::vector<DmaChain> find_chains(const std::vector<DmaStall>& dmas, const std::vector<DmaDependency>& edges);

}  // namespace snr::analyze
