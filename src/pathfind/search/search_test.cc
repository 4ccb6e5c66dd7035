// The search on the performance model: n7 + gpu-16x16 + a100-like, the
// 8192^3 GEMM of examples/pathfind/gemm-8k.yaml on 8 devices.
#include "pathfind/search/search.h"

#include <fmt/format.h>
#include <gtest/gtest.h>


#include "common/error_of.h"
#include "pathfind/search/parameters.h"
#include "pathfind/search/registry.h"
#include "pathfind/search/strategies.h"
#include "pathfind/search/test_workloads.h"

namespace snr::pathfind::search {
namespace {

using snr::testing::error_of;

using testing::example_workload;

SearchInputs gemm_inputs(const std::string& strategy) {
  SearchInputs in;
  in.tech = age::builtin_technology("n7");
  in.arch = age::builtin_template("gpu-16x16");
  in.budget = age::builtin_budget("a100-like");
  in.workload = example_workload("gemm-8k");
  in.strategies = {parse_strategy(strategy)};
  return in;
}

void expect_within_budgets(const std::vector<double>& w, const ParameterSpace& space, const std::string& what) {
  ASSERT_EQ(w.size(), space.size()) << what;
  EXPECT_TRUE(feasible(w, space.blocks())) << what;
  const age::ResourceBudget b = space.to_budget(w);
  for (const age::Breakdown* breakdown : {&b.area, &b.power, &b.perimeter}) {
    double sum = 0;
    for (const auto& [component, fraction] : *breakdown) {
      EXPECT_GE(fraction, 0.0) << what << " " << component;
      sum += fraction;
    }
    EXPECT_LE(sum, 1.0) << what;  // exactly, in floating point
  }
  EXPECT_EQ(error_of([&] { b.validate(); }), "") << what;
}

TEST(ParameterSpace, ComponentsOfTheTemplate) {
  const ParameterSpace space(age::builtin_template("gpu-16x16"), age::builtin_budget("a100-like"));
  ASSERT_EQ(space.size(), 7u + 7u + 3u);
  EXPECT_EQ(space.name(0), "area.core");
  EXPECT_EQ(space.name(7), "power.core");
  EXPECT_EQ(space.name(14), "perimeter.hbm");
  EXPECT_EQ(space.name(16), "perimeter.inter_package");
  ASSERT_EQ(space.blocks().size(), 3u);
  EXPECT_EQ(space.blocks()[2].offset, 14u);
  const std::vector<double> w = space.from_budget(space.base());
  EXPECT_EQ(w[0], 0.40);
  EXPECT_EQ(w[15], 0.22);
  const age::ResourceBudget round = space.to_budget(w);
  EXPECT_EQ(round.area, space.base().area);
  EXPECT_EQ(round.power, space.base().power);
  EXPECT_EQ(round.perimeter, space.base().perimeter);
}

TEST(ParameterSpace, BudgetYamlReadsBackExactly) {
  const ParameterSpace space(age::builtin_template("gpu-16x16"), age::builtin_budget("a100-like"));
  Random random(3);
  std::vector<double> w(space.size());
  sample_uniform(w, space.blocks(), random);
  const age::ResourceBudget b = space.to_budget(w);
  const age::ResourceBudget back = age::parse_budget_yaml(format_budget_yaml(b), "best_budget.yaml");
  EXPECT_EQ(back.name, b.name);
  EXPECT_EQ(space.from_budget(back), w);
  EXPECT_EQ(back.chip_area_mm2, b.chip_area_mm2);
  EXPECT_EQ(back.node_area_mm2, b.node_area_mm2);
  EXPECT_EQ(back.tdp_w, b.tdp_w);
}

TEST(ParameterSpace, RefusesAComponentTheTemplateLacks) {
  age::ResourceBudget b = age::builtin_budget("a100-like");
  b.power.emplace_back("l3", 0.01);
  EXPECT_NE(error_of([&] { ParameterSpace(age::builtin_template("gpu-16x16"), b); })
                .find("power_breakdown.l3: template 'gpu-16x16' has no such component"),
            std::string::npos);
}

// (c) and (d): gd against the best of at least 10,000 feasible uniform
// random designs (about half of all draws are feasible), on the same
// strategy; both with their defaults otherwise.
TEST(SearchModel, GdIsAtLeastAsGoodAsTenThousandRandomDesigns) {
  SearchInputs in = gemm_inputs("RC-2-4-d1-p1");
  const SearchResult gd = search(in);
  in.engine = "random";
  in.config = {{"samples", 22000}};
  const SearchResult random = search(in);
  ASSERT_TRUE(gd.best && random.best);
  EXPECT_EQ(random.counts.evaluations, 22000u);
  EXPECT_GE(random.counts.feasible, 10000u);
  EXPECT_LE(gd.best->prediction.time_s, random.best->prediction.time_s);
  // And it improves on the given budget.
  ASSERT_TRUE(gd.best->baseline_time_s);
  EXPECT_LT(gd.best->prediction.time_s, *gd.best->baseline_time_s);

  const ParameterSpace space(in.arch, in.budget);
  for (const SearchResult* r : {&gd, &random}) {
    expect_within_budgets(r->best->w, space, r->engine + " best");
    for (const StrategyResult& s : r->strategies) expect_within_budgets(s.w, space, r->engine + " strategy");
    for (const TrajectoryPoint& p : r->best->trajectory) expect_within_budgets(p.w, space, r->engine + " trajectory");
    ASSERT_FALSE(r->pareto.empty());
    for (const DesignPoint& p : r->pareto) expect_within_budgets(p.w, space, r->engine + " pareto");
    for (const age::ComponentReport& c : r->best->generated.components) {
      EXPECT_LE(c.area_used_mm2, c.area_budget_mm2 * (1 + 1e-12)) << c.name;
      EXPECT_LE(c.power_used_w, c.power_budget_w * (1 + 1e-12)) << c.name;
    }
    EXPECT_LE(r->best->power_used_w, in.budget.tdp_w * (1 + 1e-12));
  }
}

TEST(SearchModel, ParetoSetIsMutuallyNonDominatedAndHoldsTheFastest) {
  SearchInputs in = gemm_inputs("CR-8-d1-p1");
  in.config = {{"starts", 3}, {"steps", 20}};
  const SearchResult r = search(in);
  ASSERT_TRUE(r.best);
  ASSERT_GE(r.pareto.size(), 2u);
  for (const DesignPoint& a : r.pareto) {
    for (const DesignPoint& b : r.pareto) {
      if (&a == &b) continue;
      EXPECT_FALSE(a.time_s <= b.time_s && a.power_w <= b.power_w && a.area_mm2 <= b.area_mm2);
    }
  }
  for (size_t i = 1; i < r.pareto.size(); ++i) EXPECT_LE(r.pareto[i - 1].time_s, r.pareto[i].time_s);
  // The fastest design seen (fixed ordering) is on the front.
  double fastest = r.pareto.front().time_s;
  for (const TrajectoryPoint& p : r.best->trajectory) EXPECT_GE(p.value, fastest);
}

// (e) a seed gives the same result; another seed other starting points.
TEST(SearchModel, DeterministicForASeed) {
  SearchInputs in = gemm_inputs("RC-2-4-d1-p1");
  in.config = {{"starts", 3}, {"steps", 15}};
  const std::string a = search_result_json(search(in)).dump();
  const std::string b = search_result_json(search(in)).dump();
  EXPECT_EQ(a, b);
  in.seed = 2;
  const SearchResult other = search(in);
  EXPECT_NE(search_result_json(other).dump(), a);
}

TEST(SearchModel, ParallelismSearchReturnsTheFastestStrategy) {
  SearchInputs in = gemm_inputs("d8-p1");
  in.strategies = enumerate_strategies(in.workload, 8);
  in.config = {{"starts", 2}, {"steps", 10}};
  const SearchResult r = search(in);
  ASSERT_EQ(r.strategies.size(), 13u);
  EXPECT_EQ(r.tasks, 26u);
  ASSERT_TRUE(r.best);
  for (const StrategyResult& s : r.strategies) {
    ASSERT_TRUE(s.feasible) << s.strategy.to_string();
    EXPECT_GE(s.time_s, r.best->prediction.time_s) << s.strategy.to_string();
    EXPECT_FALSE(s.ordering.empty());
  }
  EXPECT_EQ(r.strategies[r.best->strategy].time_s, r.best->prediction.time_s);
  const nlohmann::ordered_json j = search_result_json(r);
  for (const char* key : {"engine", "config", "seed", "workload", "devices", "tasks", "parameters", "evaluations",
                          "strategies", "best", "trajectory", "pareto"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["best"]["parallelism"], r.strategies[r.best->strategy].strategy.to_string());
  EXPECT_EQ(j["best"]["prediction"]["time_s"], r.best->prediction.time_s);
}

TEST(SearchModel, OutOfMemoryDesignsAreCountedNotThrown) {
  SearchInputs in = gemm_inputs("d8-p1");
  // A 1M x 1M x 1M GEMM: 2 TB of operands per device, no design holds it.
  in.workload.gemm = {1u << 20, 1u << 20, 1u << 20};
  in.config = {{"starts", 2}, {"steps", 5}};
  const SearchResult r = search(in);
  EXPECT_FALSE(r.best);
  EXPECT_GT(r.counts.out_of_memory, 0u);
  EXPECT_EQ(r.counts.feasible, 0u);
  EXPECT_EQ(r.counts.evaluations, r.counts.out_of_memory + r.counts.refused_by_generator + r.counts.refused_by_model);
  EXPECT_TRUE(search_result_json(r)["best"].is_null());
}

TEST(SearchModel, GeneratorRefusalsAreCounted) {
  SearchInputs in = gemm_inputs("CR-8-d1-p1");
  in.engine = "random";
  in.config = {{"samples", 300}, {"starts", 3}};
  const SearchResult r = search(in);
  // Uniform draws give some component too little to build (e.g. no bank).
  EXPECT_GT(r.counts.refused_by_generator, 0u);
  EXPECT_FALSE(r.counts.first_generator_error.empty());
  EXPECT_EQ(r.counts.evaluations, 300u);
}

// (f) input errors name what is wrong.
TEST(SearchModel, InputErrors) {
  SearchInputs in = gemm_inputs("CR-8-d1-p1");
  in.engine = "anneal";
  EXPECT_NE(error_of([&] { (void)search(in); }).find("'anneal' is not known"), std::string::npos);
  in.engine = "gd";
  in.config = {{"steps", 0}};
  EXPECT_NE(error_of([&] { (void)search(in); }).find("steps: 0 is outside"), std::string::npos);
  in.config = {{"starts", 100000}};
  EXPECT_NE(error_of([&] { (void)search(in); }).find("starts: 100000 is outside"), std::string::npos);
  in.config = {{"samples", 10}};
  EXPECT_NE(error_of([&] { (void)search(in); }).find("'gd': samples: not a key"), std::string::npos);
  in.config = {};
  in.strategies.push_back(parse_strategy("d4-p1"));
  EXPECT_NE(error_of([&] { (void)search(in); }).find("one search is one system"), std::string::npos);
  in.strategies.clear();
  EXPECT_NE(error_of([&] { (void)search(in); }).find("no parallelism strategy"), std::string::npos);
}

// A billion random samples passed the keys' ranges and ran for hours (30 us
// a GEMM design); every strategy of a large system multiplies the starts.
// The worst case is refused before anything runs.
TEST(SearchModel, RefusesMoreDesignsThanTheBound) {
  SearchInputs in = gemm_inputs("CR-8-d1-p1");
  in.engine = "random";
  in.config = {{"samples", 1e9}};
  const std::string random_error = error_of([&] { (void)search(in); });
  EXPECT_NE(random_error.find("up to 1000000000 designs to evaluate (1 strategies x 10 starts x 100000000 per "
                              "start with strategy 'random'), more than the 10000000 one search may take"),
            std::string::npos)
      << random_error;
  in.config = {{"samples", kMaxSearchEvaluations + 1}};
  EXPECT_NE(error_of([&] { (void)search(in); }).find("more than the 10000000"), std::string::npos);

  // gd's worst case per start: the start and 200 draws, then per step 17
  // probes widened 3 times, the step and 3 doublings.
  const EngineInfo& gd = find_engine("gd");
  EXPECT_EQ(gd.max_evaluations_per_start(resolve_config(gd, {}), 17), 1 + 200 + 100 * (17 * 4 + 1 + 3));
  in = gemm_inputs("CR-8-d1-p1");
  in.config = {{"steps", 100000}, {"starts", 10000}};
  EXPECT_NE(error_of([&] { (void)search(in); }).find("more than the 10000000 one search may take"),
            std::string::npos);
  // The defaults on every strategy of 720720 devices.
  in = gemm_inputs("CR-8-d1-p1");
  in.strategies = enumerate_strategies(in.workload, 720720, parse_search_options("search"));
  const std::string many = error_of([&] { (void)search(in); });
  EXPECT_NE(many.find(fmt::format("{} strategies x 10 starts x 7401 per start", in.strategies.size())),
            std::string::npos)
      << many;

  // A search meant for many ranks raises the bound; past the largest
  // allowed bound it is an error too.
  in = gemm_inputs("CR-8-d1-p1");
  in.engine = "random";
  in.config = {{"samples", 20}, {"starts", 2}};
  in.max_evaluations = 19;
  EXPECT_NE(error_of([&] { (void)search(in); }).find("more than the 19 one search may take"), std::string::npos);
  in.max_evaluations = 20;
  EXPECT_EQ(search(in).counts.evaluations, 20u);
  in.max_evaluations = 0;
  EXPECT_NE(error_of([&] { (void)search(in); }).find("outside [1, 1000000000000]"), std::string::npos);
}

// An LSTM design's evaluation simulates every layer x time step: 1,024 x
// 1,024 cells took 1.3-1.8 s each, and 74,010 designs (gd's defaults) passed
// a bound that counts designs. Its cost counts now, and the refusal names it.
TEST(SearchModel, CountsTheCostOfLargeLstmDesigns) {
  SearchInputs in = gemm_inputs("d1-p1");
  in.workload = example_workload("lstm-lm");
  in.workload.lstm.layers = 1024;
  in.workload.lstm.sequence = 1024;
  const std::string error = error_of([&] { (void)search(in); });
  EXPECT_NE(error.find("schedules up to 5242886 kernels (1024 layers x 1024 time steps x 5), which counts as 5243 "
                       "designs"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("hours on one core"), std::string::npos) << error;
  // 1,024 x 16 cells (81,926 kernels) count 82 designs each: a bound of
  // 82 x 74,010 takes them, one less refuses them.
  in.workload.lstm.sequence = 16;
  in.max_evaluations = 10 * 7401 * 81.926 - 1;
  EXPECT_NE(error_of([&] { (void)search(in); }).find("counts as 82 designs"), std::string::npos);
  // The 2 x 20 model (206 kernels) counts one design, as before.
  in.workload = example_workload("lstm-lm");
  in.config = {{"steps", 1}, {"starts", 1}};
  in.max_evaluations = 1 + 200 + 1 * (17 * 4 + 1 + 3);
  EXPECT_NO_THROW((void)search(in));
}

}  // namespace
}  // namespace snr::pathfind::search
