#include "dsim/simulator.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/error.h"
#include "dsim/workload/test_graphs.h"

namespace snr::dsim {
namespace {

constexpr std::string_view kAware = "analytical-congestion-aware";
constexpr std::string_view kUnaware = "analytical-congestion-unaware";

std::filesystem::path shared_astra_sim() {
  const char* data = std::getenv("SNR_SHARED_DATA");
  return data ? std::filesystem::path(data) / "astra-sim" : std::filesystem::path();
}

struct Reference {
  const char* collective;
  int npus;
  TimeNs finish_ns;
};

// Reference results printed by ASTRA-sim's analytical backends (SOURCES.md).
constexpr Reference kReferences[] = {
    {"all_reduce", 4, 43000},      {"all_reduce", 8, 64440},      {"all_reduce", 16, 99640},
    {"all_gather", 4, 64744},      {"all_gather", 8, 151016},     {"all_gather", 16, 323560},
    {"reduce_scatter", 4, 22240},  {"reduce_scatter", 8, 33080},  {"reduce_scatter", 16, 50740},
    {"all_to_all", 4, 41560},      {"all_to_all", 8, 125480},     {"all_to_all", 16, 391240},
};

SimulationResult run_reference(const Reference& ref, std::string_view backend) {
  const auto root = shared_astra_sim();
  SimulationInputs inputs;
  inputs.workload_prefix = root / "workload/microbenchmarks" / ref.collective /
                           (std::to_string(ref.npus) + "npus_1MB") / ref.collective;
  inputs.system_configuration = root / "system/native_collectives/Ring_4chunks.json";
  inputs.network_configuration = root / ("network/analytical/Ring_" + std::to_string(ref.npus) + "npus.yml");
  inputs.remote_memory_configuration = root / "remote_memory/analytical/no_memory_expansion.json";
  inputs.backend = backend;
  return simulate_files(inputs);
}

TEST(AstraSimReference, MicrobenchmarksMatchToTheNanosecond) {
  if (shared_astra_sim().empty() || !std::filesystem::exists(shared_astra_sim())) {
    GTEST_SKIP() << "SNR_SHARED_DATA/astra-sim not present";
  }
  for (const auto& ref : kReferences) {
    for (const std::string_view backend : {kAware, kUnaware}) {
      const auto result = run_reference(ref, backend);
      EXPECT_EQ(result.finish_ns(), ref.finish_ns)
          << ref.collective << " on " << ref.npus << " NPUs, " << result.backend_name;
      for (const auto& npu : result.npus) EXPECT_EQ(npu.finish_ns, ref.finish_ns);
    }
  }
}

TEST(AstraSimReference, HgxH100ValidatedSwitch) {
  const auto root = shared_astra_sim();
  if (root.empty() || !std::filesystem::exists(root)) GTEST_SKIP() << "SNR_SHARED_DATA/astra-sim not present";
  SimulationInputs inputs;
  inputs.workload_prefix = root / "workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce";
  inputs.system_configuration = root / "system/native_collectives/HGX-H100-validated.json";
  inputs.network_configuration = root / "network/analytical/HGX-H100-validated.yml";
  inputs.remote_memory_configuration = root / "remote_memory/analytical/no_memory_expansion.json";
  inputs.backend = kAware;
  EXPECT_EQ(simulate_files(inputs).finish_ns(), 57426u);
}

TEST(AstraSimReference, CustomCollectiveMscclRingAllReduce) {
  // The MSCCL ring all-reduce as per-rank Chakra programs (131,072 B per
  // message, 7 us reductions): 14 sends of floor(500 + 131072 / 53.687) =
  // 2,941 ns on the critical path plus 7 reductions of 7,000 ns = 90,174.
  const auto root = shared_astra_sim();
  if (root.empty() || !std::filesystem::exists(root)) GTEST_SKIP() << "SNR_SHARED_DATA/astra-sim not present";
  SimulationInputs inputs;
  inputs.workload_prefix = root / "workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce";
  inputs.system_configuration = root / "system/custom_collectives/custom_collective.json";
  inputs.network_configuration = root / "network/analytical/Ring_8npus.yml";
  inputs.remote_memory_configuration = root / "remote_memory/analytical/no_memory_expansion.json";
  for (const std::string_view backend : {kAware, kUnaware}) {
    inputs.backend = backend;
    const auto result = simulate_files(inputs);
    EXPECT_EQ(result.finish_ns(), 90174u);
    for (const auto& npu : result.npus) EXPECT_EQ(npu.finish_ns, 90174u);
  }
}

using test_graphs::one_collective;

SystemConfig small_system() {
  SystemConfig system = parse_system_config(
      R"({"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
          "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring", "ring"],
          "collective-optimization": "localBWAware", "local-mem-bw": 1000})",
      "test");
  return system;
}

TEST(Simulator, TwoDimensionalAllReduceHandComputed) {
  const auto network = parse_network_config(
      "topology: [Ring, Ring]\nnpus_count: [2, 2]\nbandwidth: [50, 50]\nlatency: [100, 200]\n", "t");
  // 4096 B all-reduce, one chunk, localBWAware: RS in dim 0, AR in dim 1, AG in dim 0.
  // 50 GB/s = 53.687 B/ns. Reduction = 3 * floor(bytes / 1000 B/ns).
  //  RS dim0: msg 2048: 0 +10 endpoint -> send at 10; hop (int)(100+38.15)=138 -> 148;
  //           +10 endpoint +3*2 reduction -> 164, phase done.
  //  AR dim1: msg 1024: 164+10=174 send; hop (int)(200+19.07)=219 -> 393; +10+3*1 -> 406
  //           send; 406+219=625 arrive; +10 -> 635, phase done.
  //  AG dim0: msg 2048: 635+10=645 send; +138 -> 783; +10 -> 793.
  for (const std::string_view backend : {kAware, kUnaware}) {
    std::vector<RankGraph> graphs(4, one_collective(CollectiveKind::kAllReduce, 4096));
    const auto result = simulate(small_system(), network, {}, std::move(graphs), backend, false);
    for (const auto& npu : result.npus) EXPECT_EQ(npu.finish_ns, 793u);
  }
}

TEST(Simulator, ImplementationsBeyondTheDimensionsAreNotedAndAReductionNeedsLocalMemoryBandwidth) {
  const auto network =
      parse_network_config("topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n", "t");
  // small_system lists two all-reduce algorithms; the network has one dimension.
  std::vector<RankGraph> graphs(4, one_collective(CollectiveKind::kAllReduce, 4096));
  const auto result = simulate(small_system(), network, {}, std::move(graphs), kAware, false);
  EXPECT_THAT(result.notes, ::testing::Contains(
                                "all-reduce-implementation lists 2 algorithms for a 1-dimensional network; those "
                                "after the first 1 are not used"));
  SystemConfig without = small_system();
  without.local_mem_bytes_per_ns = 0;
  std::vector<RankGraph> again(4, one_collective(CollectiveKind::kAllReduce, 4096));
  EXPECT_THAT([&] { (void)simulate(without, network, {}, std::move(again), kAware, false); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
                  "system configuration test: a reduction needs 'local-mem-bw' (GB/s), which is 0 or not given")));
}

TEST(Simulator, TwoDimensionalSwitchByRingContention) {
  const auto network = parse_network_config(
      "topology: [Switch, Ring]\nnpus_count: [4, 2]\nbandwidth: [400, 50]\nlatency: [1000, 500]\n", "t");
  SystemConfig system = small_system();
  system.active_chunks_per_dimension = 2;
  system.preferred_dataset_splits = 2;
  // 8192 B all-gather, 2 chunks of 4096, baseline order reversed for all-gather:
  // dim 1 (Ring 2) first, then dim 0 (Switch 4). Both chunks run together.
  //  dim1: msg 4096 B at 53.687 B/ns: serialization 76.29 -> 76; hop (int)(500+76.29) = 576.
  //        chunk A sends at 10, arrives 586; chunk B waits for the link: starts 86, arrives 662.
  //        +10 endpoint: A done 596, B done 672. Output 8192 B each.
  //  dim0: msg 8192 B at 429.5 B/ns: serialization 19.07 -> 19; hop (int)(1000+19.07) = 1019.
  //        3 steps. A: 606 send; up-link free 625, switch 1625, down 1625..1644, arrive 2644;
  //        B: 682 send (no queueing: A left the up-link at 625), arrive 682+2038 = 2720.
  //        A: +10 -> 2654 send, arrive 4692, +10 -> 4702 send, arrive 6740, +10 -> 6750.
  //        B: 2730 send, 4768, 4778 send, 6816, +10 -> 6826.
  std::vector<RankGraph> graphs(8, one_collective(CollectiveKind::kAllGather, 8192));
  const auto result = simulate(system, network, {}, std::move(graphs), kAware, false);
  for (const auto& npu : result.npus) EXPECT_EQ(npu.finish_ns, 6826u);
}

TEST(Simulator, OneNpuCollectivesFinishWhenTheyStartWithEveryAlgorithm) {
  // Nobody to exchange with: every algorithm, flattened (one*) or per
  // dimension, and the rooted collectives finish at 0 ns.
  const auto network =
      parse_network_config("topology: [Ring]\nnpus_count: [1]\nbandwidth: [50]\nlatency: [500]\n", "t");
  for (const char* algorithm :
       {"ring", "direct", "halvingDoubling", "doubleBinaryTree", "oneRing", "oneDirect", "oneHalvingDoubling"}) {
    // (The double binary tree implements all-reduce only: ring for the others.)
    const std::string others = std::string_view(algorithm) == "doubleBinaryTree" ? "ring" : algorithm;
    const SystemConfig system = parse_system_config(
        fmt::format(R"({{"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
            "preferred-dataset-splits": 4, "all-reduce-implementation": ["{0}"], "all-gather-implementation": ["{1}"],
            "reduce-scatter-implementation": ["{1}"], "collective-optimization": "localBWAware", "local-mem-bw": 1000}})",
                    algorithm, others),
        "test");
    for (const CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kAllGather,
                                      CollectiveKind::kReduceScatter, CollectiveKind::kBroadcast}) {
      std::vector<RankGraph> graphs(1, one_collective(kind, 1 << 20));
      const auto result = simulate(system, network, {}, std::move(graphs), kAware, false);
      EXPECT_EQ(result.npus.at(0).finish_ns, 0u) << algorithm << " " << collective_name(kind);
    }
  }
}

TEST(Simulator, MetadataAndCpuOnlyTraceRunsToTheEnd) {
  RankGraph graph;
  WorkNode meta;
  meta.name = "metadata";
  WorkNode cpu1 = test_graphs::compute_node("cpu1", 5000, NodeClass::kCpu);
  cpu1.parents = 1;
  WorkNode gpu = test_graphs::compute_node("gpu", 3000);
  WorkNode cpu2 = cpu1;
  cpu2.name = "cpu2";
  cpu2.duration_ns = 2000;
  meta.children = {1};
  cpu1.children = {3};
  graph.nodes = {meta, cpu1, gpu, cpu2};
  const auto network = parse_network_config("topology: [Ring]\nnpus_count: [2]\nbandwidth: [50]\nlatency: [500]\n", "t");
  const auto result = simulate(small_system(), network, {}, {graph, graph}, kAware, true);
  for (const auto& npu : result.npus) {
    EXPECT_TRUE(npu.finished);
    EXPECT_EQ(npu.finish_ns, 7000u);  // cpu1 0..5000 then cpu2 5000..7000
    EXPECT_EQ(npu.compute_ns, 3000u);  // GPU compute only, as ASTRA-sim counts it
    EXPECT_EQ(npu.nodes_completed, 4u);
  }
  EXPECT_EQ(result.timeline[0].size(), 3u);
  EXPECT_EQ(result.messages_sent, 0u);
}

TEST(Simulator, UnmatchedRecvIsADeadlockError) {
  RankGraph waiting;
  WorkNode recv;
  recv.node_class = NodeClass::kGpuComm;
  recv.action = NodeAction::kRecv;
  recv.peer = 1;
  recv.comm_bytes = 64;
  waiting.nodes = {recv};
  const auto network = parse_network_config("topology: [Ring]\nnpus_count: [2]\nbandwidth: [50]\nlatency: [500]\n", "t");
  EXPECT_THROW((void)simulate(small_system(), network, {}, {waiting, RankGraph{}}, kAware, false),
               Error);
}

}  // namespace
}  // namespace snr::dsim
