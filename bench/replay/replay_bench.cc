// Replay speed on a synthetic 4-chip program of about 600k instructions
// (scalar loop work, vector loads/adds/stores, a DMA + WAIT and a ring of
// remote semaphore signals per iteration): functional-only run of the same
// window versus replay (timing + tracker + pc check) and replay plus run.db.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <unistd.h>

#include "formats/rundb/writer.h"
#include "isa/address_map.h"
#include "replay/program_capture.h"
#include "replay/replayer.h"
#include "asm/program_builder.h"
#include "sim/elf_loader.h"
#include "sim/timing.h"

namespace {

using Op = snr::isa::Opcode;
constexpr uint32_t kChips = 4;
constexpr int64_t kIterations = 9375;  // x 16 instructions x 4 chips = 600k

snr::sim::ProgramImage synthetic_program() {
  snr::assembler::ProgramBuilder b;
  b.csr_read(5, snr::isa::kCsrMhartid);
  b.i(Op::kAddi, 7, 5, 1);
  b.li(8, kChips);
  b.r(Op::kRemu, 7, 7, 8);  // next chip
  b.li(10, kIterations);
  b.li(11, static_cast<int64_t>(snr::isa::kHbmBase));
  b.li(12, 4096);
  b.li(13, static_cast<int64_t>(snr::isa::kVmemBase));
  b.li(14, static_cast<int64_t>(snr::isa::kVmemBase + 0x8000));
  auto loop = b.new_label();
  b.bind(loop);
  b.dma(13, 11, 12, 1);
  for (int k = 0; k < 6; ++k) b.i(Op::kAddi, 9, 9, k + 1);
  b.r(Op::kMul, 15, 9, 10);
  b.sem_wait(1, 1);
  b.vld(1, 13, 0);
  b.vector(Op::kVaddF32, 2, 1, 1);
  b.vst(2, 14, 0);
  b.sem_signal_remote(2, 7, 1);
  b.sem_wait(2, 1);
  b.i(Op::kAddi, 10, 10, -1);
  b.branch(Op::kBne, 10, 0, loop);
  b.li(15, 0);
  b.exit(15);
  return snr::sim::program_from_builder(b, "synthetic-600k");
}

const snr::replay::CapturedRun& captured() {
  static const snr::replay::CapturedRun run = [] {
    snr::hw::HwConfig config = snr::hw::preset("tpu-v4-like");
    config.set("chips", std::to_string(kChips));
    return snr::replay::capture_program_run(synthetic_program(), config);
  }();
  return run;
}

uint64_t window_instructions() {
  uint64_t total = 0;
  for (const auto& chip : captured().input.chips) total += chip.pcs.size();
  return total;
}

void BM_FunctionalOnly(benchmark::State& state) {
  const auto& input = captured().input;
  snr::hw::HwConfig config = snr::hw::parse_config_yaml(input.hw_config_yaml, "bench");
  for (auto _ : state) {
    snr::sim::System system(config);
    system.load(synthetic_program());
    benchmark::DoNotOptimize(snr::sim::run_functional(system, uint64_t{1} << 32));
  }
  state.counters["instructions"] = static_cast<double>(window_instructions());
}

void BM_TimingOnly(benchmark::State& state) {
  const auto& input = captured().input;
  snr::hw::HwConfig config = snr::hw::parse_config_yaml(input.hw_config_yaml, "bench");
  for (auto _ : state) {
    snr::sim::System system(config);
    system.load(synthetic_program());
    snr::sim::TimingSimulator timing(system);
    benchmark::DoNotOptimize(timing.run(uint64_t{1} << 40));
  }
  state.counters["instructions"] = static_cast<double>(window_instructions());
}

void BM_Replay(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(snr::replay::run_replay(captured().input, {}));
  state.counters["instructions"] = static_cast<double>(window_instructions());
}

void BM_ReplayAndWriteRunDb(benchmark::State& state) {
  const auto path = std::filesystem::temp_directory_path() / ("replay_bench_" + std::to_string(getpid()) + ".db");
  for (auto _ : state) {
    snr::replay::ReplayResult result = snr::replay::run_replay(captured().input, {});
    snr::rundb::write_run_db(path.string(), result.data);
  }
  state.counters["instructions"] = static_cast<double>(window_instructions());
  state.counters["db_bytes"] = static_cast<double>(std::filesystem::file_size(path));
  std::filesystem::remove(path);
}

BENCHMARK(BM_FunctionalOnly)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_TimingOnly)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Replay)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_ReplayAndWriteRunDb)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
