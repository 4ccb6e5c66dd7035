// Generated pipeline-parallel (GPipe) traces run to the end in the
// distributed simulator, at hand-computed times. Regression: every stage
// posts its receives at time 0 (they have no dependencies), and a posted
// receive used to hold the NPU's one communication lane, so the sends the
// next stage waited for were never issued (snr sim: "simulation stalled").
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/file_io.h"
#include "dsim/simulator.h"
#include "et/generate/patterns.h"

namespace snr::et {
namespace {

constexpr std::string_view kBackends[] = {"analytical-congestion-aware", "analytical-congestion-unaware"};

struct PipelineCase {
  Rank npus;
  uint32_t microbatches;
  uint64_t message_bytes;
  // Per stage, when its last node ends.
  std::vector<dsim::TimeNs> finish_ns;
};

// `--pattern pp` with 2 layers per stage, 100 us per layer forward.
Workload pipeline(const PipelineCase& c) {
  PatternOptions options;
  options.pattern = "pp";
  options.npus = c.npus;
  options.microbatches = c.microbatches;
  options.layers = 2;
  options.size_bytes = c.message_bytes;
  options.compute_micros = 100;
  return generate_pattern(options);
}

// Writes `workload` into a fresh folder with a one-dimensional ring of
// `npus` (50 GB/s, 500 ns), and simulates it on `backend`.
dsim::SimulationResult simulate_pipeline(const PipelineCase& c, const Workload& workload, std::string_view backend) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("snr_pp_sim_" + std::to_string(c.npus) + "_" + std::to_string(c.microbatches) + "_" +
                    std::to_string(c.message_bytes));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  write_workload(workload, dir / "pp");
  write_file_atomic(dir / "sys.json",
                    R"({"scheduling-policy": "FIFO", "endpoint-delay": 0, "active-chunks-per-dimension": 1,
                        "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"],
                        "collective-optimization": "baseline", "local-mem-bw": 1600})");
  write_file_atomic(dir / "net.yml", "topology: [Ring]\nnpus_count: [" + std::to_string(c.npus) +
                                         "]\nbandwidth: [50]\nlatency: [500]\n");
  write_file_atomic(dir / "mem.json", R"({"memory-type": "NO_MEMORY_EXPANSION"})");
  dsim::SimulationInputs inputs;
  inputs.workload_prefix = dir / "pp";
  inputs.system_configuration = dir / "sys.json";
  inputs.network_configuration = dir / "net.yml";
  inputs.remote_memory_configuration = dir / "mem.json";
  inputs.backend = backend;
  auto result = dsim::simulate_files(inputs);
  std::filesystem::remove_all(dir);
  return result;
}

// The hand computation, with F = 200 us forward and B = 400 us backward per
// micro-batch (2 layers of 100 us, backward twice forward), T one message
// between neighbouring stages: (int)(500 ns + bytes / 53.687 B/ns), the same
// on both backends (one hop, never two messages on a link at once), and
// L = npus - 1 the last stage. Forward of micro-batch m ends on stage s at
// s(F+T) + (m+1)F: the stage's previous micro-batch and the activation from
// stage s-1 are ready at the same time. Backward (micro-batches in reverse)
// ends on stage s at fL + (L-s)(B+T) + (M-m)B, fL = L(F+T) + MF being the
// last forward on the last stage. A stage's last node is its final gradient
// send, T after its last backward; stage 0 ends with that backward:
// (M+L)(F+B) + 2LT.
const PipelineCase kCases[] = {
    // The reported deadlock: 1 KiB, T = (int)(500 + 19.07) = 519.
    // Stage 0: 2 x 600000 + 2 x 519; stage 1: 200519 + 200000 + 400000 + 519.
    {2, 1, 1024, {1201038, 801038}},
    // 1 MiB, T = (int)(500 + 19531.25) = 20031.
    // Stage 0: 5 x 600000 + 2 x 20031; stage 1: 220031 + 800000 + 1600000 + 20031.
    {2, 4, 1 << 20, {3040062, 2640062}},
    // fL = 3 x 220031 + 600000 = 1260093; backward 3 x 400000 = 1200000.
    // Stage 0: 6 x 600000 + 6 x 20031; stage s: fL + (3-s) x 420031 + 1200000 + 20031.
    {4, 3, 1 << 20, {3720186, 3320186, 2900155, 2480124}},
};

TEST(PipelineParallelSimulation, GeneratedTracesFinishAtHandComputedTimes) {
  for (const PipelineCase& c : kCases) {
    const Workload workload = pipeline(c);
    for (const std::string_view backend : kBackends) {
      const auto result = simulate_pipeline(c, workload, backend);
      ASSERT_EQ(result.npus.size(), c.npus);
      for (Rank stage = 0; stage < c.npus; ++stage) {
        const auto& npu = result.npus[stage];
        const std::string where = std::to_string(c.npus) + " stages, " + std::to_string(c.microbatches) +
                                  " micro-batches of " + std::to_string(c.message_bytes) + " B on " +
                                  std::string(backend) + ", stage " + std::to_string(stage);
        EXPECT_TRUE(npu.finished) << where;
        EXPECT_EQ(npu.nodes_completed, workload.ranks[stage].size()) << where;
        EXPECT_EQ(npu.finish_ns, c.finish_ns[stage]) << where;
        // Every stage computes M forwards and M backwards of 600 us in all.
        EXPECT_EQ(npu.compute_ns, c.microbatches * 600'000u) << where;
      }
      EXPECT_EQ(result.finish_ns(), c.finish_ns[0]);
      // One activation and one gradient per micro-batch and stage boundary.
      EXPECT_EQ(result.messages_sent, 2u * c.microbatches * (c.npus - 1));
    }
  }
}

}  // namespace
}  // namespace snr::et
