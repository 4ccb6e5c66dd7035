// ClosFatTreeFabric: the standard k-ary fat tree built from radix-k
// switches. Two levels: k leaves (k/2 ports down, k/2 up) and k/2 spines,
// k²/2 host ports. Three levels: k pods of k/2 edge and k/2 aggregation
// switches, (k/2)² cores, k³/4 host ports. Every tier has as many links as
// host ports, so the fabric is non-blocking when tier bandwidths are equal.
//
// Wiring: host port p (host-major over NICs) goes to tier_0 switch p/(k/2),
// port p%(k/2). Two levels: tier_0 switch l's uplink port k/2+s goes to
// tier_1 switch s, port l. Three levels: in pod q, edge switch i's uplink
// port k/2+j goes to aggregation switch j of the pod, port i; aggregation
// switch j of pod q's uplink port k/2+m goes to core j·k/2+m, port q.
#include <fmt/format.h>

#include "infra/blueprints/blueprint.h"
#include "infra/blueprints/devices.h"

namespace snr::infra {
namespace {

class ClosFatTreeBlueprint final : public Blueprint {
 public:
  std::string_view name() const override { return "clos-fat-tree"; }
  std::string_view description() const override {
    return "fabric: k-ary Clos fat tree, 2 or 3 levels of radix-k switches";
  }
  bool is_device() const override { return false; }
  std::vector<BlueprintParameter> parameters() const override {
    return {{"k", "4", "switch radix (even)"},
            {"levels", "2", "switch levels: 2 (leaf-spine) or 3 (edge-aggregation-core)"},
            {"host_gpus", "1", "GPUs per host"},
            {"nics_per_host", "1", "NICs per host (each takes one tier_0 port)"},
            {"tier0_gbps", "100", "host-tier_0 link bandwidth, Gb/s"},
            {"tier1_gbps", "100", "tier_0-tier_1 link bandwidth, Gb/s"},
            {"tier2_gbps", "100", "tier_1-tier_2 link bandwidth, Gb/s (3 levels)"},
            {"link_latency_ns", "0", "latency of every fabric link, ns"}};
  }
  infragraph::Infrastructure build(const BlueprintArgs& args) const override {
    const int64_t k = args.get_int("k", 2, 1 << 10);
    if (k % 2 != 0) args.fail("k", fmt::format("{} is odd; a fat tree needs an even radix", k));
    const int64_t levels = args.get_int("levels", 2, 3);
    const int64_t nics = args.get_int("nics_per_host", 1, 1 << 10);
    const int64_t half = k / 2;
    const int64_t host_ports = levels == 2 ? k * half : k * half * half;
    if (host_ports % nics != 0) {
      args.fail("nics_per_host", fmt::format("{} does not divide the {} host ports", nics, host_ports));
    }
    const double latency = args.get_number("link_latency_ns", 0, 1e12);
    infragraph::Infrastructure out;
    out.name = "clos-fat-tree-fabric";
    out.description = fmt::format("{}-level Clos fat tree of radix-{} switches, {} hosts", levels, k, host_ports / nics);
    out.devices.push_back(build_device_blueprint(
        blueprint_names::kHost, {{"gpus", args.get_string("host_gpus")}, {"nics", std::to_string(nics)}}));
    out.devices.push_back(build_device_blueprint(blueprint_names::kSwitch, {{"ports", std::to_string(k)}}));
    for (int64_t t = 0; t < levels; ++t) {
      out.links.push_back(make_link(fmt::format("tier_{}_link", t),
                                    t == 0 ? "host to tier_0" : fmt::format("tier_{} to tier_{}", t - 1, t),
                                    args.get_number(fmt::format("tier{}_gbps", t), 1e-3, 1e9), latency));
    }
    const int64_t tier0 = host_ports / half;
    out.instances.push_back({"host", "", "host", host_ports / nics, 0});
    out.instances.push_back({"tier_0", "", "switch", tier0, 0});
    out.edges.push_back(infra_edge("host", "nic", "tier_0", fmt::format("port[0:{}]", half), "tier_0_link"));
    if (levels == 2) {
      out.instances.push_back({"tier_1", "", "switch", half, 0});
      for (int64_t s = 0; s < half; ++s) {
        out.edges.push_back(infra_edge("tier_0", fmt::format("port[{}]", half + s), fmt::format("tier_1[{}]", s),
                                       fmt::format("port[0:{}]", k), "tier_1_link"));
      }
      return out;
    }
    out.instances.push_back({"tier_1", "", "switch", tier0, 0});
    out.instances.push_back({"tier_2", "", "switch", half * half, 0});
    for (int64_t j = 0; j < half; ++j) {
      out.edges.push_back(infra_edge("tier_0", fmt::format("port[{}]", half + j), fmt::format("tier_1[{}::{}]", j, half),
                                     fmt::format("port[0:{}]", half), "tier_1_link"));
    }
    for (int64_t j = 0; j < half; ++j) {
      for (int64_t m = 0; m < half; ++m) {
        out.edges.push_back(infra_edge(fmt::format("tier_1[{}::{}]", j, half), fmt::format("port[{}]", half + m),
                                       fmt::format("tier_2[{}]", j * half + m), fmt::format("port[0:{}]", k),
                                       "tier_2_link"));
      }
    }
    return out;
  }
};
SNR_REGISTER_BLUEPRINT(ClosFatTreeBlueprint);

}  // namespace
}  // namespace snr::infra
