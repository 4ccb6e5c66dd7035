#include "infra/translate/translator.h"

#include <gtest/gtest.h>

#include "common/error.h"
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

TEST(AnalyticalTranslator, ServersOnASingleSwitch) {
  auto infra = build_blueprint("single-tier", {{"hosts", "4"}, {"nics_per_host", "8"}});
  infra.devices[0] = build_device_blueprint("server-8gpu");
  infra.devices[0].name = "host";
  const std::string y = network_yml(infra);
  // 4 NVSwitch links of 900 Gb/s per GPU = 419.095158577 GiB/s; one 100 Gb/s NIC per GPU.
  EXPECT_EQ(y, "topology: [ Switch, Switch ]\nnpus_count: [ 8, 4 ]\nbandwidth: [ 419.095158577, 11.6415321827 ]  # "
               "GB/s (1 GB = 2^30 B)\nlatency: [ 0, 0 ]  # ns\n");
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
}

}  // namespace
}  // namespace snr::infra
