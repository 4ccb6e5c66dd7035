// The feasible set of one resource class of seed 004 §7 (area, power or
// perimeter fractions): the simplex with slack {x >= 0, sum x <= 1}. The
// search keeps every design inside it, exactly in floating point, because
// the budget reader and the generator refuse a breakdown over 1.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "et/synth/random.h"

namespace snr::pathfind::search {

// The platform-independent seeded generator of the search (xoshiro256**):
// std::*_distribution differ between standard libraries, and a seed must
// give the same designs everywhere.
using Random = et::synth::Random;

// One class of parameters: `count` consecutive entries of the flat vector
// from `offset` that share the constraint sum <= 1.
struct SimplexBlock {
  size_t offset = 0;
  size_t count = 0;
};

// The sum in index order: the order the budget checks add its fractions in.
double block_sum(std::span<const double> x);

// Makes `x` satisfy the constraint exactly as floating point sees it:
// negatives and NaN become 0, and while the index-order sum exceeds 1 the
// largest entry gives up the excess (at least one ulp). A no-op on a point
// that already satisfies it.
void enforce_simplex(std::span<double> x);

// Euclidean projection onto {x >= 0, sum x <= 1}: the point clipped at 0
// when that sums to at most 1, otherwise the projection onto the face
// sum x = 1 (sort, threshold); then enforce_simplex for the last ulp.
// With `weights` (all positive, one per entry) the projection is in the
// metric sum (x_i - y_i)^2 / weights_i instead: entry i gives up
// tau * weights_i, so entries with small weights keep their share. That is
// the Euclidean projection in the coordinates x_i / sqrt(weights_i), the
// metric a search that scales its steps by sqrt(weights) moves in.
void project_to_simplex(std::span<double> x, std::span<const double> weights = {});

// Every block of `x` projected (`weights` as above, for the whole vector).
void project(std::span<double> x, std::span<const SimplexBlock> blocks, std::span<const double> weights = {});

// Uniform over {x >= 0, sum x <= 1} in each block (a flat Dirichlet over the
// entries plus the slack); every other entry of `x` is left alone.
void sample_uniform(std::span<double> x, std::span<const SimplexBlock> blocks, Random& random);

// Whether every block satisfies the constraint exactly.
bool feasible(std::span<const double> x, std::span<const SimplexBlock> blocks);

}  // namespace snr::pathfind::search
