// The engines on synthetic objectives whose optimum is known, and the
// registry's refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "common/error_of.h"
#include "pathfind/search/registry.h"

namespace snr::pathfind::search {
namespace {

using testing::error_of;

class FunctionObjective final : public Objective {
 public:
  explicit FunctionObjective(std::function<double(std::span<const double>)> f) : f_(std::move(f)) {}
  double evaluate(std::span<const double> w) override {
    ++evaluations;
    return f_(w);
  }
  uint64_t evaluations = 0;

 private:
  std::function<double(std::span<const double>)> f_;
};

const std::vector<SimplexBlock> kBlocks{{0, 3}, {3, 3}};

// Every start of `engine` as search() runs them; the best one.
StartResult best_of_starts(const std::string& engine, const std::map<std::string, double>& given, Objective& f,
                           const std::vector<double>& initial, uint64_t seed) {
  const EngineInfo& info = find_engine(engine);
  const EngineConfig config = resolve_config(info, given);
  auto runner = info.make(config);
  const auto starts = static_cast<uint64_t>(config.at("starts"));
  StartResult best;
  for (uint64_t s = 0; s < starts; ++s) {
    StartResult r = runner->run(f, {kBlocks, 6, initial, s, starts, seed * 1000 + s});
    for (const TrajectoryPoint& p : r.trajectory) EXPECT_TRUE(feasible(p.w, kBlocks)) << "start " << s;
    if (r.feasible && r.value < best.value) best = r;
  }
  return best;
}

// 1 + a weighted squared distance to c, inside both simplices.
const std::vector<double> kCentre{0.2, 0.3, 0.1, 0.05, 0.4, 0.3};
const std::vector<double> kWeights{1, 5, 20, 50, 2, 10};
double bowl(std::span<const double> w) {
  double f = 1;
  for (size_t i = 0; i < w.size(); ++i) f += kWeights[i] * (w[i] - kCentre[i]) * (w[i] - kCentre[i]);
  return f;
}

TEST(GdEngine, ConvergesToAnInteriorOptimum) {
  FunctionObjective f(bowl);
  const StartResult r = best_of_starts("gd", {}, f, {0.6, 0.1, 0.1, 0.3, 0.1, 0.1}, 7);
  ASSERT_TRUE(r.feasible);
  EXPECT_LE(r.value, 1.01);  // within 1% of the optimum f(c) = 1
  for (size_t i = 0; i < kCentre.size(); ++i) EXPECT_NEAR(r.w[i], kCentre[i], 0.02) << i;
  EXPECT_TRUE(feasible(r.w, kBlocks));
  EXPECT_TRUE(r.converged);
  // T = 100 steps of 7 evaluations at most, 10 starts.
  EXPECT_LE(f.evaluations, 10u * (100 * 7 + 1 + 200));
}

TEST(GdEngine, ReachesAVertexOptimum) {
  // Minimum 1/4 at the vertex (0, 0, 1) of the first block; the second block is flat.
  FunctionObjective f([](std::span<const double> w) { return 1.0 / (1.0 + w[0] + 2 * w[1] + 3 * w[2]); });
  const StartResult r = best_of_starts("gd", {}, f, {0.3, 0.3, 0.3, 0.1, 0.1, 0.1}, 3);
  ASSERT_TRUE(r.feasible);
  EXPECT_LE(r.value, 0.25 * 1.01);
  EXPECT_LE(block_sum(std::span<const double>(r.w).subspan(0, 3)), 1.0);
}

TEST(GdEngine, StaysOutOfAnInfeasibleRegionNextToTheOptimum) {
  // The bowl, but any design with w[2] < 0.08 cannot be built.
  FunctionObjective f([](std::span<const double> w) { return w[2] < 0.08 ? kInfeasible : bowl(w); });
  const StartResult r = best_of_starts("gd", {}, f, {0.3, 0.3, 0.3, 0.1, 0.1, 0.1}, 5);
  ASSERT_TRUE(r.feasible);
  EXPECT_LE(r.value, 1.01);
  EXPECT_GE(r.w[2], 0.08);
}

TEST(GdEngine, SameSeedSameResultOtherSeedOtherStarts) {
  FunctionObjective f(bowl);
  const std::vector<double> start{0.6, 0.1, 0.1, 0.3, 0.1, 0.1};
  const StartResult a = best_of_starts("gd", {{"starts", 3}}, f, start, 11);
  const StartResult b = best_of_starts("gd", {{"starts", 3}}, f, start, 11);
  EXPECT_EQ(a.w, b.w);
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.trajectory.size(), b.trajectory.size());
  const auto runner = find_engine("gd").make(resolve_config(find_engine("gd"), {}));
  const StartResult one = runner->run(f, {kBlocks, 6, start, 1, 3, 11});
  const StartResult other = runner->run(f, {kBlocks, 6, start, 1, 3, 12});
  EXPECT_NE(one.trajectory.front().w, other.trajectory.front().w);
}

TEST(GdEngine, StartZeroBeginsAtTheGivenPoint) {
  FunctionObjective f(bowl);
  const std::vector<double> start{0.6, 0.1, 0.1, 0.3, 0.1, 0.1};
  const auto runner = find_engine("gd").make(resolve_config(find_engine("gd"), {{"steps", 3}}));
  const StartResult r = runner->run(f, {kBlocks, 6, start, 0, 1, 1});
  ASSERT_FALSE(r.trajectory.empty());
  EXPECT_EQ(r.trajectory.front().w, start);
  EXPECT_LE(r.steps, 3u);
  EXPECT_LT(r.value, bowl(start));
}

TEST(RandomEngine, SharesTheSamplesOutOverTheStarts) {
  FunctionObjective f(bowl);
  const StartResult r = best_of_starts("random", {{"samples", 1003}, {"starts", 10}}, f, {}, 1);
  EXPECT_EQ(f.evaluations, 1003u);
  ASSERT_TRUE(r.feasible);
  EXPECT_TRUE(feasible(r.w, kBlocks));
  // Better than a typical draw, and gd beats it on the same budget of work.
  EXPECT_LT(r.value, 1.2);
  FunctionObjective g(bowl);
  EXPECT_LT(best_of_starts("gd", {}, g, {0.6, 0.1, 0.1, 0.3, 0.1, 0.1}, 1).value, r.value);
}

TEST(RandomEngine, NoFeasibleDesign) {
  FunctionObjective f([](std::span<const double>) { return kInfeasible; });
  const StartResult r = best_of_starts("random", {{"samples", 50}}, f, {}, 1);
  EXPECT_FALSE(r.feasible);
  FunctionObjective g([](std::span<const double>) { return kInfeasible; });
  EXPECT_FALSE(best_of_starts("gd", {{"starts", 2}}, g, {0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, 1).feasible);
}

TEST(Registry, EnginesDeclareStartsAndDefaultsInRange) {
  ASSERT_GE(engines().size(), 2u);
  for (const EngineInfo& e : engines()) {
    const EngineConfig c = resolve_config(e, {});
    EXPECT_TRUE(c.contains("starts")) << e.name;
    for (const ConfigKey& k : e.keys) {
      EXPECT_GE(k.default_value, k.min) << e.name << "." << k.name;
      EXPECT_LE(k.default_value, k.max) << e.name << "." << k.name;
    }
  }
  const EngineConfig gd = resolve_config(find_engine("gd"), {});
  EXPECT_EQ(gd.at("steps"), 100);
  EXPECT_EQ(gd.at("starts"), 10);
}

TEST(Registry, ErrorsNameTheKey) {
  EXPECT_NE(error_of([] { (void)find_engine("annealing"); }).find("'annealing' is not known (known: gd, random)"),
            std::string::npos);
  const EngineInfo& gd = find_engine("gd");
  const std::string unknown = error_of([&] { (void)resolve_config(gd, {{"momentum", 0.9}}); });
  EXPECT_NE(unknown.find("momentum: not a key"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("steps"), std::string::npos) << unknown;
  EXPECT_NE(error_of([&] { (void)resolve_config(gd, {{"steps", 0}}); }).find("steps: 0 is outside [1, 100000]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)resolve_config(gd, {{"starts", 0}}); }).find("starts: 0 is outside"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)resolve_config(gd, {{"starts", 2.5}}); }).find("starts: 2.5 is not a whole number"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)resolve_config(gd, {{"beta", 1.0}}); }).find("beta: 1 is outside"), std::string::npos);
  // Keys checked together by the engine itself.
  EXPECT_NE(error_of([&] { (void)gd.make(resolve_config(gd, {{"lr", 5}})); }).find("lr: 5 is above max_lr 4"),
            std::string::npos);
  // A key of another engine is refused too.
  EXPECT_NE(error_of([] { (void)resolve_config(find_engine("random"), {{"steps", 10}}); })
                .find("search strategy 'random': steps: not a key"),
            std::string::npos);
}

}  // namespace
}  // namespace snr::pathfind::search
