// A distribution over positive quantities (message sizes in bytes, compute
// gaps in microseconds) fitted in log2 space. Traces usually repeat a few
// exact sizes (bucket sizes, layer shapes): when a quantity takes at most
// kMaxAtoms distinct values it is kept as those atoms with their
// frequencies, so sampled sizes are ones the workload really uses. The
// Gaussian mixture over log2(offset + value) is always fitted as well and is
// what the sampler draws from when there are more distinct values.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "et/synth/gaussian_mixture.h"
#include "et/synth/random.h"

namespace snr::et::synth {

struct Atom {
  uint64_t value = 0;
  double probability = 0;
};

struct ValueModel {
  static constexpr size_t kMaxAtoms = 32;
  // log2(offset + value) is modelled: 0 for sizes (always >= 1), 1 for gaps
  // (which may be zero).
  double offset = 0;
  uint64_t samples = 0;
  uint64_t min_value = 0;
  uint64_t max_value = 0;
  std::vector<Atom> atoms;  // empty when the mixture is used
  GaussianMixture mixture;

  // Draws a value; mixture draws are rounded and clamped to
  // [min_value / 2, max_value * 2] so a tail never produces absurd sizes.
  uint64_t sample(Random& random) const;
};

// `values` must be non-empty; throws snr::Error otherwise.
ValueModel fit_value_model(std::span<const uint64_t> values, double offset, bool allow_atoms = true);

}  // namespace snr::et::synth
