#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <tuple>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/infragraph/infragraph.h"
#include "infra/annotations.h"
#include "infra/graph.h"

namespace snr::infra {
namespace {

std::filesystem::path examples() {
  const char* data = std::getenv("SNR_SHARED_DATA");
  return data == nullptr ? std::filesystem::path() : std::filesystem::path(data) / "infragraph" / "examples";
}

// The graph as names, for comparisons that do not depend on node ids.
struct NamedGraph {
  std::vector<std::string> nodes;
  std::set<std::tuple<std::string, std::string, std::string, double, double>> edges;
  bool operator==(const NamedGraph&) const = default;
};

NamedGraph named(const Graph& g) {
  NamedGraph out;
  for (NodeId n = 0; n < g.node_count(); ++n) out.nodes.push_back(g.node_name(n));
  for (const auto& e : g.edges()) {
    auto a = g.node_name(e.a), b = g.node_name(e.b);
    if (b < a) std::swap(a, b);
    const auto& l = g.links()[e.link];
    out.edges.emplace(a, b, l.qualified_name(), l.bandwidth_bits_per_s(), l.latency_ns().value_or(-1));
  }
  return out;
}

struct HandCount {
  const char* file;
  size_t nodes;
  size_t edges;
};

// Counted by hand from the documents (see docs/infragraph.md for the sums).
constexpr HandCount kHandCounts[] = {
    {"infragraph-gh-pages/closfabric.yaml", 151, 164},
    {"infragraph-gh-pages/cx5_100gbe.yaml", 4, 3},
    {"infragraph-gh-pages/dgx_h100.yaml", 33, 62},
    {"infragraph-gh-pages/dgx_cx5_nic.yaml", 33, 62},
    {"infragraph-gh-pages/dgx_cx5_qsfp_composed.yaml", 65, 94},
    {"infragraph-pr48/dgx_a100_infra.yaml", 62, 60},
    {"infragraph-pr48/SYS-221H-TNR.json", 23, 22},
    {"astra-sim-service/clos_fabric.yaml", 1232, 1536},
};

TEST(InfraGraphExpand, SharedExamplesMatchHandCountsAndRoundTrip) {
  const auto root = examples();
  if (root.empty() || !std::filesystem::exists(root)) GTEST_SKIP() << "../shared/data/infragraph not present";
  for (const auto& hc : kHandCounts) {
    SCOPED_TRACE(hc.file);
    const auto infra = infragraph::load_infrastructure(root / hc.file);
    const Graph g = expand(infra);
    EXPECT_EQ(g.node_count(), hc.nodes);
    EXPECT_EQ(g.edge_count(), hc.edges);
    for (auto format : {infragraph::OutputFormat::kYaml, infragraph::OutputFormat::kJson}) {
      const auto again = infragraph::parse_infrastructure(write_document(infra, format), "written");
      EXPECT_EQ(named(expand(again)), named(g));
    }
  }
}

TEST(InfraGraphExpand, NamesComposedDevicesLevelByLevel) {
  const auto root = examples();
  if (root.empty() || !std::filesystem::exists(root)) GTEST_SKIP();
  const Graph g = expand(infragraph::load_infrastructure(root / "infragraph-gh-pages/dgx_cx5_qsfp_composed.yaml"));
  const auto port = g.find_node("dgx_h100.0.cx5_100gbe.3.port.0");
  const auto transceiver = g.find_node("dgx_h100.0.cx5_100gbe.3.qsfp28.0.electrical_port.0");
  const auto slot = g.find_node("dgx_h100.0.pciesl.3");
  const auto endpoint = g.find_node("dgx_h100.0.cx5_100gbe.3.pcie_endpoint.0");
  ASSERT_TRUE(port && transceiver && slot && endpoint);
  auto joined = [&](NodeId a, NodeId b) {
    for (const auto& adj : g.neighbours(a)) {
      if (adj.node == b) return g.links()[g.edges()[adj.edge].link].qualified_name();
    }
    return std::string();
  };
  EXPECT_EQ(joined(*port, *transceiver), "cx5_100gbe/electrical");
  EXPECT_EQ(joined(*slot, *endpoint), "dgx_h100/pcie");
  EXPECT_EQ(g.node_type(*slot).name, "pcie_slot");
  EXPECT_EQ(g.node_name(*transceiver), "dgx_h100.0.cx5_100gbe.3.qsfp28.0.electrical_port.0");
  EXPECT_FALSE(g.find_node("dgx_h100.1.xpu.0"));
  EXPECT_FALSE(g.find_node("dgx_h100.0.cx5_100gbe.8.port.0"));
}

TEST(InfraGraphExpand, ClosExampleWiresLeavesToSpines) {
  const auto root = examples();
  if (root.empty() || !std::filesystem::exists(root)) GTEST_SKIP();
  const Graph g = expand(infragraph::load_infrastructure(root / "infragraph-gh-pages/closfabric.yaml"));
  const auto a = g.find_node("leafsw.1.port.4");
  const auto b = g.find_node("spinesw.2.port.1");
  ASSERT_TRUE(a && b);
  bool found = false;
  for (const auto& adj : g.neighbours(*a)) {
    if (adj.node == *b) {
      found = true;
      EXPECT_EQ(g.links()[g.edges()[adj.edge].link].bandwidth_bits_per_s(), 400e9);
    }
  }
  EXPECT_TRUE(found);
  // one2one host nics (2) with all 16 leaf ports: pairs up to the nics.
  const auto nic1 = g.find_node("host.3.nic.1");
  const auto port1 = g.find_node("leafsw.3.port.1");
  ASSERT_TRUE(nic1 && port1);
  bool nic_found = false;
  for (const auto& adj : g.neighbours(*nic1)) nic_found = nic_found || adj.node == *port1;
  EXPECT_TRUE(nic_found);
  const Annotations ann = annotate(g);
  EXPECT_EQ(ann.ranked_nodes.size(), 8u);  // 4 hosts x 2 xpus
  EXPECT_EQ(g.node_name(ann.ranked_nodes[3]), "host.1.xpu.1");
  EXPECT_EQ(ann.device_tier[g.device_instance_of(*a)], 1);
  EXPECT_EQ(ann.device_tier[g.device_instance_of(*b)], 2);
}

TEST(InfraGraphExpand, MalformedVariantsFailWithNamedErrors) {
  const char* src = std::getenv("SNR_SOURCE_DIR");
  ASSERT_NE(src, nullptr);
  const std::filesystem::path dir = std::filesystem::path(src) / "src/formats/infragraph/testdata/malformed";
  size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    SCOPED_TRACE(entry.path().filename().string());
    const std::string text = read_file(entry.path());
    ASSERT_EQ(text.rfind("# expect: ", 0), 0u);
    const std::string expect = text.substr(10, text.find('\n') - 10);
    try {
      (void)expand(infragraph::parse_infrastructure(text, entry.path().filename().string()));
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind(entry.path().filename().string(), 0), 0u) << e.what();
    }
    ++checked;
  }
  EXPECT_GE(checked, 25u);
}

TEST(InfraGraphExpand, SchemesAndDeduplication) {
  const auto infra = infragraph::parse_infrastructure(
      "name: t\ndevices:\n- name: d\n  components: [{name: x, count: 4, choice: xpu}, {name: s, count: 2, choice: switch}]\n"
      "  links: [{name: l}]\n  edges:\n"
      "  - {ep1: {component: x}, ep2: {component: x}, scheme: ring, link: l}\n"
      "  - {ep1: {component: \"x[1]\"}, ep2: {component: \"x[0]\"}, scheme: one2one, link: l}\n"
      "  - {ep1: {component: x}, ep2: {component: s}, scheme: many2many, link: l}\n"
      "  - {ep1: {component: s}, ep2: {component: s}, scheme: many2many, link: l}\n"
      "instances: [{name: i, device: d, count: 2}]\n",
      "t.yaml");
  const Graph g = expand(infra);
  EXPECT_EQ(g.node_count(), 12u);
  // ring 4 + (repeat of x1-x0: 0) + 4x2 + s0-s1 once = 13 per instance.
  EXPECT_EQ(g.edge_count(), 26u);
  EXPECT_EQ(g.device_instance_count(), 2u);
  EXPECT_EQ(g.device_instance_name(1), "i.1");
  EXPECT_EQ(*g.find_node("i.1.s.0"), 10u);
}

}  // namespace
}  // namespace snr::infra
