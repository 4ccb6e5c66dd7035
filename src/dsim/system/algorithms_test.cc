// Hand-computed cases for the direct, halving-doubling and custom
// collective algorithms. Common setup: one collective per NPU on a
// FullyConnected network of 4 NPUs (every message is one hop on its own
// link, so both backends agree), 50 GB/s = 53.687 B/ns, latency 100 ns,
// endpoint delay 10 ns, local-mem-bw 1000 B/ns (a reduction of B bytes
// takes 3 * floor(B / 1000) ns), one chunk.
// Message times: floor(100 + B / 53.687): 1024 B -> 119 ns, 2048 B -> 138 ns.
#include <gtest/gtest.h>

#include <string>

#include "common/error.h"
#include "dsim/simulator.h"
#include "dsim/workload/test_graphs.h"

namespace snr::dsim {
namespace {

constexpr std::string_view kAware = "analytical-congestion-aware";
constexpr std::string_view kUnaware = "analytical-congestion-unaware";

using test_graphs::one_collective;

SystemConfig system_with(const std::string& algorithm) {
  return parse_system_config(
      R"({"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
          "preferred-dataset-splits": 1, "collective-optimization": "baseline", "local-mem-bw": 1000,
          "all-reduce-implementation": [")" + algorithm + R"("],
          "all-gather-implementation": [")" + algorithm + R"("],
          "reduce-scatter-implementation": [")" + algorithm + R"("],
          "all-to-all-implementation": [")" + algorithm + R"("]})",
      "test");
}

NetworkConfig fully_connected(uint32_t npus) {
  return parse_network_config("topology: [FullyConnected]\nnpus_count: [" + std::to_string(npus) +
                                  "]\nbandwidth: [50]\nlatency: [100]\n",
                              "test");
}

TimeNs run(const std::string& algorithm, CollectiveKind kind, uint64_t bytes, uint32_t npus = 4) {
  TimeNs finish = 0;
  for (const std::string_view backend : {kUnaware, kAware}) {
    std::vector<RankGraph> graphs(npus, one_collective(kind, bytes));
    const auto result = simulate(system_with(algorithm), fully_connected(npus), {}, std::move(graphs), backend, false);
    for (const auto& npu : result.npus) EXPECT_EQ(npu.finish_ns, result.npus[0].finish_ns) << "asymmetric finish";
    if (backend == kUnaware) {
      finish = result.finish_ns();
    } else {
      EXPECT_EQ(result.finish_ns(), finish) << "backends disagree on a contention-free case";
    }
  }
  return finish;
}

TEST(HalvingDoubling, AllReduceFourNpus) {
  // 4096 B, log2(4) = 2: sends 2048 @ distance 1, 1024 @ 2, 1024 @ 2, 2048 @ 1.
  //  10: first packet through the endpoint, send 2048 -> arrives 148.
  //  148: received packet (carries 1024 next, reducing round): +10 +3*1 -> 161, send 1024 -> 280.
  //  280: new round, local packet (no reduction): +10 -> 290, send 1024 -> 409.
  //  409: packet carrying 2048, second round does not reduce: +10 -> 419, send 2048 -> 557.
  //  557: last packet: +10 -> 567, all steps sent and the packet is free: done.
  EXPECT_EQ(run("halvingDoubling", CollectiveKind::kAllReduce, 4096), 567u);
}

TEST(HalvingDoubling, ReduceScatterAndAllGather) {
  // Reduce-scatter 4096 B: 2048 @ 1 (10 -> 148), reduce 1024: +10 +3 -> 161,
  // 1024 @ 2 -> 280, +10 -> 290 done.
  EXPECT_EQ(run("halvingDoubling", CollectiveKind::kReduceScatter, 4096), 290u);
  // All-gather 1024 B: 1024 @ distance 2 (10 -> 129), +10 -> 139, 2048 @ 1 -> 277, +10 -> 287.
  EXPECT_EQ(run("halvingDoubling", CollectiveKind::kAllGather, 1024), 287u);
}

TEST(HalvingDoubling, RejectsNonPowerOfTwoAndAllToAll) {
  EXPECT_THROW((void)run("halvingDoubling", CollectiveKind::kAllReduce, 6144, 6), Error);
  EXPECT_THROW((void)run("halvingDoubling", CollectiveKind::kAllToAll, 4096), Error);
}

TEST(Direct, AllToAllFourNpus) {
  // Window N-1 = 3: three local packets at 10 send 1024 B to +1, +2, +3;
  // all arrive at 129, each +10 endpoint -> 139; three free packets: done.
  EXPECT_EQ(run("direct", CollectiveKind::kAllToAll, 4096), 139u);
}

TEST(Direct, AllReduceFourNpus) {
  // Message 4096 / 4 = 1024 B, 6 steps. 10: three sends -> arrive 129.
  // Receives reduce: +10 +3 -> 142; the all-gather half starts once all
  // three are in: three sends at 142 -> 261; +10 (no reduction) -> 271.
  EXPECT_EQ(run("direct", CollectiveKind::kAllReduce, 4096), 271u);
}

// ASTRA-sim's ring, direct and halving-doubling pass packets through the
// endpoint in a fixed 10 ns ("fast" transmission) in a communicator group's
// own ring (a group smaller than the system), whatever endpoint-delay says;
// elsewhere endpoint-delay applies.
TEST(GroupRing, PacketsPassTheEndpointInTenNanosecondsWhateverEndpointDelay) {
  CommGroups groups;
  groups.groups["1"] = {0, 2};
  const auto finish = [&](const std::string& algorithm, uint64_t endpoint_delay_ns, bool in_group) {
    SystemConfig system = system_with(algorithm);
    system.endpoint_delay_ns = endpoint_delay_ns;
    std::vector<RankGraph> graphs(4);
    for (const NpuId npu : {0u, 2u}) {
      graphs[npu] = one_collective(CollectiveKind::kAllGather, 2048);
      graphs[npu].nodes[0].group = in_group ? 0 : -1;
    }
    if (!in_group) graphs = std::vector<RankGraph>(4, one_collective(CollectiveKind::kAllGather, 2048));
    return simulate(system, fully_connected(4), groups, std::move(graphs), kUnaware, false).npus[0].finish_ns;
  };
  for (const std::string algorithm : {"ring", "direct", "halvingDoubling"}) {
    // Two members, one step: 10 (endpoint) + 138 (2048 B) + 10 (endpoint).
    EXPECT_EQ(finish(algorithm, 37, true), 158u) << algorithm;
    EXPECT_EQ(finish(algorithm, 10, true), 158u) << algorithm;
    // All four NPUs (the system's own dimension): 37 per pass.
    EXPECT_GT(finish(algorithm, 37, false), finish(algorithm, 10, false)) << algorithm;
  }
}

TEST(Direct, WindowOfOneSerializesThePeers) {
  // direct1: one packet in flight. All-to-all 4096 B, 1024 B messages:
  //  10 send to +1 -> 129; +10 -> 139 send to +2 -> 258; +10 -> 268 send to +3 -> 387; +10 -> 397.
  EXPECT_EQ(run("direct1", CollectiveKind::kAllToAll, 4096), 397u);
}

std::vector<TimeNs> per_npu_finish(const SimulationResult& result) {
  std::vector<TimeNs> finish;
  for (const auto& npu : result.npus) finish.push_back(npu.finish_ns);
  return finish;
}

TEST(DoubleBinaryTree, TwoCollectivesUseTheTwoTrees) {
  // 4 NPUs, 4096 B messages: floor(100 + 76.29) = 176 ns; reduction 3 * 4 = 12 ns.
  // Two all-reduces in a row on every NPU (the second depends on the first).
  // First: "RootMax" tree: NPU 3 root -> child 1; NPU 1 inner with leaves 0 and 2.
  //  0: leaves +10 -> send to 1 at 10, arrive 186; NPU 1 reduces each: 186+10+12 = 208,
  //     sends to the root at 208 -> 384; root reduces -> 406, sends down, done at 406.
  //  NPU 1 receives 582, reduces -> 604, sends to both leaves, done at 604.
  //  Leaves receive 780, +10 -> done at 790.
  // Second: "RootMin" tree: NPU 0 root -> child 2; NPU 2 inner with leaves 1 and 3.
  //  NPU 3 starts 406: +10, send to 2 -> 592. NPU 1 starts 604: +10, send -> 790.
  //  NPU 2 starts 790 and finds both: reduce -> 812, send to root -> 988 (root started 790),
  //  root reduces -> 1010 and sends down: done at 1010. NPU 2 receives 1186 -> 1208, done.
  //  Leaves receive 1384, +10 -> done at 1394.
  // Congestion-aware: NPU 1's send to NPU 2 at 614 waits for link 1->2, busy
  // until 604 + floor(76.29) = 680 with the first tree's message, so it
  // arrives at 856 and everything after it is 66 ns later.
  const std::vector<TimeNs> unaware{1010, 1394, 1208, 1394};
  const std::vector<TimeNs> aware{1076, 1460, 1274, 1460};
  for (const std::string_view backend : {kUnaware, kAware}) {
    RankGraph graph = one_collective(CollectiveKind::kAllReduce, 4096);
    graph.nodes.push_back(graph.nodes[0]);
    graph.nodes[0].children = {1};
    graph.nodes[1].parents = 1;
    const auto result =
        simulate(system_with("doubleBinaryTree"), fully_connected(4), {}, std::vector<RankGraph>(4, graph), backend,
                 false);
    EXPECT_EQ(per_npu_finish(result), backend == kAware ? aware : unaware);
  }
}

// A localBWAware all-reduce over two dimensions plans reduce-scatter,
// all-reduce, all-gather; the tree runs its all-reduce in all three, each of
// the whole chunk (ASTRA-sim's final data size of a tree is its input), so
// three tree phases where baseline runs two. On [2, 2] every phase is a pair:
// the leaf's message up and the root's down, 2 per pair, 4 per phase.
TEST(DoubleBinaryTree, RunsWholeAllReducesInTheSplitPhasesOfLocalBwAware) {
  const NetworkConfig two_by_two = parse_network_config(
      "topology: [FullyConnected, FullyConnected]\nnpus_count: [2, 2]\nbandwidth: [50, 50]\nlatency: [100, 100]\n",
      "test");
  uint64_t messages[2] = {0, 0};
  for (const bool local_bw_aware : {false, true}) {
    SystemConfig system = system_with("doubleBinaryTree");
    if (local_bw_aware) system.collective_optimization = CollectiveOptimization::kLocalBwAware;
    const auto result = simulate(system, two_by_two, {},
                                 std::vector<RankGraph>(4, one_collective(CollectiveKind::kAllReduce, 4096)),
                                 kUnaware, false);
    messages[local_bw_aware] = result.messages_sent;
    uint64_t bytes = 0;
    for (const uint64_t sent : result.bytes_sent_per_npu) bytes += sent;
    EXPECT_EQ(bytes, result.messages_sent * 4096) << "every message carries the whole chunk";
  }
  EXPECT_EQ(messages[0], 8u);
  EXPECT_EQ(messages[1], 12u);
}

TEST(DoubleBinaryTree, RejectsNonPowerOfTwoAndOtherCollectives) {
  EXPECT_THROW((void)run("doubleBinaryTree", CollectiveKind::kAllReduce, 6144, 6), Error);
  EXPECT_THROW((void)run("doubleBinaryTree", CollectiveKind::kAllGather, 4096), Error);
}

CustomProgram exchange_then_reduce(uint32_t rank) {
  // send 1024 B to the other rank; receive 1024 B from it; a 2 us reduction after the receive.
  CustomProgram program;
  program.source = "test rank " + std::to_string(rank);
  CustomStep send;
  send.kind = CustomStepKind::kSend;
  send.peer = 1 - rank;
  send.bytes = 1024;
  CustomStep recv = send;
  recv.kind = CustomStepKind::kRecv;
  recv.chakra_id = 1;
  recv.children = {2};
  CustomStep reduce;
  reduce.chakra_id = 2;
  reduce.kind = CustomStepKind::kCompute;
  reduce.duration_ns = 2000;
  reduce.parents = 1;
  program.steps = {send, recv, reduce};
  return program;
}

TEST(CustomCollective, ProgramStepsDriveTheCollective) {
  // Both ranks send at 0 (no endpoint delay in custom programs); the
  // messages arrive at 119, the receives complete, the reduction ends at 2119.
  SystemConfig system = system_with("ring");
  system.all_reduce.clear();
  system.all_reduce_custom = "unused-prefix";
  CustomCollectives custom;
  custom.by_kind[0] = std::make_shared<const CustomPrograms>(
      CustomPrograms{exchange_then_reduce(0), exchange_then_reduce(1)});
  for (const std::string_view backend : {kUnaware, kAware}) {
    std::vector<RankGraph> graphs(2, one_collective(CollectiveKind::kAllReduce, 1 << 20));
    const auto result = simulate(system, fully_connected(2), {}, std::move(graphs), backend, false, &custom);
    EXPECT_EQ(result.finish_ns(), 2119u);
    EXPECT_EQ(result.messages_sent, 2u);
  }
}

// A custom collective is one stream running its program once, however
// many chunks preferred-dataset-splits asks for (ASTRA-sim's rule since its
// November 2025 collective lookup): 2 messages, done at 2119 as above.
// Programs are found per workload node first, then per collective.
TEST(CustomCollective, OneStreamAndPerNodePrograms) {
  SystemConfig system = system_with("ring");
  system.preferred_dataset_splits = 4;
  system.all_reduce_custom = "unused-prefix";
  CustomCollectives custom;
  custom.by_kind[static_cast<size_t>(CollectiveKind::kAllReduce)] =
      std::make_shared<const CustomPrograms>(CustomPrograms{exchange_then_reduce(0), exchange_then_reduce(1)});
  CustomPrograms longer{exchange_then_reduce(0), exchange_then_reduce(1)};
  for (CustomProgram& p : longer) p.steps[2].duration_ns = 5000;
  custom.by_node[5] = std::make_shared<const CustomPrograms>(std::move(longer));
  custom.by_kind[static_cast<size_t>(CollectiveKind::kAllGather)] = custom.by_kind[0];
  const auto run_node = [&](CollectiveKind kind, uint64_t chakra_id) {
    RankGraph graph = one_collective(kind, 1 << 20);
    graph.nodes[0].chakra_id = chakra_id;
    return simulate(system, fully_connected(2), {}, std::vector<RankGraph>(2, graph), kAware, false, &custom);
  };
  const auto by_kind = run_node(CollectiveKind::kAllReduce, 6);
  EXPECT_EQ(by_kind.finish_ns(), 2119u);
  EXPECT_EQ(by_kind.messages_sent, 2u);
  EXPECT_EQ(run_node(CollectiveKind::kAllReduce, 5).finish_ns(), 5119u);
  EXPECT_EQ(run_node(CollectiveKind::kAllGather, 6).finish_ns(), 2119u);
  // A reduce-scatter has no custom program: the native ring runs.
  EXPECT_NE(run_node(CollectiveKind::kReduceScatter, 6).messages_sent, 2u);
  // The per-node program wins over a collective without a key of its own.
  EXPECT_EQ(run_node(CollectiveKind::kReduceScatter, 5).finish_ns(), 5119u);
}

// Busy time per kind and the compute/communication overlap (ASTRA-sim's
// statistics): 1000 ns of GPU compute beside an all-reduce, then 500 ns of
// compute after both.
TEST(NpuStatistics, BusyTimesAndOverlap) {
  RankGraph graph = one_collective(CollectiveKind::kAllReduce, 1 << 20);
  const WorkNode compute = test_graphs::compute_node("compute", 1000);
  WorkNode after = test_graphs::compute_node("after", 500);
  after.parents = 2;
  graph.nodes.push_back(compute);
  graph.nodes.push_back(after);
  graph.nodes[0].children = {2};
  graph.nodes[1].children = {2};
  const auto result =
      simulate(system_with("ring"), fully_connected(2), {}, std::vector<RankGraph>(2, graph), kAware, false);
  for (const NpuResult& npu : result.npus) {
    const TimeNs comm = npu.busy(NodeActivity::kCommunication);
    EXPECT_GT(comm, 1000u);
    EXPECT_EQ(npu.busy(NodeActivity::kGpu), 1500u);
    EXPECT_EQ(npu.overlap_ns, 1000u);  // the first compute lies inside the all-reduce
    EXPECT_EQ(npu.finish_ns, comm + 500);
    EXPECT_EQ(npu.busy(NodeActivity::kGpu) + comm - npu.overlap_ns, npu.finish_ns);  // ASTRA-sim's identity
    EXPECT_TRUE(npu.saw(NodeActivity::kGpu));
    EXPECT_FALSE(npu.saw(NodeActivity::kCpu));
  }
  const std::string lines = astra_summary_lines(result);
  EXPECT_NE(lines.find("sys[1], Total compute-communication overlap: 1000\n"), std::string::npos)
      << lines;
  EXPECT_NE(lines.find("sys[0], GPU time: 1500\n"), std::string::npos) << lines;
  EXPECT_EQ(lines.find("CPU time"), std::string::npos) << lines;
}

TEST(CustomCollective, PeerOutsideTheCollectiveIsAnError) {
  SystemConfig system = system_with("ring");
  system.all_reduce.clear();
  system.all_reduce_custom = "unused-prefix";
  CustomCollectives custom;
  custom.by_kind[0] = std::make_shared<const CustomPrograms>(
      CustomPrograms{exchange_then_reduce(0), exchange_then_reduce(1)});
  CustomPrograms bad{exchange_then_reduce(0), exchange_then_reduce(1)};
  bad[1].steps[0].peer = 5;
  custom.by_kind[0] = std::make_shared<const CustomPrograms>(std::move(bad));
  std::vector<RankGraph> graphs(2, one_collective(CollectiveKind::kAllReduce, 1 << 20));
  EXPECT_THROW((void)simulate(system, fully_connected(2), {}, std::move(graphs), kAware, false,
                              &custom),
               Error);
}

}  // namespace
}  // namespace snr::dsim
