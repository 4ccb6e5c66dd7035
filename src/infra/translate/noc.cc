// The NoC-level translator: the fully qualified graph to the network
// configuration of the NoC-level fabric backend
// (dsim/network/noc/fabric_config.h), the same nodes and links the ns3
// translator writes (point_to_point.h), named by their InfraGraph names.
// Segment size and ECMP keep the backend's defaults, written out so that
// the file shows every setting.
#include <fmt/format.h>

#include "common/error.h"
#include "dsim/network/noc/fabric_config.h"
#include "infra/translate/point_to_point.h"
#include "infra/translate/translator.h"

namespace snr::infra {
namespace {

class NocTranslator final : public Translator {
 public:
  std::string_view name() const override { return "noc"; }
  std::string_view description() const override {
    return "the NoC-level backend's network: named NPUs and forwarding nodes, links with bandwidth and latency";
  }
  std::vector<std::string_view> sim_backends() const override { return {"noc"}; }
  std::string_view network_configuration_file() const override { return "noc.network.yaml"; }

  std::vector<TranslatedFile> translate(const Graph& g, const Annotations& a) const override {
    const PointToPointNetwork network = point_to_point_network(g, a, "noc");
    dsim::NocFabricConfig config;
    config.npu_names.assign(network.node_names.begin(), network.node_names.begin() + network.npus);
    config.switch_names.assign(network.node_names.begin() + network.npus, network.node_names.end());
    for (const PointToPointNetwork::Link& link : network.links) {
      config.links.push_back({link.from, link.to, link.bits_per_s / 1e9, link.latency_ns, true});
    }
    const std::string comment = fmt::format(
        "NoC-level network translated from InfraGraph '{}': {} NPUs, {} forwarding nodes, {} links.\n"
        "Components joined by links without a bandwidth are one node; see translation.json.",
        g.name(), config.npus(), config.switch_names.size(), config.links.size());
    // Read back as the backend will: a partitioned fabric fails here,
    // naming the NPUs.
    const std::string yaml = dsim::noc_fabric_yaml(config, comment);
    (void)dsim::parse_noc_fabric(yaml, "noc.network.yaml");
    return {{"noc.network.yaml", yaml}, {"translation.json", point_to_point_report(g, network)}};
  }
};

}  // namespace

SNR_REGISTER_TRANSLATOR(NocTranslator);

}  // namespace snr::infra
