#include "infra/queries.h"

#include <gtest/gtest.h>

#include <limits>

#include "common/error.h"
#include "formats/infragraph/infragraph.h"
#include "infra/annotations.h"

namespace snr::infra {
namespace {

// Four hosts (1 xpu + 1 nic) on two switches joined by one 50 Gb/s link;
// host links are 100 Gb/s.
Graph two_switches() {
  return expand(infragraph::parse_infrastructure(R"(name: two
devices:
- name: host
  components: [{name: xpu, count: 1, choice: xpu}, {name: nic, count: 1, choice: nic}]
  links: [{name: pcie}]
  edges: [{ep1: {component: xpu}, ep2: {component: nic}, scheme: one2one, link: pcie}]
- name: sw
  components: [{name: asic, count: 1, choice: switch}, {name: port, count: 3, choice: port}]
  links: [{name: ic}]
  edges: [{ep1: {component: asic}, ep2: {component: port}, scheme: many2many, link: ic}]
links:
- {name: down, physical: {bandwidth: {choice: gigabits_per_second, gigabits_per_second: 100}}}
- {name: across, physical: {bandwidth: {choice: gigabytes_per_second, gigabytes_per_second: 6.25}}}
instances: [{name: h, device: host, count: 4}, {name: s, device: sw, count: 2}]
edges:
- {ep1: {instance: "h[0:2]", component: nic}, ep2: {instance: "s[0]", component: "port[0:2]"}, scheme: one2one, link: down}
- {ep1: {instance: "h[2:4]", component: nic}, ep2: {instance: "s[1]", component: "port[0:2]"}, scheme: one2one, link: down}
- {ep1: {instance: "s[0]", component: "port[2]"}, ep2: {instance: "s[1]", component: "port[2]"}, scheme: one2one, link: across}
)",
                                                 "two.yaml"));
}

TEST(InfraQueries, ShortestPathNeighboursHistogramBisection) {
  const Graph g = two_switches();
  const auto a = *g.find_node("h.0.xpu.0");
  const auto b = *g.find_node("h.3.xpu.0");
  const auto path = shortest_path(g, a, b);
  std::vector<std::string> names;
  for (auto n : path) names.push_back(g.node_name(n));
  EXPECT_EQ(names, (std::vector<std::string>{"h.0.xpu.0", "h.0.nic.0", "s.0.port.0", "s.0.asic.0", "s.0.port.2",
                                             "s.1.port.2", "s.1.asic.0", "s.1.port.1", "h.3.nic.0", "h.3.xpu.0"}));
  EXPECT_EQ(g.neighbours(*g.find_node("s.0.asic.0")).size(), 3u);
  const Annotations ann = annotate(g);
  ASSERT_EQ(ann.ranked_nodes.size(), 4u);
  const auto h = hop_histogram(g, ann.ranked_nodes);
  // Same switch: xpu-nic-port-asic-port-nic-xpu = 6 hops (2 pairs); across: 9 hops (4 pairs).
  EXPECT_EQ(h.pairs_by_hops, (std::map<uint32_t, uint64_t>{{6, 2}, {9, 4}}));
  EXPECT_EQ(h.unreachable_pairs, 0u);
  const auto bis = bisection_bandwidth(g, ann.ranked_nodes);
  EXPECT_FALSE(bis.unbounded);
  EXPECT_DOUBLE_EQ(bis.bits_per_s, 50e9);  // the 6.25 GB/s link between the switches
  EXPECT_EQ(ann.device_tier[g.device_instance_of(*g.find_node("s.1.asic.0"))], 1);
}

TEST(InfraQueries, InstanceEgressIsTheNarrowestWayOut) {
  // Two GPUs on a PCIe switch, 10 and 30 Gb/s links, one NIC behind a
  // 25 Gb/s link; the NIC links outside the host.
  const Graph g = expand(infragraph::parse_infrastructure(R"(name: e
devices:
- name: host
  components: [{name: xpu, count: 2, choice: xpu}, {name: pciesw, count: 1, choice: switch},
               {name: nic, count: 1, choice: nic}]
  links:
  - {name: g0, physical: {bandwidth: {choice: gigabits_per_second, gigabits_per_second: 10}}}
  - {name: g1, physical: {bandwidth: {choice: gigabits_per_second, gigabits_per_second: 30}}}
  - {name: n, physical: {bandwidth: {choice: gigabits_per_second, gigabits_per_second: 25}}}
  edges:
  - {ep1: {component: "xpu[0]"}, ep2: {component: pciesw}, scheme: one2one, link: g0}
  - {ep1: {component: "xpu[1]"}, ep2: {component: pciesw}, scheme: one2one, link: g1}
  - {ep1: {component: nic}, ep2: {component: pciesw}, scheme: one2one, link: n}
- name: sw
  components: [{name: port, count: 2, choice: port}]
  links: []
  edges: []
links: [{name: up}]
instances: [{name: h, device: host, count: 2}, {name: s, device: sw, count: 1}]
edges:
- {ep1: {instance: h, component: nic}, ep2: {instance: s, component: port}, scheme: one2one, link: up}
)",
                                                                  "e.yaml"));
  const NodeId x0 = *g.find_node("h.1.xpu.0"), x1 = *g.find_node("h.1.xpu.1");
  EXPECT_DOUBLE_EQ(instance_egress_bits_per_s(g, std::vector<NodeId>{x0}), 10e9);
  EXPECT_DOUBLE_EQ(instance_egress_bits_per_s(g, std::vector<NodeId>{x1}), 25e9);
  EXPECT_DOUBLE_EQ(instance_egress_bits_per_s(g, std::vector<NodeId>{x0, x1}), 25e9);
  // The NIC itself links outside: nothing inside the host limits it.
  EXPECT_EQ(instance_egress_bits_per_s(g, std::vector<NodeId>{*g.find_node("h.1.nic.0")}),
            std::numeric_limits<double>::infinity());
  EXPECT_THROW((void)instance_egress_bits_per_s(g, std::vector<NodeId>{x0, *g.find_node("h.0.xpu.1")}), Error);
}

TEST(InfraQueries, InstanceEgressPathIsTheLeastLatencyWayOut) {
  // GPU 0 reaches the NIC directly in 500 ns or through the PCIe switch in
  // 100 + 150 ns; GPU 1 only links to GPU 0; a third GPU links to nothing.
  const Graph g = expand(infragraph::parse_infrastructure(R"(name: e
devices:
- name: host
  components: [{name: xpu, count: 3, choice: xpu}, {name: pciesw, count: 1, choice: switch},
               {name: nic, count: 1, choice: nic}]
  links:
  - {name: slow, physical: {latency: {choice: ns, ns: 500}}}
  - {name: a, physical: {latency: {choice: ns, ns: 100}}}
  - {name: b, physical: {latency: {choice: ns, ns: 150}}}
  - {name: bare}
  edges:
  - {ep1: {component: "xpu[0]"}, ep2: {component: nic}, scheme: one2one, link: slow}
  - {ep1: {component: "xpu[0]"}, ep2: {component: pciesw}, scheme: one2one, link: a}
  - {ep1: {component: pciesw}, ep2: {component: nic}, scheme: one2one, link: b}
  - {ep1: {component: "xpu[1]"}, ep2: {component: "xpu[0]"}, scheme: one2one, link: bare}
links: [{name: up}]
instances: [{name: h, device: host, count: 2}]
edges:
- {ep1: {instance: "h[0]", component: nic}, ep2: {instance: "h[1]", component: nic}, scheme: one2one, link: up}
)",
                                                                  "e.yaml"));
  const auto names = [&](const std::optional<std::vector<LinkId>>& path) {
    std::vector<std::string> out;
    for (const LinkId l : path.value()) out.push_back(g.links()[l].qualified_name());
    return out;
  };
  EXPECT_EQ(names(instance_egress_path(g, *g.find_node("h.0.xpu.0"))),
            (std::vector<std::string>{"host/a", "host/b"}));
  EXPECT_EQ(names(instance_egress_path(g, *g.find_node("h.0.xpu.1"))),
            (std::vector<std::string>{"host/bare", "host/a", "host/b"}));
  EXPECT_TRUE(instance_egress_path(g, *g.find_node("h.0.nic.0"))->empty());  // links outside itself
  EXPECT_FALSE(instance_egress_path(g, *g.find_node("h.0.xpu.2")).has_value());
}

TEST(InfraQueries, UnreachablePairsAreCounted) {
  const Graph g = expand(infragraph::parse_infrastructure(
      "name: t\ndevices:\n- name: d\n  components: [{name: xpu, count: 1, choice: xpu}]\n  links: []\n  edges: []\n"
      "instances: [{name: i, device: d, count: 3}]\n",
      "t.yaml"));
  const Annotations ann = annotate(g);
  const auto h = hop_histogram(g, ann.ranked_nodes);
  EXPECT_EQ(h.unreachable_pairs, 3u);
  EXPECT_TRUE(shortest_path(g, 0, 2).empty());
  EXPECT_DOUBLE_EQ(bisection_bandwidth(g, ann.ranked_nodes).bits_per_s, 0.0);
}

TEST(InfraQueries, AnnotationFileSetsRanksAndAttributes) {
  const Graph g = two_switches();
  Annotations ann = annotate(g);
  apply_annotations(g, ann,
                    "nodes:\n- {name: h.3.xpu.0, attributes: [{attribute: rank, value: '0'}]}\n"
                    "- {name: h.0.xpu.0, attributes: [{attribute: rank, value: '1'}]}\n"
                    "- {name: 's[0:2]', attributes: [{attribute: role, value: fabric}]}\n"
                    "links:\n- {name: down, attributes: [{attribute: ecn, value: 'on'}]}\n",
                    "ann.yaml");
  ASSERT_EQ(ann.ranked_nodes.size(), 2u);
  EXPECT_EQ(g.node_name(ann.ranked_nodes[0]), "h.3.xpu.0");
  EXPECT_EQ(ann.node_attributes[*g.find_node("s.1.port.2")]["role"], "fabric");
  EXPECT_EQ(ann.link_attributes.size(), 1u);
  Annotations bad = annotate(g);
  EXPECT_THROW(apply_annotations(g, bad, "nodes:\n- {name: h.9.xpu.0, attributes: []}\n", "a.yaml"), Error);
  EXPECT_THROW(apply_annotations(g, bad, "nodes:\n- {name: h.0.xpu.0, attributes: [{attribute: rank, value: '1'}]}\n",
                                 "a.yaml"),
               Error);  // rank 0 missing
  EXPECT_THROW(apply_annotations(g, bad, "links:\n- {name: nope}\n", "a.yaml"), Error);
  EXPECT_THROW(apply_annotations(g, bad, "nodez: []\n", "a.yaml"), Error);
}

}  // namespace
}  // namespace snr::infra
