// One-dimensional Gaussian mixtures fitted by expectation-maximization, with
// the number of components chosen by the Bayesian information criterion.
// Initialization is deterministic (component means at data quantiles), so
// the same data always gives the same fit.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "et/synth/random.h"

namespace snr::et::synth {

struct GaussianComponent {
  double weight = 1;
  double mean = 0;
  double stddev = 1;
};

struct GaussianMixture {
  std::vector<GaussianComponent> components;
  double log_likelihood = 0;
  double bic = 0;

  [[nodiscard]] double sample(Random& random) const;
  [[nodiscard]] double density(double x) const;
};

struct MixtureFitOptions {
  size_t max_components = 6;
  size_t max_iterations = 500;
  // Standard deviations never shrink below this, so repeated values (a
  // point mass) give a narrow component instead of a singular one.
  double min_stddev = 1e-3;
  double tolerance = 1e-10;  // relative change of the log-likelihood
};

// Fits k = 1 .. min(max_components, distinct values) and keeps the lowest
// BIC. `values` must be non-empty and finite (throws snr::Error otherwise).
GaussianMixture fit_gaussian_mixture(std::span<const double> values, const MixtureFitOptions& options = {});

// EM for a fixed component count (exposed for tests).
GaussianMixture fit_gaussian_mixture_k(std::span<const double> values, size_t components,
                                       const MixtureFitOptions& options = {});

}  // namespace snr::et::synth
