// One GEMM prediction and one 175B Table 5 iteration prediction, inputs
// already in memory (docs/benchmarks.md, ## Pathfinding model).
// Usage: pathfind_bench [--benchmark_...]; SNR_SHARED_DATA or ../shared/data
// must hold pathfinder/calculon for the iteration benchmark.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "pathfind/llm/calculon.h"
#include "pathfind/roofline/gemm.h"

namespace {

using namespace snr::pathfind;

void BM_GemmA100(benchmark::State& state, GemmShape shape) {
  DeviceSpec d = device_preset("a100-80gb");
  for (auto _ : state) benchmark::DoNotOptimize(predict_gemm(d, shape, DType::kFp16).time_s);
}
BENCHMARK_CAPTURE(BM_GemmA100, m8192_n12288_k12288, GemmShape{8192, 12288, 12288})->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_GemmA100, m2048_n1536_k12288, GemmShape{2048, 1536, 12288})->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_GemmA100, m8192_n64_k64, GemmShape{8192, 64, 64})->Unit(benchmark::kMicrosecond);

// fp32 runs the MCUs 16x slower, so nearly every tiling is compute bound and
// the search has the most close combinations to rule out.
void BM_GemmA100Fp32(benchmark::State& state, GemmShape shape) {
  DeviceSpec d = device_preset("a100-80gb");
  for (auto _ : state) benchmark::DoNotOptimize(predict_gemm(d, shape, DType::kFp32).time_s);
}
BENCHMARK_CAPTURE(BM_GemmA100Fp32, m2048_n1536_k12288, GemmShape{2048, 1536, 12288})->Unit(benchmark::kMicrosecond);

void BM_Gpt3Tab5Iteration(benchmark::State& state, const char* mode) {
  const char* data = std::getenv("SNR_SHARED_DATA");
  std::string dir = std::string(data ? data : "../shared/data") + "/pathfinder/calculon";
  DeviceSpec system = load_calculon_system(dir + "/systems/a100_80g.json", device_preset("a100-80gb"));
  TransformerModel model = load_calculon_model(dir + "/models/gpt3-175B.json");
  model.vocab_size = 51200;
  CalculonExecution exec = load_calculon_execution(dir + "/validation/seqsel/tab5/gpt3-175B_" + std::string(mode) + ".json");
  for (auto _ : state) {
    benchmark::DoNotOptimize(predict_training_iteration(system, model, exec.parallelism, exec.job).iteration_s);
  }
}
BENCHMARK_CAPTURE(BM_Gpt3Tab5Iteration, full, "full")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_Gpt3Tab5Iteration, seqsel, "seqsel")->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
