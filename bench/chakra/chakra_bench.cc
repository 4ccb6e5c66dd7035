// Chakra trace I/O and feeder throughput. The trace is synthetic
// (test_traces.h: realistic names, shapes, attributes, two dependencies per
// node) and generated here, so the benchmark needs no input files.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/file_io.h"
#include "et/feeder/feeder.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/test_traces.h"

namespace {

using snr::chakra::testing::synthetic_node;

const std::string& synthetic_trace_bytes(uint64_t nodes) {
  static std::string bytes;
  static uint64_t built_for = 0;
  if (built_for != nodes) {
    std::vector<ChakraProtoMsg::Node> list;
    list.reserve(nodes);
    for (uint64_t i = 0; i < nodes; ++i) list.push_back(synthetic_node(i));
    bytes = snr::chakra::encode_trace(snr::chakra::testing::sample_metadata(), list);
    built_for = nodes;
  }
  return bytes;
}

// From a file on disk (page cache warm after the first iteration): read(2)
// chunks + varint framing + protobuf parse into one reused Node.
void BM_ReadEtFile(benchmark::State& state) {
  const auto& bytes = synthetic_trace_bytes(static_cast<uint64_t>(state.range(0)));
  auto path = std::filesystem::temp_directory_path() / ("snr_bench_" + std::to_string(::getpid()) + ".et");
  snr::write_file_atomic(path, bytes);
  for (auto _ : state) {
    auto reader = snr::chakra::EtReader::open(path);
    ChakraProtoMsg::Node node;
    uint64_t count = 0;
    while (reader.next(node)) ++count;
    benchmark::DoNotOptimize(count);
  }
  std::filesystem::remove(path);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
  state.counters["nodes_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * state.range(0)), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ReadEtFile)->Arg(200000)->Unit(benchmark::kMillisecond);

void BM_WriteEtFile(benchmark::State& state) {
  std::vector<ChakraProtoMsg::Node> nodes;
  for (int64_t i = 0; i < state.range(0); ++i) nodes.push_back(synthetic_node(static_cast<uint64_t>(i)));
  auto path = std::filesystem::temp_directory_path() / ("snr_bench_w_" + std::to_string(::getpid()) + ".et");
  uint64_t bytes = 0;
  for (auto _ : state) {
    snr::chakra::EtWriter writer(path, snr::chakra::testing::sample_metadata());
    for (const auto& node : nodes) writer.write(node);
    writer.commit();
    bytes = writer.bytes_written();
  }
  std::filesystem::remove(path);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_WriteEtFile)->Arg(200000)->Unit(benchmark::kMillisecond);

// Issue/complete every node through the windowed feeder (nodes pre-parsed).
void BM_FeederIssueComplete(benchmark::State& state) {
  std::vector<ChakraProtoMsg::Node> nodes;
  for (int64_t i = 0; i < state.range(0); ++i) nodes.push_back(synthetic_node(static_cast<uint64_t>(i)));
  for (auto _ : state) {
    state.PauseTiming();
    snr::et::TraceFeeder feeder(nodes);
    state.ResumeTiming();
    uint64_t done = 0;
    while (feeder.has_pending()) {
      while (const auto* node = feeder.next_issuable()) {
        feeder.push_completed(node->id());
        ++done;
      }
    }
    benchmark::DoNotOptimize(done);
  }
  state.counters["nodes_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * state.range(0)), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FeederIssueComplete)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
