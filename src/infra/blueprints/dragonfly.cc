// DragonflyFabric (Kim et al., ISCA 2008; InfraGraph's dragonfly_fabric):
// groups of `a` routers, all-to-all inside a group (local links), `p`
// terminal ports and `h` global ports per router. With the default number of
// groups, a·h + 1, every pair of groups is joined by exactly one global link;
// fewer groups leave global ports free. InfraGraph's own blueprint builds
// only the balanced case a = 2p = 2h; any a, p, h are built here, wired in
// the same order, so equal parameters give the same graph.
//
// Ports of router r: [0, p) terminals (host-major over NICs), [p, p+a-1)
// local links in peer order, [p+a-1, p+a-1+h) global links. Global links:
// for each pair of groups gi < gj in order, each group's next free global
// port (router by router) is taken.
#include <fmt/format.h>

#include <vector>

#include "infra/blueprints/blueprint.h"
#include "infra/blueprints/devices.h"

namespace snr::infra {
namespace {

class DragonflyBlueprint final : public Blueprint {
 public:
  std::string_view name() const override { return "dragonfly"; }
  std::string_view description() const override {
    return "fabric: dragonfly, groups of a all-to-all routers with p terminal and h global ports each";
  }
  bool is_device() const override { return false; }
  std::vector<BlueprintParameter> parameters() const override {
    return {{"a", "4", "routers per group"},
            {"p", "2", "terminal (host NIC) ports per router"},
            {"h", "2", "global ports per router"},
            {"groups", "0", "groups, 2 .. a*h+1 (0: a*h+1, every group pair joined by one global link)"},
            {"host_gpus", "1", "GPUs per host"},
            {"nics_per_host", "1", "NICs per host (p must be a multiple)"},
            {"terminal_gbps", "100", "host-router link bandwidth, Gb/s"},
            {"local_gbps", "100", "router-router link inside a group, Gb/s"},
            {"global_gbps", "100", "router-router link between groups, Gb/s"},
            {"link_latency_ns", "0", "latency of every fabric link, ns"}};
  }
  infragraph::Infrastructure build(const BlueprintArgs& args) const override {
    const int64_t a = args.get_int("a", 1, 1 << 10);
    const int64_t p = args.get_int("p", 1, 1 << 10);
    const int64_t h = args.get_int("h", 1, 1 << 10);
    const int64_t max_groups = a * h + 1;
    int64_t groups = args.get_int("groups", 0, max_groups);
    if (groups == 0) groups = max_groups;
    if (groups < 2) args.fail("groups", fmt::format("{} group(s); a dragonfly has at least 2", groups));
    const int64_t nics = args.get_int("nics_per_host", 1, 1 << 10);
    if (p % nics != 0) args.fail("nics_per_host", fmt::format("{} does not divide p = {} terminal ports", nics, p));
    const int64_t routers = groups * a;
    const int64_t hosts = routers * (p / nics);
    if (hosts > (int64_t{1} << 20)) args.fail("groups", fmt::format("{} hosts, more than 2^20", hosts));
    const double latency = args.get_number("link_latency_ns", 0, 1e12);

    infragraph::Infrastructure out;
    out.name = "dragonfly-fabric";
    out.description = fmt::format("dragonfly: {} groups of {} routers (p={}, h={}), {} hosts", groups, a, p, h, hosts);
    out.devices.push_back(build_device_blueprint(
        blueprint_names::kHost, {{"gpus", args.get_string("host_gpus")}, {"nics", std::to_string(nics)}}));
    out.devices.push_back(
        build_device_blueprint(blueprint_names::kSwitch, {{"ports", std::to_string(p + (a - 1) + h)}}));
    out.links.push_back(make_link("terminal_link", "host to router",
                                  args.get_number("terminal_gbps", 1e-3, 1e9), latency));
    out.links.push_back(make_link("local_link", "router to router inside a group",
                                  args.get_number("local_gbps", 1e-3, 1e9), latency));
    out.links.push_back(make_link("global_link", "router to router between groups",
                                  args.get_number("global_gbps", 1e-3, 1e9), latency));
    out.instances = {{"host", "", "host", hosts, 0}, {"router", "", "switch", routers, 0}};

    // Terminals: host-major NICs meet routers' ports 0 .. p-1 in order.
    out.edges.push_back(infra_edge("host", "nic", "router", fmt::format("port[0:{}]", p), "terminal_link"));
    const auto port_edge = [&](int64_t r1, int64_t port1, int64_t r2, int64_t port2, const char* link) {
      out.edges.push_back(infra_edge(fmt::format("router[{}]", r1), fmt::format("port[{}]", port1),
                                     fmt::format("router[{}]", r2), fmt::format("port[{}]", port2), link));
    };
    // Local: all-to-all inside each group.
    for (int64_t g = 0; g < groups; ++g) {
      std::vector<int64_t> next_port(static_cast<size_t>(a), p);
      for (int64_t i = 0; i < a; ++i) {
        for (int64_t j = i + 1; j < a; ++j) {
          port_edge(g * a + i, next_port[static_cast<size_t>(i)]++, g * a + j, next_port[static_cast<size_t>(j)]++,
                    "local_link");
        }
      }
    }
    // Global: one link per pair of groups, each group's ports taken in turn.
    std::vector<int64_t> used(static_cast<size_t>(groups), 0);  // global ports taken per group
    const auto take = [&](int64_t g) {
      const int64_t k = used[static_cast<size_t>(g)]++;
      return std::pair{g * a + k / h, p + (a - 1) + k % h};
    };
    for (int64_t gi = 0; gi < groups; ++gi) {
      for (int64_t gj = gi + 1; gj < groups; ++gj) {
        const auto [ri, pi] = take(gi);
        const auto [rj, pj] = take(gj);
        port_edge(ri, pi, rj, pj, "global_link");
      }
    }
    return out;
  }
};
SNR_REGISTER_BLUEPRINT(DragonflyBlueprint);

}  // namespace
}  // namespace snr::infra
