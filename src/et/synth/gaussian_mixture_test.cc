#include "et/synth/gaussian_mixture.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "et/synth/value_model.h"

namespace snr::et::synth {
namespace {

std::vector<double> draw_mixture(const std::vector<GaussianComponent>& truth, size_t n, uint64_t seed) {
  GaussianMixture m;
  m.components = truth;
  Random random(seed);
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) out.push_back(m.sample(random));
  return out;
}

TEST(GaussianMixture, RecoversKnownTwoComponentMixture) {
  // log2 message sizes: ~1 KiB (30%) and ~1 MiB (70%).
  const auto values = draw_mixture({{0.3, 10.0, 0.5}, {0.7, 20.0, 1.0}}, 4000, 42);
  const GaussianMixture fit = fit_gaussian_mixture(values);
  ASSERT_EQ(fit.components.size(), 2u);
  EXPECT_NEAR(fit.components[0].weight, 0.3, 0.03);
  EXPECT_NEAR(fit.components[0].mean, 10.0, 0.1);
  EXPECT_NEAR(fit.components[0].stddev, 0.5, 0.1);
  EXPECT_NEAR(fit.components[1].weight, 0.7, 0.03);
  EXPECT_NEAR(fit.components[1].mean, 20.0, 0.1);
  EXPECT_NEAR(fit.components[1].stddev, 1.0, 0.1);
}

TEST(GaussianMixture, BicPrefersOneComponentForUnimodalData) {
  const auto values = draw_mixture({{1.0, 15.0, 2.0}}, 3000, 7);
  const GaussianMixture fit = fit_gaussian_mixture(values);
  ASSERT_EQ(fit.components.size(), 1u);
  EXPECT_NEAR(fit.components[0].mean, 15.0, 0.15);
  EXPECT_NEAR(fit.components[0].stddev, 2.0, 0.15);
}

TEST(GaussianMixture, FindsThreeSeparatedClusters) {
  const auto values = draw_mixture({{0.2, 8.0, 0.3}, {0.5, 14.0, 0.3}, {0.3, 22.0, 0.5}}, 5000, 3);
  const GaussianMixture fit = fit_gaussian_mixture(values);
  ASSERT_EQ(fit.components.size(), 3u);
  EXPECT_NEAR(fit.components[1].mean, 14.0, 0.1);
  EXPECT_NEAR(fit.components[1].weight, 0.5, 0.03);
}

TEST(GaussianMixture, IsDeterministicAndHandlesPointMass) {
  const auto values = draw_mixture({{0.5, 5.0, 1.0}, {0.5, 9.0, 1.0}}, 500, 9);
  const auto a = fit_gaussian_mixture(values);
  const auto b = fit_gaussian_mixture(values);
  ASSERT_EQ(a.components.size(), b.components.size());
  for (size_t i = 0; i < a.components.size(); ++i) EXPECT_EQ(a.components[i].mean, b.components[i].mean);
  const std::vector<double> constant(100, 20.0);
  const auto point = fit_gaussian_mixture(constant);
  ASSERT_EQ(point.components.size(), 1u);
  EXPECT_DOUBLE_EQ(point.components[0].mean, 20.0);
  EXPECT_GT(point.components[0].stddev, 0);
  EXPECT_THROW(fit_gaussian_mixture(std::vector<double>{}), Error);
  EXPECT_THROW(fit_gaussian_mixture(std::vector<double>{1.0, NAN}), Error);
}

TEST(ValueModel, KeepsFewDistinctValuesAsAtoms) {
  const std::vector<uint64_t> sizes = {1024, 1024, 4096, 1024};
  const ValueModel m = fit_value_model(sizes, 0);
  ASSERT_EQ(m.atoms.size(), 2u);
  EXPECT_EQ(m.atoms[0].value, 1024u);
  EXPECT_DOUBLE_EQ(m.atoms[0].probability, 0.75);
  Random random(1);
  for (int i = 0; i < 100; ++i) {
    const uint64_t v = m.sample(random);
    EXPECT_TRUE(v == 1024 || v == 4096);
  }
}

}  // namespace
}  // namespace snr::et::synth
