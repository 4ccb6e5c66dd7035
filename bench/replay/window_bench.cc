// Replay speed on a real recorded window: the snapshot named by
// $SNR_REPLAY_SNAPSHOT (bench/replay/real_window.sh records the default
// LLM decode window). Decoding is measured on its own; the other
// benchmarks start from the decoded snapshot, so "functional" (the
// re-execution of `snr snapshot check`) and "replay" compare the same
// window without the file.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <unistd.h>

#include "formats/rundb/writer.h"
#include "formats/snapshot/shared_snapshot.h"
#include "record/reexecute.h"
#include "replay/replayer.h"

namespace {

const char* snapshot_path() { return std::getenv("SNR_REPLAY_SNAPSHOT"); }

bool skip_without_snapshot(benchmark::State& state) {
  if (snapshot_path() != nullptr) return false;
  state.SkipWithError("set SNR_REPLAY_SNAPSHOT to a recorded window (bench/replay/real_window.sh)");
  return true;
}

const snr::snapshot::Snapshot& messages() {
  static const snr::snapshot::Snapshot snapshot = snr::snapshot::read_snapshot_file(snapshot_path()).value();
  return snapshot;
}

const snr::replay::ReplayInput& input() {
  static const snr::replay::ReplayInput in = [] {
    const snr::snapshot::SharedSnapshot shared = snr::snapshot::read_snapshot_shared(snapshot_path()).value();
    return snr::replay::replay_input_from_snapshot(shared, "bench");
  }();
  return in;
}

uint64_t window_instructions() {
  uint64_t total = 0;
  for (const auto& chip : input().chips) total += chip.pcs.size();
  return total;
}

void BM_DecodeShared(benchmark::State& state) {
  if (skip_without_snapshot(state)) return;
  for (auto _ : state) {
    const snr::snapshot::SharedSnapshot shared = snr::snapshot::read_snapshot_shared(snapshot_path()).value();
    benchmark::DoNotOptimize(snr::snapshot::validate_shared_snapshot(shared));
  }
}

void BM_DecodeMessages(benchmark::State& state) {
  if (skip_without_snapshot(state)) return;
  for (auto _ : state) benchmark::DoNotOptimize(snr::snapshot::read_snapshot_file(snapshot_path()).value());
}

void BM_Functional(benchmark::State& state) {
  if (skip_without_snapshot(state)) return;
  const snr::snapshot::Snapshot& snapshot = messages();
  for (auto _ : state) {
    const snr::record::CheckResult result = snr::record::check_snapshot(snapshot);
    if (!result.matched) state.SkipWithError("the functional re-execution diverged");
  }
  state.counters["instructions"] = static_cast<double>(window_instructions());
}

void replay(benchmark::State& state, bool collect, bool write) {
  if (skip_without_snapshot(state)) return;
  const auto path = std::filesystem::temp_directory_path() / ("window_bench_" + std::to_string(getpid()) + ".db");
  snr::replay::ReplayOptions options;
  options.collect_run_data = collect;
  for (auto _ : state) {
    const snr::replay::ReplayResult result = snr::replay::run_replay(input(), options);
    if (!result.final_state_problems.empty()) state.SkipWithError("the replay did not reach the end state");
    if (write) snr::rundb::write_run_db(path.string(), result.data);
  }
  state.counters["instructions"] = static_cast<double>(window_instructions());
  if (write) {
    state.counters["db_bytes"] = static_cast<double>(std::filesystem::file_size(path));
    std::filesystem::remove(path);
  }
}

void BM_ReplayCyclesOnly(benchmark::State& state) { replay(state, false, false); }
void BM_Replay(benchmark::State& state) { replay(state, true, false); }
void BM_ReplayAndWriteRunDb(benchmark::State& state) { replay(state, true, true); }

BENCHMARK(BM_DecodeShared)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_DecodeMessages)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Functional)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ReplayCyclesOnly)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Replay)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_ReplayAndWriteRunDb)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
