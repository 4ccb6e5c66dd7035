// Distances used to judge how closely synthesized traces follow the traces
// a model was fitted on.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "et/synth/comm_model.h"

namespace snr::et::synth {

// Total-variation distance between two categorical distributions given as
// counts (keys missing on one side count as zero). 0 = identical, 1 = disjoint.
double total_variation_distance(const std::map<int64_t, uint64_t>& a, const std::map<int64_t, uint64_t>& b);

// Two-sample Kolmogorov-Smirnov statistic: the largest gap between the two
// empirical CDFs. Both samples must be non-empty (throws snr::Error).
double ks_statistic(std::span<const double> a, std::span<const double> b);

struct CommSummary {
  std::map<int64_t, uint64_t> type_counts;
  std::vector<double> log2_sizes;
  uint64_t collectives = 0;
};

// Collectives of the master traces (rank 0) of `masters`.
CommSummary summarize(std::span<const MasterTrace> masters);

}  // namespace snr::et::synth
