#include "infra/blueprints/blueprint.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "formats/infragraph/infragraph.h"
#include "infra/annotations.h"
#include "infra/graph.h"
#include "infra/queries.h"

namespace snr::infra {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

size_t count_role(const Graph& g, const Annotations& a, Role role) {
  size_t n = 0;
  for (size_t d = 0; d < g.device_instance_count(); ++d) n += a.device_role[d] == role ? 1 : 0;
  return n;
}

size_t fabric_links(const Graph& g) {
  size_t n = 0;
  for (const auto& e : g.edges()) n += g.device_instance_of(e.a) != g.device_instance_of(e.b) ? 1 : 0;
  return n;
}

uint64_t pairs(uint64_t n) { return n * (n - 1) / 2; }

// Standard k-ary Clos counts and the hop histogram between host xpus.
// A path crossing S switches: xpu-pciesw-nic (2), nic-port, 2 hops through
// each switch (port-asic-port), S-1 switch-switch cables, port-nic,
// nic-pciesw-xpu (2) = 5 + 3S.
TEST(ClosFatTree, StandardCountsAndHopsForK4To16) {
  for (int64_t k : {4, 8, 16}) {
    for (int64_t levels : {2, 3}) {
      SCOPED_TRACE(testing::Message() << "k=" << k << " levels=" << levels);
      const auto infra = build_blueprint("clos-fat-tree", {{"k", std::to_string(k)}, {"levels", std::to_string(levels)}});
      // Written back as InfraGraph and read again, it is the same document.
      EXPECT_EQ(infragraph::parse_infrastructure(infragraph::to_yaml(infra), "bp.yaml"), infra);
      const Graph g = expand(infra);
      const Annotations a = annotate(g);
      const uint64_t h = static_cast<uint64_t>(k / 2);
      const uint64_t hosts = levels == 2 ? 2 * h * h : 2 * h * h * h;      // k²/2, k³/4
      const uint64_t switches = levels == 2 ? 3 * h : 5 * h * h;          // 3k/2, 5k²/4
      EXPECT_EQ(count_role(g, a, Role::kHost), hosts);
      EXPECT_EQ(count_role(g, a, Role::kSwitch), switches);
      EXPECT_EQ(fabric_links(g), static_cast<uint64_t>(levels) * hosts);  // one per host port per tier
      // host: xpu, nic, pciesw (2 edges); switch: asic + k ports (k edges).
      EXPECT_EQ(g.node_count(), hosts * 3 + switches * (static_cast<uint64_t>(k) + 1));
      EXPECT_EQ(g.edge_count(), hosts * 2 + switches * static_cast<uint64_t>(k) + levels * hosts);
      // Every switch port is used exactly once.
      for (NodeId n = 0; n < g.node_count(); ++n) {
        if (g.node_type(n).choice == infragraph::ComponentChoice::kPort) {
          ASSERT_EQ(g.neighbours(n).size(), 2u);
        }
      }
      const auto hist = hop_histogram(g, a.ranked_nodes);
      EXPECT_EQ(hist.unreachable_pairs, 0u);
      std::map<uint32_t, uint64_t> expected;
      if (levels == 2) {
        expected[8] = 2 * h * pairs(h);               // same leaf: k leaves x C(k/2, 2)
        expected[14] = pairs(hosts) - expected[8];    // via a spine
      } else {
        expected[8] = 2 * h * h * pairs(h);           // same edge switch: k²/2 x C(k/2, 2)
        expected[14] = 2 * h * pairs(h) * h * h;      // same pod: k pods x C(k/2 edges, 2) x (k/2)²
        expected[20] = pairs(hosts) - expected[8] - expected[14];
        EXPECT_EQ(expected[20], pairs(2 * h) * h * h * h * h);  // across pods: C(k, 2) x (k²/4)²
      }
      EXPECT_EQ(hist.pairs_by_hops, expected);
      // Non-blocking with equal tier bandwidths: half the hosts at 100 Gb/s each.
      EXPECT_DOUBLE_EQ(bisection_bandwidth(g, a.ranked_nodes).bits_per_s, static_cast<double>(hosts / 2) * 100e9);
      EXPECT_EQ(a.device_tier[g.device_instance_count() - 1], levels);
    }
  }
}

TEST(ClosFatTree, ParametersAreChecked) {
  EXPECT_THROW((void)build_blueprint("clos-fat-tree", {{"k", "5"}}), Error);
  EXPECT_THROW((void)build_blueprint("clos-fat-tree", {{"levels", "4"}}), Error);
  EXPECT_THROW((void)build_blueprint("clos-fat-tree", {{"radix", "8"}}), Error);
  EXPECT_THROW((void)build_blueprint("clos-fat-tree", {{"k", "eight"}}), Error);
  EXPECT_THROW((void)build_blueprint("no-such-blueprint", {}), Error);
  try {
    (void)build_blueprint("clos-fat-tree", {{"radix", "8"}});
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown parameter 'radix'"), std::string::npos) << e.what();
  }
}

// Dragonfly counts by formula, for InfraGraph's balanced shapes (a = 2p =
// 2h) and others: with a·h + 1 groups every pair of groups has exactly one
// global link and every router port is used once. Between host xpus a path
// crossing S routers has 5 + 3S hops (as in the Clos test); same router
// S = 1, same group or the two ends of a global link S = 2, one end on a
// global link's router S = 3 (or two global links through one router of a
// third group), else local-global-local S = 4 at most.
TEST(Dragonfly, CountsAndHopsByFormula) {
  struct Shape {
    uint64_t a, p, h;
  };
  for (const Shape s : {Shape{2, 1, 1}, Shape{4, 2, 2}, Shape{3, 1, 2}, Shape{4, 3, 1}}) {
    SCOPED_TRACE(testing::Message() << "a=" << s.a << " p=" << s.p << " h=" << s.h);
    const auto infra = build_blueprint(
        "dragonfly", {{"a", std::to_string(s.a)}, {"p", std::to_string(s.p)}, {"h", std::to_string(s.h)}});
    EXPECT_EQ(infragraph::parse_infrastructure(infragraph::to_yaml(infra), "df.yaml"), infra);
    const Graph g = expand(infra);
    const Annotations a = annotate(g);
    const uint64_t groups = s.a * s.h + 1, routers = groups * s.a, hosts = routers * s.p;
    EXPECT_EQ(count_role(g, a, Role::kHost), hosts);
    EXPECT_EQ(count_role(g, a, Role::kSwitch), routers);
    EXPECT_EQ(fabric_links(g), hosts + groups * pairs(s.a) + pairs(groups));
    for (NodeId n = 0; n < g.node_count(); ++n) {
      if (g.node_type(n).choice == infragraph::ComponentChoice::kPort) {
        ASSERT_EQ(g.neighbours(n).size(), 2u);
      }
    }
    const auto hist = hop_histogram(g, a.ranked_nodes);
    EXPECT_EQ(hist.unreachable_pairs, 0u);
    EXPECT_EQ(hist.pairs_by_hops.count(8) ? hist.pairs_by_hops.at(8) : 0u, routers * pairs(s.p));
    // Same group on two routers, and the p² host pairs at the two ends of each global link.
    EXPECT_EQ(hist.pairs_by_hops.at(11), groups * pairs(s.a) * s.p * s.p + pairs(groups) * s.p * s.p);
    EXPECT_LE(hist.pairs_by_hops.rbegin()->first, 17u);
    uint64_t total = 0;
    for (const auto& [hops, n] : hist.pairs_by_hops) total += n;
    EXPECT_EQ(total, pairs(hosts));
  }
}

TEST(Dragonfly, FewerGroupsLeaveGlobalPortsFreeAndParametersAreChecked) {
  const Graph g = expand(build_blueprint("dragonfly", {{"groups", "3"}}));  // a=4, h=2: 9 at most
  const Annotations a = annotate(g);
  EXPECT_EQ(count_role(g, a, Role::kSwitch), 12u);
  EXPECT_EQ(fabric_links(g), 24u + 3u * 6u + 3u);  // terminals, local, one global per group pair
  EXPECT_EQ(hop_histogram(g, a.ranked_nodes).unreachable_pairs, 0u);
  EXPECT_THROW((void)build_blueprint("dragonfly", {{"groups", "10"}}), Error);
  EXPECT_THROW((void)build_blueprint("dragonfly", {{"a", "1"}, {"h", "0"}}), Error);
  EXPECT_THROW((void)build_blueprint("dragonfly", {{"p", "3"}, {"nics_per_host", "2"}}), Error);
}

TEST(SingleTier, HostsOnOneSwitch) {
  const auto infra = build_blueprint("single-tier", {{"hosts", "6"}, {"nics_per_host", "2"}});
  const Graph g = expand(infra);
  const Annotations a = annotate(g);
  EXPECT_EQ(count_role(g, a, Role::kHost), 6u);
  EXPECT_EQ(count_role(g, a, Role::kSwitch), 1u);
  EXPECT_EQ(fabric_links(g), 12u);
  const auto hist = hop_histogram(g, a.ranked_nodes);
  EXPECT_EQ(hist.pairs_by_hops, (std::map<uint32_t, uint64_t>{{8, 15}}));
}

TEST(DeviceBlueprints, Server8GpuAndNocGpu) {
  const auto server = build_blueprint("server-8gpu", {});
  ASSERT_TRUE(server.bare_device);
  Graph g = expand(server);
  // 2 cpu + 8 xpu + 4 nvsw + 4 pciesw + 8 nic.
  EXPECT_EQ(g.node_count(), 26u);
  // cpu-cpu 1, xpu-nvsw 32, xpu-pciesw 8, nic-pciesw 8, cpu-pciesw 4.
  EXPECT_EQ(g.edge_count(), 53u);

  const auto gpu = build_blueprint("noc-gpu", {});
  g = expand(gpu);
  // 32 routers + 128 CUs + 32 HBM channels + 8 I/O ports.
  EXPECT_EQ(g.node_count(), 200u);
  // mesh 4x7 + 3x8 = 52, CUs 128, HBM 32, I/O 8.
  EXPECT_EQ(g.edge_count(), 220u);
  auto degree = [&](const char* name) { return g.neighbours(*g.find_node(name)).size(); };
  EXPECT_EQ(degree("gpu.0.router.0"), 2u + 4u + 2u + 1u);   // corner: 2 mesh, 4 CUs, 2 HBM, 1 I/O
  EXPECT_EQ(degree("gpu.0.router.9"), 4u + 4u);             // interior
  EXPECT_EQ(degree("gpu.0.router.31"), 2u + 4u + 2u + 1u);  // bottom-right corner
  const Annotations a = annotate(g);
  const auto path = shortest_path(g, *g.find_node("gpu.0.io.0"), *g.find_node("gpu.0.io.4"));
  EXPECT_EQ(path.size(), 2u + 8u);  // io, 8 routers across the row, io
  EXPECT_THROW((void)build_blueprint("noc-gpu", {{"hbm_per_side", "12"}}), Error);
  (void)a;
}

// IronwoodRack's counts: 64 XPUs with 3 torus links each, 32 CPUs with 2
// XPUs and a NIC each; every XPU has 6 torus neighbours and its CPU.
TEST(TorusRack, IronwoodRackCounts) {
  const auto rack = build_blueprint("torus-rack", {});
  ASSERT_TRUE(rack.bare_device);
  const Graph g = expand(rack);
  EXPECT_EQ(g.node_count(), 64u + 32u + 32u);
  EXPECT_EQ(g.edge_count(), 64u * 3 + 64u + 32u);
  const auto xpu = [&](int i) { return *g.find_node(fmt::format("torus_rack.0.xpu.{}", i)); };
  EXPECT_EQ(g.neighbours(xpu(0)).size(), 7u);
  EXPECT_EQ(g.neighbours(xpu(63)).size(), 7u);
  EXPECT_EQ(shortest_path(g, xpu(0), xpu(42)).size(), 1u + 2u + 2u + 2u);  // (0,0,0) to (2,2,2): 6 hops
  EXPECT_EQ(shortest_path(g, xpu(0), xpu(3)).size(), 2u);                  // the wrap-around link
  EXPECT_THROW((void)build_blueprint("torus-rack", {{"z", "2"}}), Error);
  EXPECT_THROW((void)build_blueprint("torus-rack", {{"xpus_per_cpu", "3"}}), Error);
}

TEST(Blueprints, RegisteredByNameWithTheirParameters) {
  std::vector<std::string> names;
  for (const auto* bp : all_blueprints()) {
    names.push_back(std::string(bp->name()));
    EXPECT_FALSE(bp->parameters().empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"clos-fat-tree", "dragonfly", "host", "noc-gpu", "server-8gpu",
                                             "single-tier", "switch", "torus-rack"}));
}

}  // namespace
}  // namespace snr::infra
