// A packet switch: one forwarding ASIC and `ports` ports.
#include "infra/blueprints/blueprint.h"
#include "infra/blueprints/devices.h"

namespace snr::infra {
namespace {

using infragraph::ComponentChoice;
using infragraph::Scheme;

class SwitchBlueprint final : public Blueprint {
 public:
  std::string_view name() const override { return blueprint_names::kSwitch; }
  std::string_view description() const override { return "switch device: one ASIC wired to every port"; }
  bool is_device() const override { return true; }
  std::vector<BlueprintParameter> parameters() const override { return {{"ports", "16", "port components (radix)"}}; }
  infragraph::Infrastructure build(const BlueprintArgs& args) const override {
    infragraph::Device d;
    d.name = "switch";
    d.description = "generic switch";
    d.components = {{"asic", "forwarding ASIC", 1, ComponentChoice::kSwitch, "", 0},
                    {"port", "port", args.get_int("ports", 1, 1 << 20), ComponentChoice::kPort, "", 0}};
    d.links = {{"ic", "ASIC to port", std::nullopt, std::nullopt, 0}};
    d.edges = {device_edge("asic", "port", Scheme::kMany2Many, "ic")};
    infragraph::Infrastructure out;
    out.bare_device = true;
    out.name = d.name;
    out.devices.push_back(std::move(d));
    return out;
  }
};
SNR_REGISTER_BLUEPRINT(SwitchBlueprint);

}  // namespace
}  // namespace snr::infra
