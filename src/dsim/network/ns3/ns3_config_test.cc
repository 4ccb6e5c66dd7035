#include "dsim/network/ns3/ns3_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "common/error_of.h"
#include "dsim/network/registry.h"

namespace snr::dsim {
namespace {

using ::testing::HasSubstr;
using snr::testing::error_of;

constexpr const char* kStar = R"(npus: 3
switches: 1
links:
  - [0, 3, 100, 200]
  - [1, 3, 100, 200]
  - [2, 3, 400, 50.5]
packet_payload_bytes: 4096
port_queue_bytes: 1048576
ecmp: packet
ecmp_seed: 7
)";

TEST(Ns3Config, ReadsEveryKey) {
  const Ns3NetworkConfig config = parse_ns3_network(kStar, "star.yaml");
  EXPECT_EQ(config.npus, 3u);
  EXPECT_EQ(config.switches, 1u);
  ASSERT_EQ(config.links.size(), 3u);
  EXPECT_EQ(config.links[2].from, 2u);
  EXPECT_EQ(config.links[2].to, 3u);
  EXPECT_DOUBLE_EQ(config.links[2].bandwidth_gbit_per_s, 400);
  EXPECT_DOUBLE_EQ(config.links[2].latency_ns, 50.5);
  EXPECT_EQ(config.packet_payload_bytes, 4096u);
  EXPECT_EQ(config.port_queue_bytes, 1048576u);
  EXPECT_EQ(config.ecmp, EcmpMode::kPacket);
  EXPECT_EQ(config.ecmp_seed, 7u);
  EXPECT_EQ(config.node_name(1), "npu1");
  EXPECT_EQ(config.node_name(3), "switch0");
}

TEST(Ns3Config, WrittenYamlReadsBackTheSame) {
  Ns3NetworkConfig config = parse_ns3_network(kStar, "star.yaml");
  config.node_names = {"a", "b", "c", "leaf"};
  const Ns3NetworkConfig back = parse_ns3_network(ns3_network_yaml(config, "two lines\nof comment"), "back.yaml");
  EXPECT_EQ(back.node_names, config.node_names);
  ASSERT_EQ(back.links.size(), config.links.size());
  for (size_t i = 0; i < back.links.size(); ++i) {
    EXPECT_EQ(back.links[i].from, config.links[i].from);
    EXPECT_EQ(back.links[i].to, config.links[i].to);
    EXPECT_DOUBLE_EQ(back.links[i].bandwidth_gbit_per_s, config.links[i].bandwidth_gbit_per_s);
    EXPECT_DOUBLE_EQ(back.links[i].latency_ns, config.links[i].latency_ns);
  }
  EXPECT_EQ(back.packet_payload_bytes, config.packet_payload_bytes);
  EXPECT_EQ(back.ecmp, config.ecmp);
  EXPECT_EQ(back.ecmp_seed, config.ecmp_seed);
}

TEST(Ns3Config, LogicalDimensionsShapeTheCollectivesOnly) {
  const auto config = parse_ns3_network(
      "npus: 4\nswitches: 1\nlinks: [[0, 4, 100, 0], [1, 4, 100, 0], [2, 4, 100, 0], [3, 4, 100, 0]]\n"
      "logical_dims: [2, 2]\n",
      "dims.yaml");
  EXPECT_EQ(config.logical_dims, (std::vector<uint32_t>{2, 2}));
  const NetworkConfig logical = ns3_logical_topology(std::make_shared<const Ns3NetworkConfig>(config));
  ASSERT_EQ(logical.dimensions.size(), 2u);
  EXPECT_EQ(logical.npus_count(), 4u);
  EXPECT_EQ(parse_ns3_network(ns3_network_yaml(config, "c"), "back").logical_dims, config.logical_dims);
  EXPECT_THAT(error_of([] {
                (void)parse_ns3_network("npus: 4\nswitches: 1\nlinks: [[0, 4, 1, 0], [1, 4, 1, 0], [2, 4, 1, 0], "
                                        "[3, 4, 1, 0]]\nlogical_dims: [2, 3]\n",
                                        "bad");
              }),
              HasSubstr("logical_dims multiply to 6 NPUs, but npus is 4"));
}

TEST(Ns3Config, ParallelLinksAreSeparatePorts) {
  const auto config = parse_ns3_network("npus: 2\nlinks:\n  - [0, 1, 100, 0]\n  - [1, 0, 100, 0]\n", "p.yaml");
  EXPECT_EQ(config.links.size(), 2u);
}

TEST(Ns3Config, ErrorsNameTheKeyEntryAndLine) {
  const auto error = [](const std::string& text) { return error_of([&] { (void)parse_ns3_network(text, "bad.yaml"); }); };
  EXPECT_THAT(error("npus: 2\nlinks: [[0, 1, 100, 0]]\nrouting: xy\n"), HasSubstr("unknown key 'routing' (line 3)"));
  EXPECT_THAT(error("links: [[0, 1, 100, 0]]\n"), HasSubstr("key 'npus' is required"));
  EXPECT_THAT(error("npus: 2\nlinks:\n  - [0, 2, 100, 0]\n"), HasSubstr("links[0] to = 2 is out of range (line 3)"));
  EXPECT_THAT(error("npus: 2\nlinks:\n  - [1, 1, 100, 0]\n"), HasSubstr("links[0] joins node 1 to itself"));
  EXPECT_THAT(error("npus: 2\nlinks:\n  - [0, 1, 0, 0]\n"), HasSubstr("links[0] bandwidth = 0 is out of range"));
  EXPECT_THAT(error("npus: 2\nlinks:\n  - [0, 1, 100, -1]\n"), HasSubstr("links[0] latency = -1 is out of range"));
  EXPECT_THAT(error("npus: 2\nlinks:\n  - [0, 1, 100]\n"), HasSubstr("links[0] must be [from, to, Gb/s, latency ns]"));
  EXPECT_THAT(error("npus: 2\nlinks:\n  - [0, 1, fast, 0]\n"), HasSubstr("links[0] bandwidth must be a number"));
  EXPECT_THAT(error("npus: 2\nlinks: [[0, 1, 1, 0]]\npacket_payload_bytes: 10\n"),
              HasSubstr("packet_payload_bytes = 10 is out of range"));
  EXPECT_THAT(error("npus: 2\nlinks: [[0, 1, 1, 0]]\nport_queue_bytes: 1e12\n"),
              HasSubstr("port_queue_bytes = 1e12 is out of range"));
  EXPECT_THAT(error("npus: 2\nlinks: [[0, 1, 1, 0]]\necmp: hash\n"), HasSubstr("ecmp = 'hash'"));
  EXPECT_THAT(error("npus: 2\nlinks: [[0, 1, 1, 0]]\nnode_names: [a]\n"),
              HasSubstr("node_names must list one name per node (2)"));
  EXPECT_THAT(error("npus: 2\nlinks: [[0, 1, 1, 0]]\nnode_names: [a, a]\n"), HasSubstr("'a' is given twice"));
  EXPECT_THAT(error("npus: 3\nswitches: 1\nlinks:\n  - [0, 3, 1, 0]\n  - [1, 3, 1, 0]\n  - [2, 3, 1, 0]\n  - [2, 0, 1, 0]\n"
                    "npus: 4\n"),
              HasSubstr("duplicate key 'npus'"));
  EXPECT_THAT(error("npus: 3\nswitches: 1\nlinks:\n  - [0, 3, 1, 0]\n  - [1, 3, 1, 0]\n"), HasSubstr("NPU 2 (npu2) has no link"));
  EXPECT_THAT(error("npus: 4\nlinks:\n  - [0, 1, 1, 0]\n  - [2, 3, 1, 0]\n"),
              HasSubstr("NPU 2 (npu2) cannot reach NPU 0 (npu0)"));
}

TEST(Ns3Config, TheRegistryEntryReadsItAndGivesOneSwitchDimension) {
  const NetworkBackendSpec& spec = find_network_backend("ns3");
  const NetworkConfig logical = parse_backend_config(spec, kStar, "star.yaml");
  ASSERT_EQ(logical.dimensions.size(), 1u);
  EXPECT_EQ(logical.dimensions[0].topology, TopologyKind::kSwitch);
  EXPECT_EQ(logical.npus_count(), 3u);
  // The fastest NPU link, 400 Gb/s, in GB of 2^30 bytes per second.
  EXPECT_NEAR(logical.dimensions[0].bandwidth_gib_per_s, 400e9 / 8 / 1073741824.0, 1e-9);
  EXPECT_NE(dynamic_cast<const Ns3NetworkConfig*>(logical.backend_details.get()), nullptr);
  // An analytical configuration is refused by this backend's key check.
  EXPECT_THAT(error_of([&] {
                (void)parse_backend_config(spec, "topology: [Ring]\nnpus_count: [4]\nbandwidth: [50]\nlatency: [5]\n",
                                           "ring.yml");
              }),
              HasSubstr("topology"));
}

}  // namespace
}  // namespace snr::dsim
