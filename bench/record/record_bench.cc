// Recording rate over loopback from snr's own device (goal: >= 30k
// instructions/s) and the cost of the RSP packet codec. Each iteration
// starts a fresh device, serves one session on a free loopback port and
// records a window of `loop.s` from its `loop` label.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <thread>

#include "asm/assembler.h"
#include "common/file_io.h"
#include "device/npu_device.h"
#include "device/serve.h"
#include "elf/elf.h"
#include "record/recorder.h"
#include "rsp/packet.h"
#include "sim/elf_loader.h"

namespace {

struct LoopProgram {
  snr::sim::ProgramImage image;
  uint64_t loop_address = 0;
};

const LoopProgram& loop_program() {
  static const LoopProgram program = [] {
    const std::string source = snr::read_file(std::string(SNR_BENCH_RECORD_DIR) + "/loop.s");
    const std::vector<uint8_t> bytes = snr::assembler::assemble_to_elf(source, {.source_name = "loop.s"}).value();
    const snr::elf::Image elf = snr::elf::read_elf(bytes, "loop.s").value();
    return LoopProgram{snr::sim::program_from_elf(elf, "loop.s"), elf.find_symbol("loop")->value};
  }();
  return program;
}

void BM_RecordFromDevice(benchmark::State& state) {
  const uint64_t chips = static_cast<uint64_t>(state.range(0));
  const uint64_t per_chip = static_cast<uint64_t>(state.range(1));
  snr::hw::HwConfig config = snr::hw::preset("tpu-v4-like");
  snr::hw::apply_overrides(config, {fmt::format("chips={}", chips)});
  uint64_t captured = 0, naive = 0;
  for (auto _ : state) {
    state.PauseTiming();
    snr::device::NpuDevice device(config, loop_program().image);
    snr::rsp::Listener listener("127.0.0.1", 0);
    std::thread server([&] { snr::device::serve(device, listener, {.once = true, .log = {}}); });
    state.ResumeTiming();
    snr::rsp::Client client(snr::rsp::connect_tcp({"127.0.0.1", listener.port()}, std::chrono::milliseconds(5000)),
                            std::chrono::milliseconds(60000));
    snr::record::RemoteTarget target(client, std::chrono::milliseconds(60000));
    snr::record::RecordOptions options;
    options.breakpoint_address = loop_program().loop_address;
    options.count_per_chip = per_chip;
    const snr::snapshot::Snapshot snapshot = snr::record::record_window(target, options);
    state.PauseTiming();
    server.join();
    captured = snapshot.header.stats().captured_bytes();
    naive = snapshot.header.stats().naive_full_state_bytes();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * chips * per_chip));
  state.counters["captured_bytes"] = static_cast<double>(captured);
  state.counters["captured_fraction"] = static_cast<double>(captured) / static_cast<double>(naive);
}
BENCHMARK(BM_RecordFromDevice)->Args({1, 50000})->Args({4, 20000})->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_PacketDecode(benchmark::State& state) {
  std::string stream;
  for (int i = 0; i < 1000; ++i) stream += snr::rsp::frame_packet("T0520:0000010000000000;02:f0ff000000000000;thread:1;");
  std::vector<snr::rsp::Incoming> out;
  for (auto _ : state) {
    snr::rsp::PacketDecoder decoder;
    out.clear();
    decoder.feed(stream, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * stream.size()));
}
BENCHMARK(BM_PacketDecode);

// One memory reply of 4 MiB of random bytes, framed by the stub and decoded
// by the recorder: binary `x` (arg 1) against hex `m` (arg 0).
void BM_MemoryReply(benchmark::State& state) {
  const bool binary = state.range(0) == 1;
  std::string bytes(snr::rsp::kMaxBinaryReadBytes, '\0');
  uint64_t seed = 1;
  for (char& c : bytes) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    c = static_cast<char>(seed >> 56);
  }
  std::vector<snr::rsp::Incoming> out;
  for (auto _ : state) {
    const std::string framed = snr::rsp::frame_packet(binary ? "b" + bytes : snr::rsp::hex_encode(bytes));
    snr::rsp::PacketDecoder decoder;
    out.clear();
    decoder.feed(framed, out);
    if (binary) {
      benchmark::DoNotOptimize(out.at(0).payload.data());
    } else {
      benchmark::DoNotOptimize(snr::rsp::hex_decode(out.at(0).payload)->data());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
}
BENCHMARK(BM_MemoryReply)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
