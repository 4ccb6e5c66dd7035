#include "pathfind/search/simplex.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace snr::pathfind::search {

double block_sum(std::span<const double> x) {
  double sum = 0;
  for (double v : x) sum += v;
  return sum;
}

void enforce_simplex(std::span<double> x) {
  for (double& v : x) {
    if (!(v > 0)) v = 0;  // also NaN
    if (v > 1) v = 1;
  }
  // Each pass removes the excess from the largest entry; rounding can leave
  // a last ulp over, so the loop takes at least one ulp each time and ends
  // after a handful of passes.
  for (double sum = block_sum(x); sum > 1; sum = block_sum(x)) {
    double& largest = *std::max_element(x.begin(), x.end());
    const double reduced = std::max(0.0, largest - (sum - 1));
    largest = reduced < largest ? reduced : std::nextafter(largest, 0.0);
  }
}

void project_to_simplex(std::span<double> x, std::span<const double> weights) {
  auto weight = [&](size_t i) { return weights.empty() ? 1.0 : weights[i]; };
  double clipped = 0;
  for (double v : x) clipped += v > 0 ? v : 0;
  if (clipped > 1) {
    // The sum constraint is active: x_i = max(x_i - tau * weight_i, 0) with
    // tau the threshold that makes the sum 1. Entries leave the support in
    // the order of x_i / weight_i (Held, Wolfe and Crowder's sort method,
    // weighted): keep the most entries for which the threshold leaves the
    // last of them positive.
    std::vector<size_t> order(x.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return x[a] / weight(a) > x[b] / weight(b); });
    double sum_x = 0, sum_w = 0, tau = 0;
    for (size_t i : order) {
      sum_x += x[i];
      sum_w += weight(i);
      const double candidate = (sum_x - 1) / sum_w;
      if (x[i] - candidate * weight(i) > 0) tau = candidate;
    }
    for (size_t i = 0; i < x.size(); ++i) x[i] -= tau * weight(i);
  }
  enforce_simplex(x);
}

void project(std::span<double> x, std::span<const SimplexBlock> blocks, std::span<const double> weights) {
  for (const SimplexBlock& b : blocks) {
    project_to_simplex(x.subspan(b.offset, b.count), weights.empty() ? weights : weights.subspan(b.offset, b.count));
  }
}

void sample_uniform(std::span<double> x, std::span<const SimplexBlock> blocks, Random& random) {
  for (const SimplexBlock& b : blocks) {
    // count + 1 exponential draws normalised: the last one is the slack.
    std::span<double> block = x.subspan(b.offset, b.count);
    double total = 0;
    for (double& v : block) {
      v = -std::log(1.0 - random.uniform());
      total += v;
    }
    total += -std::log(1.0 - random.uniform());
    if (!(total > 0)) total = 1;  // every draw 0: leave the block at 0
    for (double& v : block) v /= total;
    enforce_simplex(block);
  }
}

bool feasible(std::span<const double> x, std::span<const SimplexBlock> blocks) {
  for (const SimplexBlock& b : blocks) {
    std::span<const double> block = x.subspan(b.offset, b.count);
    for (double v : block) {
      if (!(v >= 0 && v <= 1)) return false;
    }
    if (block_sum(block) > 1) return false;
  }
  return true;
}

}  // namespace snr::pathfind::search
