#include "et/synth/trace_stats.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/error.h"

namespace snr::et::synth {

double total_variation_distance(const std::map<int64_t, uint64_t>& a, const std::map<int64_t, uint64_t>& b) {
  double total_a = 0, total_b = 0;
  std::set<int64_t> keys;
  for (const auto& [k, v] : a) {
    total_a += static_cast<double>(v);
    keys.insert(k);
  }
  for (const auto& [k, v] : b) {
    total_b += static_cast<double>(v);
    keys.insert(k);
  }
  if (total_a == 0 || total_b == 0) throw Error("total-variation distance of an empty distribution");
  double sum = 0;
  for (int64_t k : keys) {
    const auto ia = a.find(k);
    const auto ib = b.find(k);
    const double pa = ia == a.end() ? 0 : static_cast<double>(ia->second) / total_a;
    const double pb = ib == b.end() ? 0 : static_cast<double>(ib->second) / total_b;
    sum += std::fabs(pa - pb);
  }
  return sum / 2;
}

double ks_statistic(std::span<const double> a, std::span<const double> b) {
  if (a.empty() || b.empty()) throw Error("Kolmogorov-Smirnov statistic of an empty sample");
  std::vector<double> x(a.begin(), a.end()), y(b.begin(), b.end());
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  size_t i = 0, j = 0;
  double worst = 0;
  while (i < x.size() && j < y.size()) {
    // Step past every copy of the smaller value on both sides, so ties
    // (repeated sizes) are compared after the full jump of each CDF.
    const double v = std::min(x[i], y[j]);
    while (i < x.size() && x[i] == v) ++i;
    while (j < y.size() && y[j] == v) ++j;
    const double fx = static_cast<double>(i) / static_cast<double>(x.size());
    const double fy = static_cast<double>(j) / static_cast<double>(y.size());
    worst = std::max(worst, std::fabs(fx - fy));
  }
  return worst;
}

CommSummary summarize(std::span<const MasterTrace> masters) {
  CommSummary summary;
  for (const auto& m : masters) {
    for (const auto& r : m.records) {
      ++summary.type_counts[r.comm_type];
      summary.log2_sizes.push_back(std::log2(static_cast<double>(r.size_bytes)));
      ++summary.collectives;
    }
  }
  return summary;
}

}  // namespace snr::et::synth
