// The design-space search (snr pathfind search) on one core: one objective
// evaluation (generator + predict() with the ordering fixed) and a full gd
// search (T = 100, S = 10) for one parallelism strategy, on the generated
// n7 + gpu-16x16 + a100-like device, for
//   - seed 004's case study (§9, examples/pathfind/lstm-lm-case-study.yaml):
//     the 2-layer LSTM language model with hidden 16K, batch 16K,
//     vocabulary 800K, 20 steps, RC-8-8-d8-p1 on 512 nodes;
//   - GPT-3 175B training (gpt3-175B-train.yaml, Korthikanti et al. Table 5),
//     tp=8, pp=8 on 64 devices;
//   - one 8192^3 GEMM (gemm-8k.yaml), RC-2-4-d1-p1 on 8 devices.
// Also the 10,000-design random baseline on the GEMM.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "pathfind/search/objective.h"
#include "pathfind/search/search.h"

namespace {

using namespace snr::pathfind;
using namespace snr::pathfind::search;

// `example`: a workload users run, examples/pathfind/<example>.yaml.
SearchInputs inputs(std::string_view example, std::string_view strategy) {
  SearchInputs in;
  in.tech = age::builtin_technology("n7");
  in.arch = age::builtin_template("gpu-16x16");
  in.budget = age::builtin_budget("a100-like");
  in.workload = load_workload(fmt::format("{}/examples/pathfind/{}.yaml", SNR_SOURCE_DIR, example));
  in.strategies = {parse_strategy(strategy)};
  return in;
}

// One design the objective has not seen: the generator and predict() with
// the ordering fixed and the routing kept (what a search pays per new device).
void BM_Evaluate(benchmark::State& state, std::string_view example, std::string_view strategy) {
  const SearchInputs in = inputs(example, strategy);
  const ParameterSpace space(in.arch, in.budget);
  ModelObjective objective(in.tech, in.arch, space, in.workload, in.strategies.front(), 0);
  std::vector<double> w = space.from_budget(in.budget);
  (void)objective.evaluate(w);  // fixes the ordering, as the search's first design does
  const size_t core_power = space.blocks()[1].offset;  // a new core voltage: a new device each time
  for (auto _ : state) {
    w[core_power] *= 1 - 1e-9;
    benchmark::DoNotOptimize(objective.evaluate(w));
  }
  state.counters["reused"] = static_cast<double>(objective.counts().reused);
}

void BM_Search(benchmark::State& state, std::string_view example, std::string_view strategy,
               std::string_view engine) {
  SearchInputs in = inputs(example, strategy);
  in.engine = engine;
  if (engine == "random") in.config = {{"samples", 10000}};
  uint64_t evaluations = 0;
  for (auto _ : state) {
    const SearchResult r = snr::pathfind::search::search(in);
    evaluations = r.counts.evaluations;
    benchmark::DoNotOptimize(r.best);
  }
  state.counters["evaluations"] = static_cast<double>(evaluations);
}

BENCHMARK_CAPTURE(BM_Evaluate, lstm_case_study, "lstm-lm-case-study", "RC-8-8-d8-p1")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Evaluate, gpt3_175b, "gpt3-175B-train", "tp=8,pp=8,sp,recompute=selective")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Evaluate, gemm_8k, "gemm-8k", "RC-2-4-d1-p1")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Search, lstm_case_study_gd, "lstm-lm-case-study", "RC-8-8-d8-p1", "gd")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Search, gpt3_175b_gd, "gpt3-175B-train", "tp=8,pp=8,sp,recompute=selective", "gd")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_Search, gemm_8k_gd, "gemm-8k", "RC-2-4-d1-p1", "gd")->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK_CAPTURE(BM_Search, gemm_8k_random10k, "gemm-8k", "RC-2-4-d1-p1", "random")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
