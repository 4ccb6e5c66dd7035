// Simulator speed: instructions per second in functional and timing mode,
// and matrix-unit MACs per second. Programs are built with the encoder so
// their instruction counts are exact.
#include <benchmark/benchmark.h>

#include "isa/address_map.h"
#include "asm/program_builder.h"
#include "sim/elf_loader.h"
#include "sim/timing.h"

namespace snr::sim {

using assembler::ProgramBuilder;
namespace {

using Op = isa::Opcode;

// A scalar loop: arithmetic, multiply, load/store and a branch per iteration
// (10 instructions), `iterations` times.
ProgramImage scalar_loop(int64_t iterations) {
  ProgramBuilder b;
  b.li(5, iterations);
  b.li(6, 0x8000);  // SMEM buffer
  b.li(7, 0);
  auto loop = b.new_label();
  b.bind(loop);
  b.r(Op::kAdd, 7, 7, 5);
  b.r(Op::kMul, 8, 7, 5);
  b.r(Op::kXor, 9, 8, 7);
  b.s(Op::kSd, 9, 6, 0);
  b.i(Op::kLd, 10, 6, 0);
  b.i(Op::kSrli, 11, 10, 3);
  b.r(Op::kAddw, 12, 11, 7);
  b.i(Op::kAndi, 13, 12, 255);
  b.i(Op::kAddi, 5, 5, -1);
  b.branch(Op::kBne, 5, 0, loop);
  b.exit(0);
  return sim::program_from_builder(b, "scalar-loop");
}

// Scalar work around DMAs: each iteration issues a 512-byte HBM -> VMEM DMA,
// does 8 scalar instructions and waits for the previous DMA.
ProgramImage dma_loop(int64_t iterations) {
  ProgramBuilder b;
  b.li(5, iterations);
  b.li(6, static_cast<int64_t>(isa::kHbmBase));
  b.li(7, static_cast<int64_t>(isa::kVmemBase));
  b.li(8, 512);
  b.sem_signal(0, 1);
  auto loop = b.new_label();
  b.bind(loop);
  b.dma(7, 6, 8, 0);
  for (int i = 0; i < 4; ++i) {
    b.r(Op::kAdd, 9, 9, 5);
    b.i(Op::kXori, 10, 9, 0x55);
  }
  b.sem_wait(0, 1);
  b.i(Op::kAddi, 6, 6, 512);
  b.i(Op::kAddi, 5, 5, -1);
  b.branch(Op::kBne, 5, 0, loop);
  b.sem_wait(0, 1);
  b.exit(0);
  return sim::program_from_builder(b, "dma-loop");
}

void BM_FunctionalRv64im(benchmark::State& state) {
  const ProgramImage program = scalar_loop(1'000'000);
  uint64_t instructions = 0;
  for (auto _ : state) {
    System system(hw::preset("tpu-v4-like"));
    system.load(program);
    RunOutcome out = run_functional(system, UINT64_MAX);
    instructions += out.chips[0].instructions;
  }
  state.counters["instructions/s"] = benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FunctionalRv64im)->Unit(benchmark::kMillisecond);

void subscribe_everything(EventBus& bus, uint64_t& events) {
  bus.instruction_issued.subscribe([&](const InstructionIssued&) { ++events; });
  bus.instruction_retired.subscribe([&](const InstructionRetired&) { ++events; });
  bus.unit_busy.subscribe([&](const UnitBusy&) { ++events; });
  bus.dma.subscribe([&](const DmaEvent&) { ++events; });
  bus.memory.subscribe([&](const MemoryAccess&) { ++events; });
  bus.register_access.subscribe([&](const RegisterAccess&) { ++events; });
  bus.semaphore.subscribe([&](const SemaphoreEvent&) { ++events; });
}

void timing_benchmark(benchmark::State& state, const ProgramImage& program, bool subscribe) {
  uint64_t instructions = 0, events = 0;
  for (auto _ : state) {
    EventBus bus;
    if (subscribe) subscribe_everything(bus, events);
    System system(hw::preset("tpu-v4-like"), &bus);
    system.load(program);
    RunOutcome out = TimingSimulator(system).run(UINT64_MAX);
    instructions += out.chips[0].instructions;
  }
  state.counters["instructions/s"] = benchmark::Counter(static_cast<double>(instructions), benchmark::Counter::kIsRate);
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

void BM_TimingScalarAllEvents(benchmark::State& state) { timing_benchmark(state, scalar_loop(200'000), true); }
BENCHMARK(BM_TimingScalarAllEvents)->Unit(benchmark::kMillisecond);

void BM_TimingScalarNoSubscribers(benchmark::State& state) { timing_benchmark(state, scalar_loop(200'000), false); }
BENCHMARK(BM_TimingScalarNoSubscribers)->Unit(benchmark::kMillisecond);

void BM_TimingDmaAllEvents(benchmark::State& state) { timing_benchmark(state, dma_loop(20'000), true); }
BENCHMARK(BM_TimingDmaAllEvents)->Unit(benchmark::kMillisecond);

// mxu.mul back to back: 8 x 128 x 128 MACs each.
void BM_MatrixUnitPush(benchmark::State& state) {
  constexpr int64_t kPushes = 2000;
  ProgramBuilder b;
  b.li(5, static_cast<int64_t>(isa::kVmemBase));
  b.mxu_ldw(0, 5, 0);
  b.vld(1, 5, 0);
  b.li(6, kPushes);
  auto loop = b.new_label();
  b.bind(loop);
  b.mxu_mul(0, 1);
  b.i(Op::kAddi, 6, 6, -1);
  b.branch(Op::kBne, 6, 0, loop);
  b.exit(0);
  const ProgramImage program = sim::program_from_builder(b, "mxu");
  uint64_t macs = 0;
  for (auto _ : state) {
    System system(hw::preset("tpu-v4-like"));
    system.load(program);
    run_functional(system, UINT64_MAX);
    macs += static_cast<uint64_t>(kPushes) * 8 * 128 * 128;
  }
  state.counters["MACs/s"] = benchmark::Counter(static_cast<double>(macs), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MatrixUnitPush)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace snr::sim

BENCHMARK_MAIN();
