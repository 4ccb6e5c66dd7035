// The NoC-level translator: the same nodes and links as the ns3 one, a file
// the noc backend reads, and a message on the translated Clos timed by hand.
#include <gtest/gtest.h>

#include <map>

#include "dsim/network/noc/fabric_config.h"
#include "dsim/network/noc/fabric_network.h"
#include "dsim/network/ns3/ns3_config.h"
#include "dsim/network/registry.h"
#include "formats/infragraph/infragraph.h"
#include "infra/blueprints/blueprint.h"
#include "infra/translate/translator.h"

namespace snr::infra {
namespace {

// clos-fat-tree k = 4, two levels: 8 hosts (GPU, PCIe switch, NIC at
// 512 Gb/s and 0 ns), 4 leaves, 2 spines, 100 Gb/s and 200 ns links.
infragraph::Infrastructure clos8() {
  return build_blueprint("clos-fat-tree", {{"k", "4"}, {"tier0_gbps", "100"}, {"tier1_gbps", "100"},
                                           {"link_latency_ns", "200"}});
}

std::vector<TranslatedFile> translate(const infragraph::Infrastructure& infra, std::string_view backend) {
  const Graph g = expand(infra);
  return find_translator_for_sim_backend(backend)->translate(g, annotate(g));
}

TEST(NocTranslator, SameNodesAndLinksAsNs3) {
  const auto files = translate(clos8(), "noc");
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, "noc.network.yaml");
  EXPECT_EQ(files[1].name, "translation.json");
  const dsim::NocFabricConfig noc = dsim::parse_noc_fabric(files[0].content, files[0].name);
  const auto ns3_files = translate(clos8(), "ns3");
  const dsim::Ns3NetworkConfig ns3 = dsim::parse_ns3_network(ns3_files[0].content, ns3_files[0].name);
  EXPECT_EQ(noc.npus(), 8u);
  EXPECT_EQ(noc.switch_names.size(), 22u);  // per host a PCIe switch and a NIC; 4 leaves; 2 spines
  ASSERT_EQ(noc.links.size(), ns3.links.size());
  for (uint32_t node = 0; node < noc.node_count(); ++node) EXPECT_EQ(noc.node_name(node), ns3.node_name(node));
  for (size_t l = 0; l < noc.links.size(); ++l) {
    EXPECT_EQ(noc.links[l].from, ns3.links[l].from);
    EXPECT_EQ(noc.links[l].to, ns3.links[l].to);
    EXPECT_EQ(noc.links[l].bandwidth_gbps, ns3.links[l].bandwidth_gbit_per_s);
    EXPECT_EQ(noc.links[l].latency_ns, ns3.links[l].latency_ns);
    EXPECT_TRUE(noc.links[l].bidirectional);
  }
  EXPECT_EQ(noc.segment_bytes, dsim::kDefaultNocSegmentBytes);
  EXPECT_EQ(noc.ecmp, "flow");
  // translation.json is the ns3 translator's report of the same network.
  EXPECT_EQ(files[1].content, ns3_files[1].content);
}

TEST(NocTranslator, FeedsTheSimulatorsNocBackend) {
  const Graph g = expand(clos8());
  const SimNetworkTranslation t = translate_for_sim_backend(g, annotate(g), "noc");
  EXPECT_EQ(t.translator, "noc");
  EXPECT_EQ(t.network_file, "noc.network.yaml");
  const dsim::NetworkConfig logical =
      dsim::parse_backend_config(dsim::find_network_backend("noc"), t.network_text, t.network_file);
  ASSERT_EQ(logical.dimensions.size(), 1u);
  EXPECT_EQ(logical.npus_count(), 8u);
}

class Receiver final : public dsim::EventHandler {
 public:
  void handle(const dsim::Event& /*event*/) override { arrived_ns = loop.now(); }
  dsim::EventLoop loop;
  dsim::TimeNs arrived_ns = 0;
};

TEST(NocTranslator, AMessageThroughASpineTimedByHand) {
  const auto files = translate(clos8(), "noc");
  const dsim::NocFabricConfig config = dsim::parse_noc_fabric(files[0].content, files[0].name);
  Receiver receiver;
  const dsim::HandlerId id = receiver.loop.add_handler("receiver", receiver);
  auto net = dsim::make_noc_fabric_network(config, receiver.loop);
  // Rank 1 to rank 2 crosses a spine: GPU -> PCIe switch -> NIC (512 Gb/s,
  // 16 ns per 1,024-byte segment), NIC -> leaf -> spine -> leaf -> NIC
  // (100 Gb/s, 81.92 ns and 200 ns each), NIC -> PCIe switch -> GPU. The
  // first segment lands after 2 x 16 + 4 x 281.92 + 2 x 16 = 1,191.68 ns;
  // the other 127 follow the 100 Gb/s links' pace, 81.92 ns apart:
  // 1,191.68 + 127 x 81.92 = 11,595.52 ns, reported as 11,596.
  net->send(0, 1, 2, 131072, id);
  receiver.loop.run();
  EXPECT_EQ(receiver.arrived_ns, 11596u);
}

}  // namespace
}  // namespace snr::infra
