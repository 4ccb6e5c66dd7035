// Throughput of reading, linking and converting PyTorch traces.
//   convert_bench [--benchmark_filter=...]
// Real inputs come from $SNR_SHARED_DATA (default ../shared/data relative to
// the working directory); those benchmarks are skipped when it is missing.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "et/convert/chakra_output.h"
#include "et/convert/linked_trace_json.h"
#include "et/convert/pytorch_to_chakra.h"
#include "et/convert/trace_linker.h"
#include "formats/chakra/et_writer.h"
#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/json_input.h"
#include "formats/pytorch/kineto_trace.h"

namespace {

using namespace snr;

std::filesystem::path shared(const std::string& relative) {
  const char* dir = std::getenv("SNR_SHARED_DATA");
  return std::filesystem::path(dir ? dir : "../shared/data") / relative;
}

// A linked host trace shaped like a training step: `ops` operators on one
// thread, each reading the previous op's output and a weight, launching one
// kernel on one of four streams; every 64th op synchronises the device.
pytorch::HostTrace synthetic_linked_trace(size_t ops) {
  pytorch::HostTrace trace;
  trace.schema = "1.1.1-chakra.0.0.4";
  trace.linked = true;
  pytorch::HostNode root;
  root.id = 1;
  root.name = "[pytorch|profiler|execution_trace|thread]";
  root.tid = 1;
  trace.nodes.push_back(root);
  const uint64_t first_device_id = ops + 10;
  for (size_t i = 0; i < ops; ++i) {
    pytorch::HostNode op;
    op.id = 2 + i;
    op.name = i % 3 == 0 ? "aten::mm" : (i % 3 == 1 ? "aten::add" : "aten::relu");
    op.parent_id = 1;
    op.rf_id = i + 1;
    op.tid = 1;
    op.op_schema = "aten::mm(Tensor self, Tensor mat2) -> Tensor";
    op.ts_ns = static_cast<int64_t>(i) * 10'000;
    op.dur_ns = 8'000;
    // A value's views must outlive the trace: its texts go into the trace's pool.
    pytorch::TextPool& pool = *trace.text_pool;
    const std::string_view dtype = pool.intern("Tensor(float)");
    const std::string_view shape = pool.intern(nlohmann::json::array({32, 32}).dump());
    for (uint64_t t : {i, ops + i % 16}) {
      op.inputs.push_back({dtype, pool.intern(nlohmann::json::array({t, t, 0, 1024, 4, "cuda:0"}).dump()), shape, "null"});
    }
    op.outputs.push_back(
        {dtype, pool.intern(nlohmann::json::array({i + 1, i + 1, 0, 1024, 4, "cuda:0"}).dump()), shape, "null"});
    if (i % 64 == 63) op.syncs.push_back({"cudaDeviceSynchronize", op.ts_ns.value() + 7'000, -1});
    trace.nodes.push_back(std::move(op));
  }
  for (size_t i = 0; i < ops; ++i) {
    pytorch::HostNode kernel;
    kernel.id = first_device_id + i;
    kernel.name = "volta_sgemm_64x64_tn";
    kernel.parent_id = 2 + i;
    kernel.tid = 1;
    kernel.kind = pytorch::HostNodeKind::kKernel;
    kernel.launch_ts_ns = static_cast<int64_t>(i) * 10'000 + 1'000;
    kernel.ts_ns = kernel.launch_ts_ns.value() + 5'000;
    kernel.dur_ns = 12'345;
    kernel.stream = 7 + static_cast<int64_t>(i % 4);
    kernel.device = 0;
    trace.nodes.push_back(std::move(kernel));
  }
  return trace;
}

// Converted graph -> length-prefixed .et bytes, in memory.
size_t encode(const et_convert::ConvertedGraph& graph) {
  std::string bytes;
  for (const auto& node : graph.nodes) {
    chakra::append_length_prefixed(bytes, et_convert::to_chakra_node(node), "node");
  }
  return bytes.size();
}

void BM_ConvertSynthetic(benchmark::State& state) {
  const auto trace = synthetic_linked_trace(static_cast<size_t>(state.range(0)));
  size_t nodes = 0;
  for (auto _ : state) {
    et_convert::PytorchConvertStats stats;
    const auto graph = et_convert::convert_pytorch_trace(trace, {}, stats);
    benchmark::DoNotOptimize(encode(graph));
    nodes += graph.nodes.size();
  }
  state.counters["nodes_per_s"] = benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ConvertSynthetic)->Arg(10'000)->Arg(200'000)->Unit(benchmark::kMillisecond);

// The CLI path from the linked JSON text: parse + convert + encode.
void BM_ConvertSyntheticFromJson(benchmark::State& state) {
  const auto trace = synthetic_linked_trace(static_cast<size_t>(state.range(0)));
  const std::string text = et_convert::host_trace_to_json_text(trace);
  size_t nodes = 0;
  for (auto _ : state) {
    const auto parsed = pytorch::parse_host_trace_text(text, "synthetic");
    et_convert::PytorchConvertStats stats;
    const auto graph = et_convert::convert_pytorch_trace(parsed, {}, stats);
    benchmark::DoNotOptimize(encode(graph));
    nodes += graph.nodes.size();
  }
  state.counters["nodes_per_s"] = benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsRate);
  state.counters["json_MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_ConvertSyntheticFromJson)->Arg(200'000)->Unit(benchmark::kMillisecond);

void BM_ReadKinetoLinear(benchmark::State& state) {
  const auto path = shared("pytorch/param/linear_kineto.json.gz");
  if (!std::filesystem::exists(path)) {
    state.SkipWithError("shared data missing");
    return;
  }
  size_t events = 0;
  for (auto _ : state) {
    const auto trace = pytorch::read_kineto_trace(path);
    events += trace.events.size() + trace.ignored_events;
  }
  state.counters["events_per_s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ReadKinetoLinear)->Unit(benchmark::kMillisecond);

// `snr et link` + `snr et convert` on the param linear pair, files to bytes.
void BM_LinkAndConvertLinear(benchmark::State& state) {
  const auto et = shared("pytorch/param/linear_et.json.gz");
  const auto kineto = shared("pytorch/param/linear_kineto.json.gz");
  if (!std::filesystem::exists(et) || !std::filesystem::exists(kineto)) {
    state.SkipWithError("shared data missing");
    return;
  }
  size_t events = 0;
  for (auto _ : state) {
    const auto device = pytorch::read_kineto_trace(kineto);
    et_convert::LinkStats link;
    const auto linked = et_convert::link_traces(pytorch::read_host_trace(et), device, link);
    et_convert::PytorchConvertStats stats;
    benchmark::DoNotOptimize(encode(et_convert::convert_pytorch_trace(linked, {}, stats)));
    events += device.events.size() + device.ignored_events;
  }
  state.counters["kineto_events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LinkAndConvertLinear)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
