#include "dsim/network/noc/fabric_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "common/error.h"
#include "common/error_of.h"
#include "dsim/network/noc/fabric_routing.h"
#include "dsim/network/registry.h"

namespace snr::dsim {
namespace {

using ::testing::HasSubstr;
using snr::testing::error_of;

constexpr const char* kStar = R"(npus: [gpu0, gpu1, "gpu 2"]
switches: [leaf]
links:
  - {from: gpu0, to: leaf, bandwidth_gbps: 100, latency_ns: 200}
  - {from: gpu1, to: leaf, bandwidth_gbps: 100, latency_ns: 200}
  - {from: "gpu 2", to: leaf, bandwidth_gbps: 400, latency_ns: 50.5}
  - {from: leaf, to: "gpu 2", bandwidth_gbps: 12.5, latency_ns: 0, bidirectional: false}
segment_bytes: 4096
segment_header_bytes: 64
ecmp: first
ecmp_seed: 7
)";

TEST(NocFabricConfig, ReadsEveryKey) {
  const NocFabricConfig config = parse_noc_fabric(kStar, "star.yaml");
  EXPECT_EQ(config.npus(), 3u);
  EXPECT_EQ(config.node_count(), 4u);
  EXPECT_EQ(config.node_name(2), "gpu 2");
  EXPECT_EQ(config.node_name(3), "leaf");
  ASSERT_EQ(config.links.size(), 4u);
  EXPECT_EQ(config.links[2].from, 2u);
  EXPECT_EQ(config.links[2].to, 3u);
  EXPECT_DOUBLE_EQ(config.links[2].bandwidth_gbps, 400);
  EXPECT_DOUBLE_EQ(config.links[2].latency_ns, 50.5);
  EXPECT_TRUE(config.links[2].bidirectional);
  EXPECT_FALSE(config.links[3].bidirectional);
  EXPECT_EQ(config.segment_bytes, 4096u);
  EXPECT_EQ(config.segment_header_bytes, 64u);
  EXPECT_EQ(config.ecmp, "first");
  EXPECT_EQ(config.ecmp_seed, 7u);
}

TEST(NocFabricConfig, CountsNameTheNodesAndDefaultsAreSane) {
  const NocFabricConfig config = parse_noc_fabric(
      "npus: 2\nswitches: 1\nlinks:\n  - {from: npu0, to: switch0, bandwidth_gbps: 1, latency_ns: 0}\n"
      "  - {from: npu1, to: switch0, bandwidth_gbps: 1, latency_ns: 0}\n",
      "count.yaml");
  EXPECT_EQ(config.npu_names, (std::vector<std::string>{"npu0", "npu1"}));
  EXPECT_EQ(config.switch_names, (std::vector<std::string>{"switch0"}));
  EXPECT_EQ(config.segment_bytes, kDefaultNocSegmentBytes);
  EXPECT_EQ(config.segment_header_bytes, 0u);
  EXPECT_EQ(config.ecmp, "flow");
  // One NPU needs no links, and is written back without any.
  const NocFabricConfig one = parse_noc_fabric("npus: 1\n", "one.yaml");
  EXPECT_EQ(one.npus(), 1u);
  EXPECT_EQ(parse_noc_fabric(noc_fabric_yaml(one, ""), "back.yaml").npu_names, one.npu_names);
}

TEST(NocFabricConfig, WrittenYamlReadsBackTheSame) {
  NocFabricConfig config = parse_noc_fabric(kStar, "star.yaml");
  config.logical_dims = {3};
  config.npu_names[0] = "quote \" and \\ and # and: colon";
  const NocFabricConfig back = parse_noc_fabric(noc_fabric_yaml(config, "two lines\nof comment"), "back.yaml");
  EXPECT_EQ(back.npu_names, config.npu_names);
  EXPECT_EQ(back.switch_names, config.switch_names);
  ASSERT_EQ(back.links.size(), config.links.size());
  for (size_t i = 0; i < back.links.size(); ++i) {
    EXPECT_EQ(back.links[i].from, config.links[i].from);
    EXPECT_EQ(back.links[i].to, config.links[i].to);
    EXPECT_EQ(back.links[i].bandwidth_gbps, config.links[i].bandwidth_gbps);
    EXPECT_EQ(back.links[i].latency_ns, config.links[i].latency_ns);
    EXPECT_EQ(back.links[i].bidirectional, config.links[i].bidirectional);
  }
  EXPECT_EQ(back.segment_bytes, config.segment_bytes);
  EXPECT_EQ(back.segment_header_bytes, config.segment_header_bytes);
  EXPECT_EQ(back.ecmp, config.ecmp);
  EXPECT_EQ(back.ecmp_seed, config.ecmp_seed);
  EXPECT_EQ(back.logical_dims, config.logical_dims);
}

TEST(NocFabricConfig, ErrorsNameTheKeyAndLine) {
  const auto error = [](const std::string& text) { return error_of([&] { (void)parse_noc_fabric(text, "bad.yaml"); }); };
  const std::string pair = "npus: [a, b]\nlinks:\n  - {from: a, to: b, bandwidth_gbps: 100, latency_ns: 0}\n";
  EXPECT_THAT(error(pair + "routing: xy\n"), HasSubstr("unknown key 'routing' (line 4)"));
  EXPECT_THAT(error("links: []\n"), HasSubstr("key 'npus' is required"));
  EXPECT_THAT(error("npus: [a, b]\nlinks:\n  - {from: a, to: c, bandwidth_gbps: 100, latency_ns: 0}\n"),
              HasSubstr("links[0].to 'c' is not a node named in npus or switches (line 3)"));
  EXPECT_THAT(error("npus: [a, b]\nlinks:\n  - {from: a, to: a, bandwidth_gbps: 100, latency_ns: 0}\n"),
              HasSubstr("links[0] joins a node to itself (line 3)"));
  EXPECT_THAT(error("npus: [a, b]\nlinks:\n  - {from: a, to: b, bandwidth_gbps: 0, latency_ns: 0}\n"),
              HasSubstr("links[0].bandwidth_gbps = 0 is out of range (line 3): valid 0.001 .. 1e+06 Gb/s"));
  EXPECT_THAT(error("npus: [a, b]\nlinks:\n  - {from: a, to: b, bandwidth_gbps: fast, latency_ns: 0}\n"),
              HasSubstr("links[0].bandwidth_gbps must be a number, got 'fast' (line 3)"));
  EXPECT_THAT(error("npus: [a, b]\nlinks:\n  - {from: a, to: b, bandwidth_gbps: 1, latency_ns: -1}\n"),
              HasSubstr("links[0].latency_ns = -1 is out of range"));
  EXPECT_THAT(error("npus: [a, b]\nlinks:\n  - {from: a, to: b, bandwidth_gbps: 1}\n"),
              HasSubstr("links[0] needs from, to, bandwidth_gbps and latency_ns (line 3)"));
  EXPECT_THAT(error("npus: [a, b]\nlinks:\n  - {from: a, to: b, bandwidth_gbps: 1, latency_ns: 0, color: red}\n"),
              HasSubstr("links[0]: unknown key 'color' (line 3)"));
  EXPECT_THAT(error("npus: [a, b]\nlinks:\n  - {from: a, to: b, bandwidth_gbps: 1, latency_ns: 0, bidirectional: yes}\n"),
              HasSubstr("links[0].bidirectional must be true or false"));
  EXPECT_THAT(error(pair + "segment_bytes: 4\n"), HasSubstr("segment_bytes = 4 is out of range (line 4)"));
  EXPECT_THAT(error(pair + "segment_bytes: 1000.5\n"), HasSubstr("segment_bytes must be a whole number"));
  EXPECT_THAT(error(pair + "segment_header_bytes: 1e9\n"), HasSubstr("segment_header_bytes = 1e9 is out of range"));
  EXPECT_THAT(error(pair + "ecmp: spray\n"), HasSubstr("ecmp = 'spray' (line 4): valid flow, first"));
  EXPECT_THAT(error(pair + "logical_dims: [3]\n"), HasSubstr("logical_dims multiply to 3 NPUs, but there are 2"));
  EXPECT_THAT(error("npus: [a, b]\nswitches:\n  - s\n  - a\n"), HasSubstr("switches[1] 'a' names a node already named (line 4)"));
  EXPECT_THAT(error("npus: [a, '']\n"), HasSubstr("npus[1] must be a non-empty name"));
  EXPECT_THAT(error("npus: 0\n"), HasSubstr("npus = 0 is out of range"));
  EXPECT_THAT(error("npus: 2\n"), HasSubstr("key 'links' must list the links"));
  EXPECT_THAT(error(pair + "npus: 3\n"), HasSubstr("duplicate key 'npus'"));
  // Partitions, including one that only a link's direction makes.
  EXPECT_THAT(error("npus: 4\nlinks:\n  - {from: npu0, to: npu1, bandwidth_gbps: 1, latency_ns: 0}\n"
                    "  - {from: npu2, to: npu3, bandwidth_gbps: 1, latency_ns: 0}\n"),
              HasSubstr("NPU 0 ('npu0') cannot reach NPU 2 ('npu2')"));
  EXPECT_THAT(error("npus: [a, b]\nlinks:\n  - {from: a, to: b, bandwidth_gbps: 1, latency_ns: 0, bidirectional: false}\n"),
              HasSubstr("NPU 1 ('b') cannot reach NPU 0 ('a')"));
}

TEST(NocFabricConfig, TheRegistryEntryReadsItAndGivesOneSwitchDimension) {
  const NetworkBackendSpec& spec = find_network_backend("noc");
  const NetworkConfig logical = parse_backend_config(spec, kStar, "star.yaml");
  ASSERT_EQ(logical.dimensions.size(), 1u);
  EXPECT_EQ(logical.dimensions[0].topology, TopologyKind::kSwitch);
  EXPECT_EQ(logical.npus_count(), 3u);
  // The fastest NPU link, 400 Gb/s, in GB of 2^30 bytes per second.
  EXPECT_NEAR(logical.dimensions[0].bandwidth_gib_per_s, 400e9 / 8 / 1073741824.0, 1e-9);
  EXPECT_NE(dynamic_cast<const NocFabricConfig*>(logical.backend_details.get()), nullptr);
  EXPECT_THAT(error_of([&] { (void)parse_backend_config(spec, "npus: 1\nlatency: [5]\n", "x.yml"); }),
              HasSubstr("unknown key 'latency' (line 2) for network backend 'noc'"));
  const NetworkConfig dims = parse_backend_config(
      spec,
      "npus: 4\nswitches: 1\nlinks:\n" + std::string(
          "  - {from: npu0, to: switch0, bandwidth_gbps: 1, latency_ns: 0}\n"
          "  - {from: npu1, to: switch0, bandwidth_gbps: 1, latency_ns: 0}\n"
          "  - {from: npu2, to: switch0, bandwidth_gbps: 1, latency_ns: 0}\n"
          "  - {from: npu3, to: switch0, bandwidth_gbps: 1, latency_ns: 0}\nlogical_dims: [2, 2]\n"),
      "dims.yaml");
  EXPECT_EQ(dims.dimensions.size(), 2u);
  EXPECT_EQ(dims.npus_count(), 4u);
  // An analytical configuration has no graph for this backend.
  EventLoop loop;
  const NetworkConfig analytical = parse_network_config("topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\n"
                                                        "latency: [5]\n", "ring.yml");
  EXPECT_THAT(error_of([&] { (void)spec.create(analytical, loop); }),
              HasSubstr("network backend 'noc' needs its own network configuration"));
}

TEST(NocFabricRouting, ShortestPathsAndEcmpByName) {
  // Two NPUs under two leaves joined by two spines: two equal paths.
  NocFabricConfig config = parse_noc_fabric(
      "npus: [a, b]\nswitches: [la, lb, s0, s1]\nlinks:\n"
      "  - {from: a, to: la, bandwidth_gbps: 1, latency_ns: 0}\n"
      "  - {from: b, to: lb, bandwidth_gbps: 1, latency_ns: 0}\n"
      "  - {from: la, to: s0, bandwidth_gbps: 1, latency_ns: 0}\n"
      "  - {from: la, to: s1, bandwidth_gbps: 1, latency_ns: 0}\n"
      "  - {from: lb, to: s0, bandwidth_gbps: 1, latency_ns: 0}\n"
      "  - {from: lb, to: s1, bandwidth_gbps: 1, latency_ns: 0}\n"
      "  - {from: a, to: b, bandwidth_gbps: 1, latency_ns: 0, bidirectional: false}\n"
      "ecmp: first\n",
      "clos.yaml");
  std::vector<uint32_t> path;
  NocFabricRoutes first(config);
  first.path(0, 1, 0, path);
  ASSERT_EQ(path.size(), 1u);  // the direct one-way link
  first.path(1, 0, 0, path);
  ASSERT_EQ(path.size(), 4u);  // back through the spines, s0 first
  EXPECT_EQ(config.node_name(first.links()[path[1]].to), "s0");
  config.ecmp = "flow";
  NocFabricRoutes flow(config);
  std::set<std::string> spines;
  for (uint64_t f = 0; f < 64; ++f) {
    flow.path(1, 0, f, path);
    ASSERT_EQ(path.size(), 4u);
    spines.insert(config.node_name(flow.links()[path[1]].to));
    std::vector<uint32_t> again;
    flow.path(1, 0, f, again);
    EXPECT_EQ(again, path);  // deterministic
  }
  EXPECT_EQ(spines.size(), 2u);  // and spread
  config.ecmp = "random";
  EXPECT_THAT(error_of([&] { NocFabricRoutes bad(config); }), HasSubstr("unknown ecmp policy 'random'"));
}

}  // namespace
}  // namespace snr::dsim
