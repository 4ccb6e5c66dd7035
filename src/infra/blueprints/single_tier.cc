// SingleTierFabric: every host NIC on one switch.
#include <fmt/format.h>

#include "infra/blueprints/blueprint.h"
#include "infra/blueprints/devices.h"

namespace snr::infra {
namespace {

class SingleTierBlueprint final : public Blueprint {
 public:
  std::string_view name() const override { return "single-tier"; }
  std::string_view description() const override { return "fabric: hosts x NICs on one switch"; }
  bool is_device() const override { return false; }
  std::vector<BlueprintParameter> parameters() const override {
    return {{"hosts", "8", "host instances"},
            {"host_gpus", "1", "GPUs per host"},
            {"nics_per_host", "1", "NICs per host"},
            {"link_gbps", "100", "host-switch link bandwidth, Gb/s"},
            {"link_latency_ns", "0", "host-switch link latency, ns"}};
  }
  infragraph::Infrastructure build(const BlueprintArgs& args) const override {
    const int64_t hosts = args.get_int("hosts", 1, 1 << 20);
    const int64_t nics = args.get_int("nics_per_host", 1, 1024);
    infragraph::Infrastructure out;
    out.name = "single-tier-fabric";
    out.description = fmt::format("{} hosts x {} NICs on one switch", hosts, nics);
    out.devices.push_back(build_device_blueprint(
        blueprint_names::kHost, {{"gpus", args.get_string("host_gpus")}, {"nics", std::to_string(nics)}}));
    out.devices.push_back(build_device_blueprint(blueprint_names::kSwitch, {{"ports", std::to_string(hosts * nics)}}));
    out.links.push_back(make_link("host_link", "host to switch", args.get_number("link_gbps", 1e-3, 1e9),
                                  args.get_number("link_latency_ns", 0, 1e12)));
    out.instances = {{"host", "", "host", hosts, 0}, {"switch", "", "switch", 1, 0}};
    // host-major NIC order meets the switch's ports in order.
    out.edges.push_back(infra_edge("host", "nic", "switch[0]", "port", "host_link"));
    return out;
  }
};
SNR_REGISTER_BLUEPRINT(SingleTierBlueprint);

}  // namespace
}  // namespace snr::infra
