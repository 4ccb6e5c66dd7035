// The end-to-end chain users call through `snr pathfind generate / predict`:
// the generator on the built-ins, and one predict() of Korthikanti et al.'s
// GPT-3 175B run (64 A100s, tp=8, pp=8) with all 24 mapping orderings.
#include <benchmark/benchmark.h>

#include "pathfind/age/generate.h"
#include "pathfind/predict/predict.h"

namespace {

using namespace snr::pathfind;

void BM_GenerateA100Like(benchmark::State& state) {
  const age::TechnologyLibrary tech = age::builtin_technology("n7");
  const age::ArchitectureTemplate arch = age::builtin_template("gpu-16x16");
  const age::ResourceBudget budget = age::builtin_budget("a100-like");
  for (auto _ : state) benchmark::DoNotOptimize(age::generate_architecture(tech, arch, budget));
}
BENCHMARK(BM_GenerateA100Like)->Unit(benchmark::kMicrosecond);

PredictInputs gpt3_tab5(std::string_view strategy) {
  PredictInputs in;
  in.device = device_preset("a100-80gb");
  in.workload.name = "gpt3-175B";
  in.workload.model = {"gpt3-175B", 12288, 49152, 2048, 96, 128, 96, 51200};
  in.workload.batch = 64;
  in.workload.microbatch = 1;
  in.workload.dtype = DType::kFp16;
  in.strategy = parse_strategy(strategy);
  return in;
}

void BM_PredictGpt3Tab5(benchmark::State& state, std::string_view strategy) {
  const PredictInputs in = gpt3_tab5(strategy);
  for (auto _ : state) benchmark::DoNotOptimize(predict(in));
}
BENCHMARK_CAPTURE(BM_PredictGpt3Tab5, full, "tp=8,pp=8,recompute=full")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PredictGpt3Tab5, seqsel, "tp=8,pp=8,sp,recompute=selective")->Unit(benchmark::kMicrosecond);

}  // namespace
