// The ns-3 translator: the fully qualified graph to the packet-level
// backend's network configuration (dsim/network/ns3/ns3_config.h).
//
// Nodes and links are point_to_point_network's (point_to_point.h): parts
// joined by links without a bandwidth are one node, ranked NPUs come first,
// every link with a bandwidth is an ns-3 link with that bandwidth and
// latency; parallel edges stay parallel links, and ECMP spreads over them.
#include <fmt/format.h>

#include "common/error.h"
#include "dsim/network/ns3/ns3_config.h"
#include "infra/translate/point_to_point.h"
#include "infra/translate/translator.h"

namespace snr::infra {
namespace {

class Ns3Translator final : public Translator {
 public:
  std::string_view name() const override { return "ns3"; }
  std::string_view description() const override {
    return "the ns-3 packet-level backend's network: NPUs, forwarding nodes and point-to-point links";
  }
  std::vector<std::string_view> sim_backends() const override { return {"ns3"}; }
  std::string_view network_configuration_file() const override { return "ns3.network.yaml"; }

  std::vector<TranslatedFile> translate(const Graph& g, const Annotations& a) const override {
    const PointToPointNetwork network = point_to_point_network(g, a, "ns3");
    dsim::Ns3NetworkConfig config;
    config.npus = network.npus;
    config.switches = network.forwarding_nodes();
    config.node_names = network.node_names;
    for (const PointToPointNetwork::Link& link : network.links) {
      config.links.push_back({link.from, link.to, link.bits_per_s / 1e9, link.latency_ns});
    }
    const std::string comment = fmt::format(
        "ns-3 network translated from InfraGraph '{}': {} NPUs, {} forwarding nodes, {} links.\n"
        "Components joined by links without a bandwidth are one node; see translation.json.",
        g.name(), config.npus, config.switches, config.links.size());
    // Checked as the backend will read it: a translation that does not parse
    // (a partitioned fabric) fails here, naming the NPU.
    const std::string yaml = dsim::ns3_network_yaml(config, comment);
    (void)dsim::parse_ns3_network(yaml, "ns3.network.yaml");
    return {{"ns3.network.yaml", yaml}, {"translation.json", point_to_point_report(g, network)}};
  }
};

}  // namespace

SNR_REGISTER_TRANSLATOR(Ns3Translator);

}  // namespace snr::infra
