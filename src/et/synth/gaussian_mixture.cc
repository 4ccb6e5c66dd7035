#include "et/synth/gaussian_mixture.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/error.h"

namespace snr::et::synth {
namespace {

double log_normal_pdf(double x, double mean, double stddev) {
  const double z = (x - mean) / stddev;
  return -0.5 * z * z - std::log(stddev) - 0.5 * std::log(2 * std::numbers::pi);
}

void check_values(std::span<const double> values) {
  if (values.empty()) throw Error("cannot fit a Gaussian mixture to no values");
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) throw Error(fmt::format("Gaussian mixture input value {} is not finite", i));
  }
}

}  // namespace

double GaussianMixture::sample(Random& random) const {
  std::vector<double> weights;
  weights.reserve(components.size());
  for (const auto& c : components) weights.push_back(c.weight);
  const auto& c = components[random.pick(weights)];
  return c.mean + c.stddev * random.normal();
}

double GaussianMixture::density(double x) const {
  double total = 0;
  for (const auto& c : components) total += c.weight * std::exp(log_normal_pdf(x, c.mean, c.stddev));
  return total;
}

GaussianMixture fit_gaussian_mixture_k(std::span<const double> values, size_t k, const MixtureFitOptions& options) {
  check_values(values);
  if (k == 0) throw Error("a Gaussian mixture needs at least one component");
  const size_t n = values.size();
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  double mean_all = 0;
  for (double v : sorted) mean_all += v;
  mean_all /= static_cast<double>(n);
  double var_all = 0;
  for (double v : sorted) var_all += (v - mean_all) * (v - mean_all);
  var_all /= static_cast<double>(n);

  GaussianMixture model;
  for (size_t j = 0; j < k; ++j) {
    const size_t q = std::min(n - 1, static_cast<size_t>((static_cast<double>(j) + 0.5) / static_cast<double>(k) *
                                                         static_cast<double>(n)));
    model.components.push_back(GaussianComponent{1.0 / static_cast<double>(k), sorted[q],
                                                 std::max(options.min_stddev, std::sqrt(var_all) / static_cast<double>(k))});
  }

  std::vector<double> responsibility(n * k);
  double previous = -INFINITY;
  for (size_t iteration = 0; iteration < options.max_iterations; ++iteration) {
    // E step, in log space for stability.
    double log_likelihood = 0;
    for (size_t i = 0; i < n; ++i) {
      double max_log = -INFINITY;
      for (size_t j = 0; j < k; ++j) {
        const auto& c = model.components[j];
        const double l = std::log(std::max(c.weight, 1e-300)) + log_normal_pdf(sorted[i], c.mean, c.stddev);
        responsibility[i * k + j] = l;
        max_log = std::max(max_log, l);
      }
      double sum = 0;
      for (size_t j = 0; j < k; ++j) {
        responsibility[i * k + j] = std::exp(responsibility[i * k + j] - max_log);
        sum += responsibility[i * k + j];
      }
      for (size_t j = 0; j < k; ++j) responsibility[i * k + j] /= sum;
      log_likelihood += max_log + std::log(sum);
    }
    model.log_likelihood = log_likelihood;
    // M step.
    for (size_t j = 0; j < k; ++j) {
      double mass = 0, mean = 0;
      for (size_t i = 0; i < n; ++i) {
        mass += responsibility[i * k + j];
        mean += responsibility[i * k + j] * sorted[i];
      }
      auto& c = model.components[j];
      if (mass < 1e-12) {  // an empty component keeps its place with no weight
        c.weight = 0;
        continue;
      }
      mean /= mass;
      double var = 0;
      for (size_t i = 0; i < n; ++i) var += responsibility[i * k + j] * (sorted[i] - mean) * (sorted[i] - mean);
      c.weight = mass / static_cast<double>(n);
      c.mean = mean;
      c.stddev = std::max(options.min_stddev, std::sqrt(var / mass));
    }
    if (std::fabs(log_likelihood - previous) <= options.tolerance * std::max(1.0, std::fabs(log_likelihood))) break;
    previous = log_likelihood;
  }
  std::erase_if(model.components, [](const GaussianComponent& c) { return c.weight <= 0; });
  std::sort(model.components.begin(), model.components.end(),
            [](const GaussianComponent& a, const GaussianComponent& b) { return a.mean < b.mean; });
  const double parameters = 3.0 * static_cast<double>(model.components.size()) - 1.0;
  model.bic = -2.0 * model.log_likelihood + parameters * std::log(static_cast<double>(n));
  return model;
}

GaussianMixture fit_gaussian_mixture(std::span<const double> values, const MixtureFitOptions& options) {
  check_values(values);
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  const auto distinct = static_cast<size_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
  const size_t max_k = std::max<size_t>(1, std::min(options.max_components, distinct));
  GaussianMixture best = fit_gaussian_mixture_k(values, 1, options);
  for (size_t k = 2; k <= max_k; ++k) {
    GaussianMixture candidate = fit_gaussian_mixture_k(values, k, options);
    if (candidate.bic < best.bic) best = std::move(candidate);
  }
  return best;
}

}  // namespace snr::et::synth
