// Throughput of timeline rendering, Gaussian-mixture fitting and synthetic
// trace projection.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "et/generate/patterns.h"
#include "et/synth/comm_model.h"
#include "et/synth/gaussian_mixture.h"
#include "et/synth/sampler.h"
#include "formats/perfetto/trace_writer.h"

namespace {

using namespace snr;

// Slices in nested pairs on 16 tracks, half of them overlapping a neighbour
// so the lane assignment does real work.
void BM_TimelineRender(benchmark::State& state) {
  const auto slices = static_cast<int64_t>(state.range(0));
  const auto policy = state.range(1) != 0 ? perfetto::OverlapPolicy::kSpreadToLanes : perfetto::OverlapPolicy::kReject;
  for (auto _ : state) {
    perfetto::TraceWriter writer(perfetto::TimeBase::nanoseconds(), policy);
    std::vector<perfetto::TrackId> tracks;
    for (int t = 0; t < 16; ++t) tracks.push_back(writer.add_track("npu " + std::to_string(t / 4), "unit " + std::to_string(t)));
    for (int64_t i = 0; i < slices; ++i) {
      const int64_t start = (i / 16) * 100;
      const int64_t shift = policy == perfetto::OverlapPolicy::kSpreadToLanes && i % 2 == 1 ? 50 : 0;
      writer.slice(tracks[static_cast<size_t>(i % 16)], start + shift, 90, "op");
    }
    benchmark::DoNotOptimize(writer.render());
  }
  state.SetItemsProcessed(state.iterations() * slices);
}
BENCHMARK(BM_TimelineRender)->Args({1'000'000, 0})->Args({1'000'000, 1})->Unit(benchmark::kMillisecond);

void BM_FitMixture(benchmark::State& state) {
  et::synth::GaussianMixture truth{{{0.3, 10, 0.5}, {0.5, 16, 1.0}, {0.2, 22, 0.7}}};
  et::synth::Random random(1);
  std::vector<double> values;
  for (int64_t i = 0; i < state.range(0); ++i) values.push_back(truth.sample(random));
  for (auto _ : state) benchmark::DoNotOptimize(et::synth::fit_gaussian_mixture(values));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_FitMixture)->Arg(10'000)->Unit(benchmark::kMillisecond);

// Sample 1,000 collectives and write them for N ranks (.et files in a
// temporary folder).
void BM_SampleAndWrite(benchmark::State& state) {
  et::PatternOptions o;
  o.pattern = "hybrid";
  o.npus = 8;
  o.layers = 24;
  const auto model = et::synth::fit_comm_model({{"hybrid", et::generate_pattern(o)}});
  const auto npus = static_cast<et::Rank>(state.range(0));
  const auto dir = std::filesystem::temp_directory_path() / "snr_bench_synth";
  for (auto _ : state) {
    const auto master = et::synth::sample_master_trace(model, {.npus = npus, .seed = 1, .length = 1000});
    et::synth::write_master_trace(master, npus, dir / "s");
  }
  std::filesystem::remove_all(dir);
  state.SetItemsProcessed(state.iterations() * state.range(0) * 1000);
}
BENCHMARK(BM_SampleAndWrite)->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
