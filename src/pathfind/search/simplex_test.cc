#include "pathfind/search/simplex.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace snr::pathfind::search {
namespace {

std::vector<double> projected(std::vector<double> x) {
  project_to_simplex(x);
  return x;
}

TEST(Simplex, PointsInsideStay) {
  EXPECT_EQ(projected({0.2, 0.3}), (std::vector<double>{0.2, 0.3}));
  EXPECT_EQ(projected({0.0, 0.0, 0.0}), (std::vector<double>{0.0, 0.0, 0.0}));
  EXPECT_EQ(projected({0.25, 0.75}), (std::vector<double>{0.25, 0.75}));
}

TEST(Simplex, NegativesClipWhenTheRestFits) {
  EXPECT_EQ(projected({-0.5, 0.3}), (std::vector<double>{0.0, 0.3}));
  EXPECT_EQ(projected({-1.0, -2.0}), (std::vector<double>{0.0, 0.0}));
}

TEST(Simplex, OverBudgetGoesToTheFaceSumOne) {
  EXPECT_EQ(projected({1.0, 1.0}), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(projected({2.0, 0.0}), (std::vector<double>{1.0, 0.0}));
  EXPECT_EQ(projected({0.75, 0.75, -1.0}), (std::vector<double>{0.5, 0.5, 0.0}));
  // tau = (1.5 - 1) / 2: the third entry falls below it and leaves the support.
  EXPECT_EQ(projected({1.0, 0.5, 0.125}), (std::vector<double>{0.75, 0.25, 0.0}));
  EXPECT_EQ(projected({3.0, 1.0}), (std::vector<double>{1.0, 0.0}));
}

TEST(Simplex, WeightedProjectionTakesTheExcessInProportionToTheWeights) {
  auto weighted = [](std::vector<double> x, const std::vector<double>& w) {
    project_to_simplex(x, w);
    return x;
  };
  // 2 - 4 tau = 1: tau = 0.25, given up once by the first entry and three times by the second.
  EXPECT_EQ(weighted({1.0, 1.0}, {1.0, 3.0}), (std::vector<double>{0.75, 0.25}));
  EXPECT_EQ(weighted({0.5, 0.5, 1.0}, {0.25, 0.25, 0.5}), (std::vector<double>{0.25, 0.25, 0.5}));
  // Unit weights are the Euclidean projection.
  EXPECT_EQ(weighted({0.75, 0.75, -1.0}, {1.0, 1.0, 1.0}), projected({0.75, 0.75, -1.0}));
  // An entry whose share would go negative leaves the support.
  EXPECT_EQ(weighted({1.5, 0.25}, {1.0, 4.0}), (std::vector<double>{1.0, 0.0}));
  // Inside: untouched whatever the weights.
  EXPECT_EQ(weighted({0.25, 0.5}, {1.0, 100.0}), (std::vector<double>{0.25, 0.5}));
  // Per block.
  std::vector<double> x{1.0, 1.0, 0.5, 0.75};
  project(x, std::vector<SimplexBlock>{{0, 2}, {2, 2}}, std::vector<double>{1.0, 3.0, 1.0, 1.0});
  EXPECT_EQ(x, (std::vector<double>{0.75, 0.25, 0.375, 0.625}));
}

TEST(Simplex, ProjectionIsTheNearestPoint) {
  // Against a brute-force search over a fine grid of the 2-D region.
  const std::vector<double> x{0.9, 0.6};
  const std::vector<double> p = projected(x);
  auto dist = [&](double a, double b) { return (a - x[0]) * (a - x[0]) + (b - x[1]) * (b - x[1]); };
  double best = dist(p[0], p[1]);
  for (int i = 0; i <= 200; ++i) {
    for (int j = 0; i + j <= 200; ++j) EXPECT_GE(dist(i / 200.0, j / 200.0), best - 1e-15);
  }
  EXPECT_DOUBLE_EQ(p[0], 0.65);
  EXPECT_DOUBLE_EQ(p[1], 0.35);
}

TEST(Simplex, SumIsAtMostOneInFloatingPoint) {
  // Thirds, tenths and sevenths round up when added in index order.
  for (size_t n : {3u, 7u, 10u, 17u}) {
    std::vector<double> x(n, 1.0);
    project_to_simplex(x);
    EXPECT_LE(block_sum(x), 1.0) << n;
    for (double v : x) EXPECT_GE(v, 0.0);
    std::vector<double> tenths(n, 1.0 / static_cast<double>(n) + 1e-17);
    enforce_simplex(tenths);
    EXPECT_LE(block_sum(tenths), 1.0) << n;
  }
  // Fractions a budget file may hold that add up to 1.0000000000000002.
  std::vector<double> x{0.2, 0.4, 0.3, 0.1};
  ASSERT_GT(block_sum(x), 1.0);
  enforce_simplex(x);
  EXPECT_LE(block_sum(x), 1.0);
  EXPECT_NEAR(x[1], 0.4, 1e-15);  // the largest gave up the ulp
  EXPECT_EQ(x[0], 0.2);
  EXPECT_EQ(x[2], 0.3);
}

TEST(Simplex, NanAndOversizedEntriesAreRepaired) {
  std::vector<double> x{std::numeric_limits<double>::quiet_NaN(), 5.0, -0.0};
  enforce_simplex(x);
  EXPECT_EQ(x, (std::vector<double>{0.0, 1.0, 0.0}));
}

TEST(Simplex, UniformSamplesAreFeasibleAndDeterministic) {
  const std::vector<SimplexBlock> blocks{{0, 7}, {7, 7}, {14, 3}};
  Random a(42), b(42);
  std::vector<double> x(17), y(17);
  double mean_first = 0;
  for (int i = 0; i < 2000; ++i) {
    sample_uniform(x, blocks, a);
    sample_uniform(y, blocks, b);
    ASSERT_TRUE(feasible(x, blocks));
    ASSERT_EQ(x, y);
    mean_first += x[0] / 2000;
  }
  // A flat Dirichlet over 7 entries and the slack: each has mean 1/8.
  EXPECT_NEAR(mean_first, 1.0 / 8, 0.01);
}

TEST(Simplex, FeasibleRejectsOverBudgetAndNegative) {
  const std::vector<SimplexBlock> blocks{{0, 2}, {2, 1}};
  EXPECT_TRUE(feasible(std::vector<double>{0.5, 0.5, 1.0}, blocks));
  EXPECT_FALSE(feasible(std::vector<double>{0.5, 0.6, 0.0}, blocks));
  EXPECT_FALSE(feasible(std::vector<double>{0.5, 0.0, -0.1}, blocks));
}

}  // namespace
}  // namespace snr::pathfind::search
