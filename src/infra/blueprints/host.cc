// A minimal host: `gpus` xpus and `nics` nics joined by one PCIe switch.
#include <fmt/format.h>

#include "infra/blueprints/blueprint.h"
#include "infra/blueprints/devices.h"

namespace snr::infra {
namespace {

using infragraph::ComponentChoice;
using infragraph::Scheme;

class HostBlueprint final : public Blueprint {
 public:
  std::string_view name() const override { return blueprint_names::kHost; }
  std::string_view description() const override {
    return "host device: GPUs and NICs on one PCIe switch (the endpoint of fabric blueprints)";
  }
  bool is_device() const override { return true; }
  std::vector<BlueprintParameter> parameters() const override {
    return {{"gpus", "1", "xpu components"},
            {"nics", "1", "nic components"},
            {"pcie_gbps", "512", "PCIe link bandwidth, Gb/s (Gen5 x16)"},
            {"pcie_latency_ns", "0", "PCIe link latency, ns"}};
  }
  infragraph::Infrastructure build(const BlueprintArgs& args) const override {
    infragraph::Device d;
    d.name = "host";
    d.description = "generic host";
    const int64_t gpus = args.get_int("gpus", 1, 1024);
    const int64_t nics = args.get_int("nics", 1, 1024);
    d.components = {{"xpu", "GPU", gpus, ComponentChoice::kXpu, "", 0},
                    {"nic", "NIC", nics, ComponentChoice::kNic, "", 0},
                    {"pciesw", "PCIe switch", 1, ComponentChoice::kSwitch, "", 0}};
    d.links = {make_link("pcie", "PCIe", args.get_number("pcie_gbps", 1e-3, 1e9),
                         args.get_number("pcie_latency_ns", 0, 1e12))};
    d.edges = {device_edge("xpu", "pciesw", Scheme::kMany2Many, "pcie"),
               device_edge("nic", "pciesw", Scheme::kMany2Many, "pcie")};
    infragraph::Infrastructure out;
    out.bare_device = true;
    out.name = d.name;
    out.devices.push_back(std::move(d));
    return out;
  }
};
SNR_REGISTER_BLUEPRINT(HostBlueprint);

}  // namespace
}  // namespace snr::infra
