#include "infra/translate/translator.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/error.h"
#include "common/error_of.h"
#include "dsim/network/ns3/ns3_config.h"
#include "formats/infragraph/infragraph.h"
#include "infra/blueprints/blueprint.h"

namespace snr::infra {
namespace {

std::string network_yml(const infragraph::Infrastructure& infra) {
  const Graph g = expand(infra);
  const Annotations a = annotate(g);
  const auto files = find_translator("analytical")->translate(g, a);
  EXPECT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, "network.yml");
  const std::string& y = files[0].content;
  return y.substr(y.find("topology:"));
}

std::string one_device(const std::string& edges, const std::string& link) {
  return "name: one\ndevices:\n- name: box\n  components: [{name: xpu, count: 8, choice: xpu}, {name: sw, count: 1, "
         "choice: switch}]\n  links: [" + link + "]\n  edges:\n" + edges + "instances: [{name: n, device: box, count: 1}]\n";
}

// 50 GiB/s = 53.6870912 GB/s exactly.
const std::string kLink = "{name: l, physical: {bandwidth: {choice: gigabytes_per_second, gigabytes_per_second: "
                          "53.6870912}, latency: {choice: ns, ns: 500}}}";

TEST(AnalyticalTranslator, RingFullMeshAndSwitchInsideADevice) {
  EXPECT_EQ(network_yml(infragraph::parse_infrastructure(
                one_device("  - {ep1: {component: xpu}, ep2: {component: xpu}, scheme: ring, link: l}\n", kLink), "r")),
            "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]  # GB/s (1 GB = 2^30 B)\nlatency: [ 500 ]  # ns\n");
  EXPECT_EQ(network_yml(infragraph::parse_infrastructure(
                one_device("  - {ep1: {component: xpu}, ep2: {component: xpu}, scheme: many2many, link: l}\n", kLink),
                "f")),
            "topology: [ FullyConnected ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]  # GB/s (1 GB = 2^30 B)\n"
            "latency: [ 500 ]  # ns\n");
  EXPECT_EQ(network_yml(infragraph::parse_infrastructure(
                one_device("  - {ep1: {component: xpu}, ep2: {component: sw}, scheme: many2many, link: l}\n", kLink),
                "s")),
            "topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]  # GB/s (1 GB = 2^30 B)\n"
            "latency: [ 500 ]  # ns\n");
  // A ring that does not follow rank order is not an ASTRA-sim ring.
  EXPECT_THROW((void)network_yml(infragraph::parse_infrastructure(
                   one_device("  - {ep1: {component: 'xpu[0::2]'}, ep2: {component: 'xpu[1::2]'}, scheme: ring, link: l}\n"
                              "  - {ep1: {component: 'xpu[1::2]'}, ep2: {component: 'xpu[0::2]'}, scheme: one2one, link: l}\n",
                              kLink),
                   "x")),
               Error);
}

TEST(AnalyticalTranslator, ClosFabricsBecomeSwitchDimensions) {
  EXPECT_EQ(network_yml(build_blueprint("clos-fat-tree", {{"k", "4"}, {"link_latency_ns", "700"}})),
            "topology: [ Switch, Switch ]\nnpus_count: [ 2, 4 ]\nbandwidth: [ 11.6415321827, 11.6415321827 ]  # GB/s "
            "(1 GB = 2^30 B)\nlatency: [ 700, 1400 ]  # ns\n");
  EXPECT_EQ(network_yml(build_blueprint("clos-fat-tree", {{"k", "4"}, {"levels", "3"}})),
            "topology: [ Switch, Switch, Switch ]\nnpus_count: [ 2, 2, 4 ]\nbandwidth: [ 11.6415321827, "
            "11.6415321827, 11.6415321827 ]  # GB/s (1 GB = 2^30 B)\nlatency: [ 0, 0, 0 ]  # ns\n");
  // Oversubscribed spine links cap the upper dimension; hosts with 8 GPUs add dimension 0.
  const auto infra = build_blueprint("clos-fat-tree", {{"k", "4"}, {"tier1_gbps", "50"}, {"host_gpus", "8"}});
  const std::string y = network_yml(infra);
  EXPECT_EQ(y.substr(0, y.find("bandwidth")), "topology: [ Switch, Switch, Switch ]\nnpus_count: [ 8, 2, 4 ]\n");
}

TEST(AnalyticalTranslator, TheWayOutOfAHostBoundsTheFabricDimensions) {
  // Two GPUs share one 10 Gb/s PCIe link to their 100 Gb/s NIC: 5 Gb/s per
  // NPU (0.582076609135 GiB/s) reach the fabric, not the NIC's 50.
  auto infra = build_blueprint("clos-fat-tree", {{"k", "4"}, {"host_gpus", "2"}});
  infra.devices[0] = build_device_blueprint("host", {{"gpus", "2"}, {"pcie_gbps", "10"}});
  EXPECT_EQ(network_yml(infra), "topology: [ Switch, Switch, Switch ]\nnpus_count: [ 2, 2, 4 ]\nbandwidth: [ "
                                "1.16415321827, 0.582076609135, 0.582076609135 ]  # GB/s (1 GB = 2^30 B)\n"
                                "latency: [ 0, 0, 0 ]  # ns\n");
  // With PCIe wider than the NIC, the NIC stays the limit.
  infra.devices[0] = build_device_blueprint("host", {{"gpus", "2"}, {"pcie_gbps", "512"}});
  EXPECT_NE(network_yml(infra).find("bandwidth: [ 59.6046447754, 5.82076609135, 5.82076609135 ]"), std::string::npos);
}

TEST(AnalyticalTranslator, EveryFabricHopCrossesTheHostsInsides) {
  // A GPU reaches its NIC through two 150 ns PCIe links (GPU to switch,
  // switch to NIC); the fabric's links take 700 ns. A Switch dimension's
  // hop (charged twice: up and down) is the way out of the host plus the
  // links up to its tier: 300 + 700 and 300 + 1400; inside the host the
  // GPUs meet at the PCIe switch, 150 ns per hop.
  auto infra = build_blueprint("clos-fat-tree", {{"k", "4"}, {"host_gpus", "2"}, {"link_latency_ns", "700"}});
  infra.devices[0] = build_device_blueprint("host", {{"gpus", "2"}, {"pcie_latency_ns", "150"}});
  const std::string y = network_yml(infra);
  EXPECT_EQ(y.substr(y.find("latency")), "latency: [ 150, 1000, 1700 ]  # ns\n");
  // Hosts joined directly: one hop is both hosts' ways out and the link.
  auto triangle = infragraph::parse_infrastructure(R"(name: triangle
devices:
- name: host
  components: [{name: xpu, count: 1, choice: xpu}, {name: nic, count: 1, choice: nic}]
  links: [{name: pcie, physical: {bandwidth: {choice: gigabits_per_second, gigabits_per_second: 512}, latency: {choice: ns, ns: 150}}}]
  edges: [{ep1: {component: xpu}, ep2: {component: nic}, scheme: one2one, link: pcie}]
links: [{name: wire, physical: {bandwidth: {choice: gigabits_per_second, gigabits_per_second: 100}, latency: {choice: ns, ns: 500}}}]
instances: [{name: h, device: host, count: 3}]
edges:
- {ep1: {instance: 'h[0]', component: nic}, ep2: {instance: 'h[1]', component: nic}, scheme: one2one, link: wire}
- {ep1: {instance: 'h[1]', component: nic}, ep2: {instance: 'h[2]', component: nic}, scheme: one2one, link: wire}
- {ep1: {instance: 'h[2]', component: nic}, ep2: {instance: 'h[0]', component: nic}, scheme: one2one, link: wire}
)",
                                               "triangle");
  const std::string direct = network_yml(triangle);
  EXPECT_EQ(direct.substr(0, direct.find("npus_count")), "topology: [ FullyConnected ]\n");
  EXPECT_EQ(direct.substr(direct.find("latency")), "latency: [ 800 ]  # ns\n");
}

TEST(AnalyticalTranslator, ServersOnASingleSwitch) {
  auto infra = build_blueprint("single-tier", {{"hosts", "4"}, {"nics_per_host", "8"}});
  infra.devices[0] = build_device_blueprint("server-8gpu");
  infra.devices[0].name = "host";
  const std::string y = network_yml(infra);
  // 4 NVSwitch links of 900 Gb/s per GPU = 419.095158577 GiB/s; one 100 Gb/s NIC per GPU.
  EXPECT_EQ(y, "topology: [ Switch, Switch ]\nnpus_count: [ 8, 4 ]\nbandwidth: [ 419.095158577, 11.6415321827 ]  # "
               "GB/s (1 GB = 2^30 B)\nlatency: [ 0, 0 ]  # ns\n");
}

// A torus of direct links in rank order (TPU ICI) is one Ring dimension per
// torus dimension, the first fastest; a torus missing a link is not one.
TEST(AnalyticalTranslator, TorusOfDirectLinksIsRingDimensions) {
  const std::string three = network_yml(build_blueprint("torus-rack", {}));
  EXPECT_NE(three.find("topology: [ Ring, Ring, Ring ]\nnpus_count: [ 4, 4, 4 ]"), std::string::npos) << three;
  const std::string two =
      network_yml(build_blueprint("torus-rack", {{"x", "5"}, {"y", "3"}, {"z", "1"}, {"xpus_per_cpu", "5"}}));
  EXPECT_NE(two.find("topology: [ Ring, Ring ]\nnpus_count: [ 5, 3 ]"), std::string::npos) << two;
  const std::string one = network_yml(build_blueprint("torus-rack", {{"x", "6"}, {"y", "1"}, {"z", "1"}}));
  EXPECT_NE(one.find("topology: [ Ring ]\nnpus_count: [ 6 ]"), std::string::npos) << one;
  // 3x4x5: sizes are found per dimension, not assumed equal.
  const std::string mixed =
      network_yml(build_blueprint("torus-rack", {{"x", "3"}, {"y", "4"}, {"z", "5"}, {"xpus_per_cpu", "3"}}));
  EXPECT_NE(mixed.find("npus_count: [ 3, 4, 5 ]"), std::string::npos) << mixed;
  auto broken = build_blueprint("torus-rack", {});
  auto& edges = broken.devices[0].edges;
  edges.erase(edges.begin() + 7);  // one ICI link less
  const std::string message = snr::testing::error_of([&] { (void)network_yml(broken); });
  EXPECT_NE(message.find("a torus in rank order"), std::string::npos) << message;
}

// Links between switches of one tier are not a tree: a dragonfly (all its
// routers are tier 1) was read as one flat switch of every host.
TEST(AnalyticalTranslator, LateralSwitchLinksAreRefused) {
  const auto dragonfly = build_blueprint("dragonfly", {{"a", "2"}, {"p", "1"}, {"h", "1"}});
  const std::string message = snr::testing::error_of([&] { (void)network_yml(dragonfly); });
  EXPECT_NE(message.find("router.0 and router.1 are both tier-1 switches joined by a link"), std::string::npos)
      << message;
  // A Clos fabric's links join adjacent tiers: still translated.
  EXPECT_NE(network_yml(build_blueprint("clos-fat-tree", {{"k", "4"}})).find("Switch"), std::string::npos);
}

TEST(AnalyticalTranslator, IrregularOrMissingFactsAreErrors) {
  // Three hosts on one switch, a fourth on a second, both under a third: no regular split.
  const auto infra = infragraph::parse_infrastructure(R"(name: odd
devices:
- name: h
  components: [{name: xpu, count: 1, choice: xpu}]
  links: []
  edges: []
- name: s
  components: [{name: port, count: 4, choice: port}, {name: asic, count: 1, choice: switch}]
  links: [{name: ic}]
  edges: [{ep1: {component: asic}, ep2: {component: port}, scheme: many2many, link: ic}]
links: [{name: e, physical: {bandwidth: {choice: gigabits_per_second, gigabits_per_second: 100}}}]
instances: [{name: h, device: h, count: 4}, {name: s, device: s, count: 3}]
edges:
- {ep1: {instance: 'h[0:3]', component: xpu}, ep2: {instance: 's[0]', component: 'port[0:3]'}, scheme: one2one, link: e}
- {ep1: {instance: 'h[3]', component: xpu}, ep2: {instance: 's[1]', component: 'port[0]'}, scheme: one2one, link: e}
- {ep1: {instance: 's[0:2]', component: 'port[3]'}, ep2: {instance: 's[2]', component: 'port[0:2]'}, scheme: one2one, link: e}
)",
                                                      "odd.yaml");
  EXPECT_THROW((void)network_yml(infra), Error);
  EXPECT_THROW((void)find_translator("htsim"), Error);
  // A link without a bandwidth (InfraGraph's generated device documents leave
  // them out): the error names the link and the field to add.
  const auto bare = infragraph::parse_infrastructure(R"(name: bare
components: [{name: xpu, count: 2, choice: xpu}, {name: sw, count: 1, choice: switch}]
links: [{name: nvlink}]
edges: [{ep1: {component: xpu}, ep2: {component: sw}, scheme: many2many, link: nvlink}]
)",
                                                     "bare.yaml");
  try {
    (void)network_yml(bare);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("link 'bare/nvlink' states no bandwidth, which this backend needs; give the "
                                         "link one (physical: {bandwidth: {choice: gigabits_per_second"),
              std::string::npos)
        << e.what();
  }
}

dsim::Ns3NetworkConfig ns3_network(const infragraph::Infrastructure& infra) {
  const Graph g = expand(infra);
  const Annotations a = annotate(g);
  const Translator* translator = find_translator_for_sim_backend("ns3");
  EXPECT_EQ(translator->name(), "ns3");
  const auto files = translator->translate(g, a);
  EXPECT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, translator->network_configuration_file());
  return dsim::parse_ns3_network(files[0].content, files[0].name);
}

TEST(Ns3Translator, ClosHostsSwitchesAndLinks) {
  // k = 4, two levels: 8 hosts (GPU, PCIe switch, NIC), 4 leaves, 2 spines.
  const auto config = ns3_network(build_blueprint(
      "clos-fat-tree", {{"k", "4"}, {"tier0_gbps", "100"}, {"tier1_gbps", "200"}, {"link_latency_ns", "300"}}));
  EXPECT_EQ(config.npus, 8u);
  EXPECT_EQ(config.switches, 8u * 2 + 4 + 2);  // per host a PCIe switch and a NIC; leaves; spines
  // Per host 2 PCIe links; 8 host-leaf and 8 leaf-spine links.
  ASSERT_EQ(config.links.size(), 8u * 2 + 8 + 8);
  EXPECT_EQ(config.node_names[0], "host.0.xpu.0");
  size_t pcie = 0, tier0 = 0, tier1 = 0;
  for (const auto& link : config.links) {
    if (link.bandwidth_gbit_per_s == 512) ++pcie;
    if (link.bandwidth_gbit_per_s == 100) ++tier0;
    if (link.bandwidth_gbit_per_s == 200) ++tier1;
    if (link.bandwidth_gbit_per_s != 512) {
      EXPECT_EQ(link.latency_ns, 300);
    }
  }
  EXPECT_EQ(pcie, 16u);
  EXPECT_EQ(tier0, 8u);
  EXPECT_EQ(tier1, 8u);
  // A switch's ports and ASIC (joined without a bandwidth) are one node.
  EXPECT_NE(std::find(config.node_names.begin(), config.node_names.end(), "tier_1.1"), config.node_names.end());
}

TEST(Ns3Translator, ParallelNicLinksStayParallel) {
  // Two hosts, each with two NICs cabled to the same switch.
  const auto config = ns3_network(build_blueprint("single-tier", {{"hosts", "2"}, {"nics_per_host", "2"}}));
  EXPECT_EQ(config.npus, 2u);
  size_t nic_links = 0;
  for (const auto& link : config.links) nic_links += link.bandwidth_gbit_per_s == 100;
  EXPECT_EQ(nic_links, 4u);
}

TEST(Ns3Translator, RanksJoinedWithoutBandwidthAreAnError) {
  const auto infra = infragraph::parse_infrastructure(one_device("  - {ep1: {component: 'xpu'}, ep2: {component: 'sw'}, "
                                                                 "scheme: many2many, link: l}\n",
                                                                 "{name: l}"),
                                                      "nobw.yaml");
  try {
    (void)ns3_network(infra);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("joined by links without a bandwidth"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace snr::infra
