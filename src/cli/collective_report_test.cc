// The collective report's kernel timings and CU occupancy on runs whose
// times are computed by hand (the GPU model's fixed-latency cases, 1 GHz:
// one cycle = 1 ns), and the --trace timeline of a run on the NoC.
#include "cli/collective_report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/collective_trace.h"
#include "dsim/gpu/fixed_latency_network.h"
#include "dsim/gpu/gpu_model.h"
#include "dsim/noc/noc_network.h"
#include "formats/perfetto/trace_validator.h"

namespace snr::cli {
namespace {

namespace gpu = dsim::gpu;
namespace ls = dsim::loadstore;
namespace noc = dsim::noc;
constexpr gpu::TimePs kNs = 1000;

// Kernels of workgroups of one op each, appended in order.
struct Builder {
  explicit Builder(uint32_t gpus) { program.gpus.assign(gpus, ls::GpuBuffers{1 << 20, 1 << 20, 1 << 20, 0}); }
  void kernel(uint32_t gpu, std::string name) {
    program.kernels.push_back(
        ls::Kernel{gpu, static_cast<uint32_t>(program.workgroups.size()), 0, program.add_name(std::move(name))});
  }
  // A workgroup of the last kernel running `op` over `ranges`.
  void workgroup(ls::GpuOp op, const std::vector<ls::MemRange>& ranges, uint16_t wavefronts = 1) {
    ls::Kernel& k = program.kernels.back();
    ls::Workgroup wg;
    wg.gpu = k.gpu;
    wg.first_op = static_cast<uint32_t>(program.ops.size());
    wg.op_count = 1;
    wg.wavefronts = wavefronts;
    program.workgroups.push_back(wg);
    ++k.workgroup_count;
    program.add_op(op, ranges, ls::OpOrigin{k.workgroup_count - 1, 0, ls::kNone, 0, 0});
  }
  void reduce(uint32_t cycles) {
    ls::GpuOp op;
    op.kind = ls::OpKind::kReduce;
    op.reduce_cycles = cycles;
    workgroup(op, {});
  }
  void memcpy(uint64_t bytes, uint32_t src_gpu, uint32_t dst_gpu, uint64_t offset = 0, uint16_t wavefronts = 1) {
    ls::GpuOp op;
    op.kind = ls::OpKind::kMemcpy;
    op.bytes = bytes;
    workgroup(op,
              {ls::MemRange{src_gpu, ls::Space::kInput, 0, 0, offset},
               ls::MemRange{dst_gpu, ls::Space::kOutput, 0, 0, offset}},
              wavefronts);
  }
  ls::Program program;
};

gpu::GpuConfig test_config(uint32_t cus, uint32_t per_cu) {
  gpu::GpuConfig c;
  c.compute_units = cus;
  c.workgroups_per_cu = per_cu;
  c.clock_ghz = 1.0;
  c.unroll = 1;
  c.max_outstanding_per_cu = 64;
  return c;
}

gpu::RunStats run_fixed(const ls::Program& program, const gpu::GpuConfig& config) {
  dsim::EventLoop loop;
  gpu::FixedLatencyNetwork network(loop, 5 * kNs, 500 * kNs);
  gpu::GpuModel model(program, config, loop, network);
  model.start();
  loop.run();
  return model.finish();
}

TEST(CollectiveReport, OccupancyOfFiveReducesOnTwoCus) {
  // gpu_model_test's case: reduces of 10, 20, 30, 40, 5 cycles on 2 CUs
  // with 2 slots each. cu0 holds wg0 0-10, wg2 0-40, wg4 10-45 (busy 0-45);
  // cu1 holds wg1 0-20, wg3 0-60 (busy 0-60). The run ends at 60 ns.
  Builder b(1);
  b.kernel(0, "reduce");
  for (uint32_t c : {10u, 20u, 30u, 40u, 5u}) b.reduce(c);
  const gpu::RunStats stats = run_fixed(b.program, test_config(2, 2));
  ASSERT_EQ(stats.end_ps, 60 * kNs);
  const std::vector<CuOccupancy> occ = cu_occupancy(b.program, stats, 2);
  ASSERT_EQ(occ.size(), 1u);
  EXPECT_EQ(occ[0].cus_used, 2u);
  EXPECT_EQ(occ[0].workgroups, 5u);
  EXPECT_DOUBLE_EQ(occ[0].max_busy_fraction, 1.0);
  EXPECT_DOUBLE_EQ(occ[0].mean_busy_fraction, (45.0 / 60 + 1.0) / 2);  // 0.875
  // Residences 10 + 20 + 40 + 60 + 35 = 165 ns, 2.75 workgroups on average.
  EXPECT_EQ(occ[0].resident_workgroup_ps, 165 * kNs);
  EXPECT_DOUBLE_EQ(occ[0].mean_resident_workgroups, 2.75);
}

TEST(CollectiveReport, UnusedCusCountInTheMeanAndIdenticalGpusShareALine) {
  // Three GPUs of 4 CUs, one reduce each: 10, 10 and 20 cycles. The run
  // ends at 20 ns; GPUs 0 and 1 are busy on one CU for half of it.
  Builder b(3);
  for (uint32_t g = 0; g < 3; ++g) {
    b.kernel(g, "k");
    b.reduce(g == 2 ? 20 : 10);
  }
  const gpu::RunStats stats = run_fixed(b.program, test_config(4, 1));
  ASSERT_EQ(stats.end_ps, 20 * kNs);
  const std::vector<CuOccupancy> occ = cu_occupancy(b.program, stats, 4);
  ASSERT_EQ(occ.size(), 3u);
  EXPECT_EQ(occ[0].cus_used, 1u);
  EXPECT_DOUBLE_EQ(occ[0].max_busy_fraction, 0.5);
  EXPECT_DOUBLE_EQ(occ[0].mean_busy_fraction, 0.125);
  EXPECT_DOUBLE_EQ(occ[2].mean_busy_fraction, 0.25);
  EXPECT_DOUBLE_EQ(occ[2].mean_resident_workgroups, 1.0);
  const std::vector<std::string> lines = occupancy_lines(occ);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "GPUs 0-1: 1/4 CUs used, busy 12.5% mean, 50.0% max, 0.50 workgroups resident on average");
  EXPECT_EQ(lines[1], "GPU 2: 1/4 CUs used, busy 25.0% mean, 100.0% max, 1.00 workgroups resident on average");
}

TEST(CollectiveReport, KernelTimesBytesAndBandwidth) {
  // A 4-line local copy with unroll 1 ends at 53 ns (gpu_model_test).
  // GPU 1 runs it as two kernels: no bandwidth of the collective per kernel.
  Builder b(2);
  b.kernel(0, "copy");
  b.memcpy(512, 0, 0);
  b.kernel(1, "first");
  b.memcpy(512, 1, 1);
  b.kernel(1, "second");
  b.reduce(10);
  const gpu::RunStats stats = run_fixed(b.program, test_config(4, 1));
  const std::vector<KernelTiming> k = kernel_timings(b.program, stats, 0.5);
  ASSERT_EQ(k.size(), 3u);
  EXPECT_EQ(k[0].name, "copy");
  EXPECT_EQ(k[0].start_ps, 0u);
  EXPECT_EQ(k[0].end_ps, 53 * kNs);
  EXPECT_EQ(k[0].stored_bytes, 512u);
  EXPECT_EQ(k[0].stored_bytes, stats.gpus[0].stored_bytes);
  ASSERT_TRUE(k[0].busbw_gbps.has_value());
  EXPECT_DOUBLE_EQ(*k[0].algbw_gbps, 1048576.0 / 53);  // bytes per ns = GB/s
  EXPECT_DOUBLE_EQ(*k[0].busbw_gbps, 0.5 * 1048576.0 / 53);
  EXPECT_EQ(k[1].gpu, 1u);
  EXPECT_EQ(k[1].end_ps, 53 * kNs);
  EXPECT_FALSE(k[1].busbw_gbps.has_value());
  EXPECT_EQ(k[2].name, "second");
  EXPECT_EQ(k[2].end_ps, 10 * kNs);
  EXPECT_EQ(k[2].stored_bytes, 0u);
  EXPECT_EQ(kernels_csv(k),
            "gpu,kernel,kernel_name,workgroups,start_ns,end_ns,time_ns,stored_bytes,busbw_gbps\n"
            "0,0,\"copy\",1,0.000,53.000,53.000,512,9892.2264\n"
            "1,1,\"first\",1,0.000,53.000,53.000,512,\n"
            "1,2,\"second\",1,0.000,10.000,10.000,0,\n");
  const nlohmann::json j = kernels_json(k);
  EXPECT_TRUE(j[1]["busbw_gbps"].is_null());
  EXPECT_DOUBLE_EQ(j[0]["time_ns"].get<double>(), 53.0);
}

// Two GPUs of the paper's preset copying to each other from 6 workgroups
// each, on the NoC with its timeline recorded.
struct NocRun {
  ls::Program program;
  gpu::RunStats stats;
  noc::NocStats links;
  noc::LinkTimeline timeline;
};

NocRun run_noc(bool record) {
  NocRun r;
  Builder b(2);
  for (uint32_t g = 0; g < 2; ++g) {
    b.kernel(g, "exchange");
    for (uint32_t w = 0; w < 6; ++w) b.memcpy(8192, g, 1 - g, w * 8192ull, 4);
  }
  r.program = b.program;
  dsim::EventLoop loop;
  noc::NocNetwork network(noc::noc_config_preset("generic-448"), 2, loop);
  if (record) network.record_timeline();
  gpu::GpuModel model(r.program, gpu::gpu_config_preset("generic-448"), loop, network);
  model.start();
  loop.run();
  r.stats = model.finish();
  r.links = network.stats();
  if (record) r.timeline = *network.timeline();
  return r;
}

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         (name + "_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".json");
}

TEST(CollectiveTrace, TracksSlicesAndCountersOfANocRun) {
  const NocRun plain = run_noc(false);
  const NocRun r = run_noc(true);
  EXPECT_EQ(plain.stats.end_ps, r.stats.end_ps);  // recording changes nothing
  const std::filesystem::path path = temp_file("collective_trace");
  const CollectiveTraceSummary s = write_collective_trace(path, r.program, r.stats, 128, &r.links, &r.timeline);
  EXPECT_EQ(s.workgroup_slices, 12u);
  EXPECT_EQ(s.workgroups_left_out, 0u);
  EXPECT_EQ(s.cus_per_track, 8u);  // 128 CUs in 16 tracks
  EXPECT_EQ(s.counter_tracks, 15u);

  const perfetto::TraceCheck check = perfetto::check_chrome_trace_file(path);
  EXPECT_TRUE(check.ok()) << check.summary();
  std::ifstream in(path);
  const nlohmann::json trace = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  std::map<int, std::string> processes;
  std::set<std::string> threads, counters;
  size_t workgroup_slices = 0, kernel_slices = 0;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "process_name") processes[e["pid"].get<int>()] = e["args"]["name"];
    if (ph == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"].get<std::string>());
    if (ph == "C") counters.insert(e["name"].get<std::string>());
    if (ph == "X" && e.value("cat", "") == "workgroup") {
      ++workgroup_slices;
      EXPECT_TRUE(e["args"].contains("cu") && e["args"].contains("ops") && e["args"].contains("workgroup"));
      EXPECT_EQ(e["name"].get<std::string>().rfind("exchange wg ", 0), 0u) << e["name"];
    }
    if (ph == "X" && e.value("cat", "") == "kernel") ++kernel_slices;
  }
  EXPECT_EQ(workgroup_slices, r.program.workgroups.size());
  EXPECT_EQ(kernel_slices, 2u);
  std::set<std::string> process_names;
  for (const auto& [pid, name] : processes) process_names.insert(name);
  EXPECT_EQ(process_names, (std::set<std::string>{"GPU 0", "GPU 1", "NoC links"}));
  // The six workgroups of a GPU go round-robin to CUs 0-5: the first track.
  EXPECT_TRUE(threads.count("CUs 0-7"));
  EXPECT_TRUE(threads.count("kernels"));
  for (const char* kind : {"router", "cu", "hbm", "io", "scale_up"}) {
    EXPECT_TRUE(counters.count(std::string(kind) + " links busy (fraction)")) << kind;
    EXPECT_TRUE(counters.count(std::string(kind) + " messages waiting")) << kind;
  }
  EXPECT_EQ(trace["otherData"]["workgroups_left_out"], 0);
  EXPECT_EQ(trace["otherData"]["workgroup_slices"], 12);
}

TEST(CollectiveTrace, ACappedTraceSaysWhatItLeftOut) {
  const NocRun r = run_noc(true);
  const std::filesystem::path path = temp_file("collective_trace_capped");
  CollectiveTraceOptions options;
  options.max_workgroup_slices = 4;  // 2 per GPU
  const CollectiveTraceSummary s =
      write_collective_trace(path, r.program, r.stats, 128, &r.links, &r.timeline, options);
  EXPECT_EQ(s.workgroup_slices, 4u);
  EXPECT_EQ(s.workgroups_left_out, 8u);
  EXPECT_TRUE(perfetto::check_chrome_trace_file(path).ok());
  std::ifstream in(path);
  const nlohmann::json trace = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  EXPECT_EQ(trace["otherData"]["workgroups_left_out"], 8);
  EXPECT_EQ(trace["otherData"]["max_workgroup_slices"], 4);
  bool noted = false;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "i" && e["name"].get<std::string>().find("8 of 12 workgroups left out") != std::string::npos) {
      noted = true;
    }
  }
  EXPECT_TRUE(noted);
}

TEST(CollectiveTrace, CuGroupsNameTheirRange) {
  EXPECT_EQ(cus_per_trace_track(128, 16), 8u);
  EXPECT_EQ(cus_per_trace_track(108, 16), 7u);  // 16 tracks, the last of 3 CUs
  EXPECT_EQ(cus_per_trace_track(132, 16), 9u);
  EXPECT_EQ(cus_per_trace_track(4, 16), 1u);
}

}  // namespace
}  // namespace snr::cli
