#include "dsim/perturbation/perturbation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "common/error.h"
#include "common/error_of.h"
#include "dsim/config/system_config.h"
#include "dsim/network/registry.h"
#include "dsim/simulator.h"

namespace snr::dsim {
namespace {

constexpr std::string_view kAware = "analytical-congestion-aware";
constexpr std::string_view kUnaware = "analytical-congestion-unaware";

using snr::testing::error_of;

NetworkConfig network(std::string_view yaml) { return parse_network_config(yaml, "test"); }

Perturbations resolve(std::string_view json, const NetworkConfig& net) {
  return resolve_perturbations(parse_perturbation_config(json, "p.json"), net);
}

TEST(PerturbationConfig, ReadsEveryKind) {
  const auto config = parse_perturbation_config(
      R"({"description": "one slow GPU, one slow cable",
          "compute": [{"npu": 3, "slowdown": 2}, {"npu": 0, "slowdown": 0.5}],
          "links": [{"src": 1, "dst": 2, "bandwidth_factor": 0.5}],
          "dimensions": [{"dimension": 0, "bandwidth_factor": 0.8}],
          "npu_links": [{"npu": 5, "bandwidth_factor": 0.25}, {"npu": 6, "dimension": 0, "bandwidth_factor": 2}]})",
      "p.json");
  ASSERT_EQ(config.compute.size(), 2u);
  EXPECT_EQ(config.compute[0].npu, 3u);
  EXPECT_EQ(config.compute[1].factor, 0.5);
  ASSERT_EQ(config.links.size(), 1u);
  EXPECT_EQ(config.links[0].dst, 2u);
  EXPECT_EQ(config.dimensions[0].factor, 0.8);
  EXPECT_EQ(config.npu_links[0].dimension, -1);
  EXPECT_EQ(config.npu_links[1].dimension, 0);
}

TEST(PerturbationConfig, StrictKeysTypesAndRanges) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"stragglers": []})", "unknown key 'stragglers'"},
      {R"({"compute": [{"npu": 1, "slowdown": 2, "why": "hot"}]})", "compute[0]: unknown key 'why'"},
      {R"({"compute": [{"npu": 1}]})", "compute[0]: missing key 'slowdown'"},
      {R"({"compute": [{"npu": -1, "slowdown": 2}]})", "compute[0].npu: -1 is negative"},
      {R"({"compute": [{"npu": 1.5, "slowdown": 2}]})", "compute[0].npu: must be a non-negative integer"},
      {R"({"compute": [{"npu": 1, "slowdown": 0}]})", "compute[0].slowdown: 0 is out of range [1e-06, 1e+06]"},
      {R"({"compute": [{"npu": 1, "slowdown": 1e7}]})", "compute[0].slowdown: 1e+07 is out of range"},
      {R"({"compute": [{"npu": 1, "slowdown": 1e-7}]})", "compute[0].slowdown: 1e-07 is out of range"},
      {R"({"compute": [{"npu": 1, "slowdown": "2"}]})", "compute[0].slowdown: must be a number"},
      {R"({"compute": [{"npu": 1, "slowdown": 2}, {"npu": 1, "slowdown": 3}]})",
       "compute[1].npu: NPU 1 is already slowed by compute[0]"},
      {R"({"compute": {"npu": 1}})", "compute: must be a list of objects"},
      {R"({"links": [{"src": 1, "dst": 1, "bandwidth_factor": 0.5}]})", "links[0]: src and dst are both NPU 1"},
      {R"({"links": [{"src": 1, "dst": 2, "bandwidth_factor": -0.5}]})", "links[0].bandwidth_factor: -0.5"},
      {R"({"dimensions": [{"dimension": 0, "bandwidth_factor": 1}, {"dimension": 0, "bandwidth_factor": 2}]})",
       "dimensions[1].dimension: dimension 0 is already given by dimensions[0]"},
      {R"({"npu_links": [{"npu": 2, "bandwidth_factor": 1, "dim": 0}]})", "npu_links[0]: unknown key 'dim'"},
      {R"([1, 2])", "top level must be a JSON object"},
      {R"({"compute": [{"npu": 1, "npu": 2, "slowdown": 2}]})", "duplicate"},
  };
  for (const auto& [json_text, expected] : cases) {
    const std::string_view json = json_text;  // clang 14 cannot capture a structured binding
    const std::string message = error_of([&] { (void)parse_perturbation_config(json, "p.json"); });
    EXPECT_NE(message.find(expected), std::string::npos) << json << " -> " << message;
    EXPECT_NE(message.find("perturbation configuration p.json"), std::string::npos) << message;
  }
}

TEST(PerturbationConfig, ResolvesAgainstTheNetwork) {
  const auto net = network("topology: [Ring, FullyConnected, Switch]\nnpus_count: [4, 3, 2]\n"
                           "bandwidth: [50, 50, 50]\nlatency: [500, 500, 500]\n");  // 24 NPUs
  const std::pair<const char*, const char*> cases[] = {
      {R"({"compute": [{"npu": 24, "slowdown": 2}]})",
       "compute[0].npu: NPU 24 does not exist (the network has 24 NPUs)"},
      {R"({"npu_links": [{"npu": 30, "bandwidth_factor": 2}]})", "npu_links[0].npu: NPU 30 does not exist"},
      {R"({"npu_links": [{"npu": 3, "dimension": 3, "bandwidth_factor": 2}]})",
       "npu_links[0].dimension: dimension 3 does not exist (the network has 3)"},
      {R"({"dimensions": [{"dimension": 7, "bandwidth_factor": 2}]})", "dimensions[0].dimension: dimension 7"},
      {R"({"links": [{"src": 0, "dst": 99, "bandwidth_factor": 2}]})", "links[0].dst: NPU 99 does not exist"},
      {R"({"links": [{"src": 0, "dst": 2, "bandwidth_factor": 2}]})",
       "links[0]: NPUs 0 and 2 are not neighbours in Ring dimension 0 (positions 0 and 2 of 4)"},
      {R"({"links": [{"src": 0, "dst": 5, "bandwidth_factor": 2}]})", "links[0]: NPUs 0 and 5 differ in 2 dimensions"},
      {R"({"links": [{"src": 0, "dst": 12, "bandwidth_factor": 2}]})",
       "links[0]: NPUs 0 and 12 meet through dimension 2's switch"},
  };
  for (const auto& [json_text, expected] : cases) {
    const std::string_view json = json_text;
    const std::string message = error_of([&] { (void)resolve(json, net); });
    EXPECT_NE(message.find(expected), std::string::npos) << json << " -> " << message;
  }
  // Ring wrap-around neighbours (3 -> 0) and any FullyConnected pair (0 -> 8) are links.
  const auto p = resolve(R"({"links": [{"src": 3, "dst": 0, "bandwidth_factor": 0.5},
                                       {"src": 0, "dst": 8, "bandwidth_factor": 0.25}],
                             "dimensions": [{"dimension": 0, "bandwidth_factor": 0.5}],
                             "npu_links": [{"npu": 0, "bandwidth_factor": 0.5}, {"npu": 0, "dimension": 2,
                                            "bandwidth_factor": 0.5}],
                             "compute": [{"npu": 7, "slowdown": 3}]})",
                         net);
  ASSERT_EQ(p.compute_slowdown.size(), 24u);
  EXPECT_EQ(p.compute_slowdown[7], 3.0);
  EXPECT_EQ(p.compute_slowdown[6], 1.0);
  // Products of every entry covering a link: dimension 0.5 x NPU 0's 0.5 x the link's own 0.5.
  EXPECT_EQ(p.bandwidth.between(0, 3, 0), 0.125);
  EXPECT_EQ(p.bandwidth.between(0, 0, 3), 0.25);  // the other direction is another link
  EXPECT_EQ(p.bandwidth.between(0, 1, 2), 0.5);
  EXPECT_EQ(p.bandwidth.between(1, 0, 8), 0.125);
  EXPECT_EQ(p.bandwidth.to_switch(2, 0), 0.25);  // NPU 0's all-dimension 0.5 x its dimension-2 0.5
  EXPECT_EQ(p.bandwidth.from_switch(2, 12), 1.0);
  EXPECT_FALSE(p.bandwidth.empty());
  EXPECT_TRUE(resolve("{}", net).empty());
}

RankGraph compute_then_all_reduce(TimeNs compute_ns, uint64_t bytes) {
  RankGraph graph;
  WorkNode comp;
  comp.name = "layer";
  comp.node_class = NodeClass::kGpuCompute;
  comp.action = NodeAction::kCompute;
  comp.duration_ns = compute_ns;
  comp.children = {1};
  WorkNode all_reduce;
  all_reduce.name = "all_reduce";
  all_reduce.node_class = NodeClass::kGpuComm;
  all_reduce.action = NodeAction::kCollective;
  all_reduce.collective = CollectiveKind::kAllReduce;
  all_reduce.comm_bytes = bytes;
  all_reduce.parents = 1;
  graph.nodes = {comp, all_reduce};
  return graph;
}

SystemConfig ring_system() {
  return parse_system_config(
      R"({"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1,
          "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"],
          "collective-optimization": "localBWAware", "local-mem-bw": 1000})",
      "test");
}

// 256 NPUs on one Ring (50 GB/s = 53.687 B/ns, 500 ns), each running a
// 100 us compute node and then a 1 MiB ring all-reduce.
//
// The all-reduce, by hand: 2(n-1) = 510 steps of one 1 MiB / 256 = 4096 B
// message to the next NPU. A hop is (int)(500 + 4096 / 53.687) =
// (int)576.29 = 576 ns; every packet passes the 10 ns endpoint delay, and
// the first n-1 = 255 received ones are reduced in 3 x floor(4096 / 1000) =
// 12 ns. So the first send leaves 10 ns after the start, each step adds
// 576 + 10 ns, and the 255 reductions add 12 ns each:
//   T_AR = 10 + 510 x 586 + 255 x 12 = 10 + 298,860 + 3,060 = 301,930 ns,
// and every NPU finishes at 100,000 + 301,930 = 401,930 ns.
constexpr uint32_t kRingNpus = 256;
constexpr uint64_t kAllReduceBytes = 1 << 20;
constexpr TimeNs kComputeNs = 100'000;
constexpr TimeNs kAllReduceNs = 10 + 510 * (576 + 10) + 255 * 12;

NetworkConfig ring_256() {
  return network("topology: [Ring]\nnpus_count: [256]\nbandwidth: [50]\nlatency: [500]\n");
}

SimulationResult run_ring(std::string_view backend, const Perturbations* perturbations) {
  std::vector<RankGraph> graphs(kRingNpus, compute_then_all_reduce(kComputeNs, kAllReduceBytes));
  return simulate(ring_system(), ring_256(), {}, std::move(graphs), backend, false, nullptr, perturbations);
}

TEST(Straggler, BaselineIsTheHandComputedRingAllReduce) {
  for (const auto backend : {kAware, kUnaware}) {
    const auto plain = run_ring(backend, nullptr);
    for (const auto& npu : plain.npus) EXPECT_EQ(npu.finish_ns, kComputeNs + kAllReduceNs) << backend;
    // An empty perturbation file changes nothing, to the ns.
    const Perturbations none = resolve("{}", ring_256());
    const auto same = run_ring(backend, &none);
    for (size_t i = 0; i < same.npus.size(); ++i) {
      EXPECT_EQ(same.npus[i].finish_ns, plain.npus[i].finish_ns);
      EXPECT_EQ(same.npus[i].compute_ns, plain.npus[i].compute_ns);
    }
  }
}

TEST(Straggler, OneNpuComputingTwiceAsSlowDelaysTheRingByItsExtraTime) {
  // NPU S = 17 computes 2 x 100 us, so it enters the all-reduce D = 100 us
  // after the others. Write s(j, k) for the time NPU j issues its step-k
  // send; in the plain run s(j, k+1) = s(j-1, k) + hop + 10 [+ 12]: the
  // packet it forwards is the one its predecessor sent at step k. NPU j may
  // also forward a packet that arrived early (its predecessor was ahead) as
  // soon as its own step k was issued, so
  //   s(j, k+1) = max(s(j-1, k) + hop, s(j, k)) + 10 [+ 12],
  // and the delay d(j, k) = s(j, k) - plain s(j, k) obeys
  //   d(j, k+1) = max(d(j-1, k), d(j, k) - L),
  // L the time a step saves by not waiting for a hop. Starting from
  // d(S, 1) = D, the delay reaches NPU j = S + i at its last receive
  // (step 511 of the chain) along the chain with the most hops, which stays
  // (254 - i) mod 256 times: finish(j) = plain + max(0, D - stays x L).
  //  - congestion-unaware: a stay skips the 576 ns hop, L = 576.
  //  - congestion-aware: S's burst of early packets queues on its link, so a
  //    stay costs the 76 ns serialization behind the previous message
  //    instead of the 586 ns step (the stays fall in the all-gather half,
  //    no reduction): L = 586 - 76 = 510.
  // NPU S + 254 = 15 stays 0 times: the run ends D later on both backends,
  // 200,000 + 301,930 = 501,930 ns; NPU 14 stays once, NPU 100 171 times.
  const Perturbations straggler = resolve(R"({"compute": [{"npu": 17, "slowdown": 2}]})", ring_256());
  for (const auto& [backend, saved_ns] : {std::pair{kAware, 510}, std::pair{kUnaware, 576}}) {
    const auto result = run_ring(backend, &straggler);
    for (uint32_t j = 0; j < kRingNpus; ++j) {
      const int64_t stays = (254 - static_cast<int64_t>((j + kRingNpus - 17) % kRingNpus) + kRingNpus) % kRingNpus;
      const int64_t late = std::max<int64_t>(0, static_cast<int64_t>(kComputeNs) - stays * saved_ns);
      EXPECT_EQ(result.npus[j].finish_ns, kComputeNs + kAllReduceNs + static_cast<TimeNs>(late))
          << backend << " NPU " << j;
    }
    EXPECT_EQ(result.finish_ns(), 501'930u);
    EXPECT_EQ(result.npus[15].finish_ns, 501'930u);
    EXPECT_EQ(result.npus[17].compute_ns, 2 * kComputeNs);
    EXPECT_EQ(result.npus[16].compute_ns, kComputeNs);
  }
  EXPECT_EQ(run_ring(kAware, &straggler).npus[14].finish_ns, 401'930u + 100'000u - 510u);
  EXPECT_EQ(run_ring(kUnaware, &straggler).npus[100].finish_ns, 401'930u + 100'000u - 171u * 576u);
}

TEST(Straggler, OneLinkAtHalfBandwidthSlowsEveryRingStepThatCrossesIt) {
  // Link 17 -> 18 at half bandwidth: a hop on it is (int)(500 + 4096 /
  // 26.844) = (int)652.59 = 652 ns, 76 ns more than on the others. NPU j's
  // last receive ends the longest chain of sends behind it, which crosses
  // the 510 links ending at j, j-1, ..., j-509 (mod 256) once each: every
  // link twice, except the two ending at j+2 and j+1 (once). The slow link
  // ends at 18, so NPUs 16 and 17 finish 76 ns late and every other NPU
  // 2 x 76 = 152 ns late. (Waiting instead of taking a hop saves 576 ns,
  // more than the 76 ns the slow link costs, so no other chain is longer.)
  const Perturbations slow_link =
      resolve(R"({"links": [{"src": 17, "dst": 18, "bandwidth_factor": 0.5}]})", ring_256());
  for (const auto backend : {kAware, kUnaware}) {
    const auto result = run_ring(backend, &slow_link);
    for (uint32_t j = 0; j < kRingNpus; ++j) {
      const TimeNs late = (j == 16 || j == 17) ? 76 : 152;
      EXPECT_EQ(result.npus[j].finish_ns, kComputeNs + kAllReduceNs + late) << backend << " NPU " << j;
    }
    EXPECT_EQ(result.finish_ns(), 402'082u);
  }
}

TEST(Straggler, SlowedComputeThatOverflowsTheClockIsAnError) {
  std::vector<RankGraph> graphs(2, compute_then_all_reduce(uint64_t{1} << 62, 1024));
  graphs[1].nodes[0].chakra_id = 7;
  const auto net = network("topology: [Ring]\nnpus_count: [2]\nbandwidth: [50]\nlatency: [500]\n");
  const auto slow = resolve(R"({"compute": [{"npu": 1, "slowdown": 4}]})", net);
  const std::string message = error_of(
      [&] { (void)simulate(ring_system(), net, {}, std::move(graphs), kAware, false, nullptr, &slow); });
  EXPECT_NE(message.find("NPU 1: node 7 ('layer') slowed 4x"), std::string::npos) << message;
}

RankGraph point_to_point(NodeAction action, int64_t peer, uint64_t bytes) {
  RankGraph graph;
  WorkNode node;
  node.name = action == NodeAction::kSend ? "send" : "recv";
  node.node_class = NodeClass::kGpuComm;
  node.action = action;
  node.peer = peer;
  node.comm_bytes = bytes;
  graph.nodes = {node};
  return graph;
}

// One 4096 B message from NPU `src` to `dst` (others idle); the receiver's finish time.
TimeNs message_ns(const NetworkConfig& net, std::string_view backend, uint32_t src, uint32_t dst,
                  const Perturbations* perturbations) {
  std::vector<RankGraph> graphs(net.npus_count());
  graphs[src] = point_to_point(NodeAction::kSend, dst, 4096);
  graphs[dst] = point_to_point(NodeAction::kRecv, src, 4096);
  return simulate(ring_system(), net, {}, std::move(graphs), backend, false, nullptr, perturbations)
      .npus[dst]
      .finish_ns;
}

TEST(LinkFactors, MultiHopRoutesOnEachBackend) {
  // 4096 B at 53.687 B/ns is 76.29 ns of serialization, 152.59 at half and
  // 305.18 at a quarter of the bandwidth.
  const auto ring = network("topology: [Ring]\nnpus_count: [8]\nbandwidth: [50]\nlatency: [500]\n");
  const auto slow = resolve(R"({"links": [{"src": 1, "dst": 2, "bandwidth_factor": 0.5}]})", ring);
  // Store and forward: (int)(500 + 76.29) + (int)(500 + 152.59) = 576 + 652.
  EXPECT_EQ(message_ns(ring, kAware, 0, 2, nullptr), 576u + 576u);
  EXPECT_EQ(message_ns(ring, kAware, 0, 2, &slow), 576u + 652u);
  // No contention: (int)(2 x 500 + 4096 / (53.687 x 0.5)), the slowest link of the route.
  EXPECT_EQ(message_ns(ring, kUnaware, 0, 2, nullptr), 1076u);
  EXPECT_EQ(message_ns(ring, kUnaware, 0, 2, &slow), 1152u);
  // The reverse route 2 -> 0 does not use link 1 -> 2.
  EXPECT_EQ(message_ns(ring, kAware, 2, 0, &slow), 576u + 576u);
  EXPECT_EQ(message_ns(ring, kUnaware, 2, 0, &slow), 1076u);

  // Switch: NPU 3's links (up and down) at a quarter; 0 -> 3 goes up from
  // NPU 0 at full speed and down to NPU 3 at a quarter.
  const auto sw = network("topology: [Switch]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n");
  const auto slow_nic = resolve(R"({"npu_links": [{"npu": 3, "bandwidth_factor": 0.25}]})", sw);
  EXPECT_EQ(message_ns(sw, kAware, 0, 3, nullptr), 576u + 576u);
  EXPECT_EQ(message_ns(sw, kAware, 0, 3, &slow_nic), 576u + 805u);
  EXPECT_EQ(message_ns(sw, kUnaware, 0, 3, &slow_nic), 1305u);  // (int)(1000 + 305.18)
  EXPECT_EQ(message_ns(sw, kUnaware, 0, 1, &slow_nic), 1076u);

  // A whole dimension at half bandwidth, on a 2-D torus: 0 -> 5 crosses
  // dimension 0 (0 -> 1) at full speed, then dimension 1 (1 -> 5) at half.
  const auto torus =
      network("topology: [Ring, Ring]\nnpus_count: [4, 4]\nbandwidth: [50, 50]\nlatency: [500, 500]\n");
  const auto slow_dim = resolve(R"({"dimensions": [{"dimension": 1, "bandwidth_factor": 0.5}]})", torus);
  EXPECT_EQ(message_ns(torus, kAware, 0, 5, &slow_dim), 576u + 652u);
  // The congestion-unaware network charges NPUs apart in two dimensions the
  // first one only (ASTRA-sim's rule), or both with every-dimension.
  EXPECT_EQ(message_ns(torus, kUnaware, 0, 5, &slow_dim), 576u);
  const NetworkConfig every_dimension = parse_backend_config(
      find_network_backend(kUnaware),
      "topology: [Ring, Ring]\nnpus_count: [4, 4]\nbandwidth: [50, 50]\nlatency: [500, 500]\n"
      "multi-dim-delay: every-dimension\n",
      "test");
  EXPECT_EQ(message_ns(every_dimension, kUnaware, 0, 5, &slow_dim), 576u + 652u);
}

TEST(LinkFactors, ABackendWithoutALinkModelRefusesThem) {
  NetworkBackendSpec spec;
  spec.name = "perturbation-test-no-links";
  spec.summary = "delivers at once";
  spec.config_keys = {"topology", "npus_count", "bandwidth", "latency"};
  spec.parse_config = [](std::string_view text, std::string_view source) { return parse_network_config(text, source); };
  struct Instant final : NetworkBackend {
    explicit Instant(EventLoop& loop) : loop_(loop) {}
    void send(MessageId message, NpuId, NpuId, uint64_t, HandlerId deliver_to) override {
      loop_.deliver_now(deliver_to, MessageArrived{message});
    }
    [[nodiscard]] std::vector<LinkStats> link_stats() const override { return {}; }
    [[nodiscard]] std::string name() const override { return "perturbation-test-no-links"; }
    EventLoop& loop_;
  };
  spec.create = [](const NetworkConfig&, EventLoop& loop) -> std::unique_ptr<NetworkBackend> {
    return std::make_unique<Instant>(loop);
  };
  register_network_backend(spec);
  const auto ring = network("topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n");
  const auto slow = resolve(R"({"links": [{"src": 1, "dst": 2, "bandwidth_factor": 0.5}]})", ring);
  const std::string message = error_of([&] {
    (void)simulate(ring_system(), ring, {}, std::vector<RankGraph>(4), spec.name, false, nullptr, &slow);
  });
  EXPECT_NE(message.find("network backend perturbation-test-no-links does not model link bandwidth factors"),
            std::string::npos)
      << message;
  // Compute factors need no link model.
  const auto compute_only = resolve(R"({"compute": [{"npu": 1, "slowdown": 2}]})", ring);
  EXPECT_NO_THROW((void)simulate(ring_system(), ring, {}, std::vector<RankGraph>(4), spec.name, false, nullptr,
                                 &compute_only));
}

TEST(LinkFactors, TinyFactorsThatOverflowTheClockAreErrors) {
  const auto ring = network("topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [500]\n");
  // 1e-6 on the dimension, on both NPUs and on the link itself: 4096 B at
  // 53.687e-24 B/ns is 7.6e25 ns.
  const auto absurd = resolve(R"({"links": [{"src": 0, "dst": 1, "bandwidth_factor": 1e-6}],
                                  "npu_links": [{"npu": 0, "bandwidth_factor": 1e-6},
                                                {"npu": 1, "bandwidth_factor": 1e-6}],
                                  "dimensions": [{"dimension": 0, "bandwidth_factor": 1e-6}]})",
                              ring);
  for (const auto backend : {kAware, kUnaware}) {
    const std::string message = error_of([&] { (void)message_ns(ring, backend, 0, 1, &absurd); });
    EXPECT_NE(message.find("does not fit the simulator's clock"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace snr::dsim
