// The NoC-level GPU of seed 003 §5.1: a mesh of routers (8 × 4), four
// compute units per router, HBM channels on the top and bottom rows and I/O
// ports on the left and right columns. Router r sits at column r % mesh_x,
// row r / mesh_x.
#include <fmt/format.h>

#include "infra/blueprints/blueprint.h"

namespace snr::infra {
namespace {

using infragraph::ComponentChoice;
using infragraph::Scheme;

class NocGpuBlueprint final : public Blueprint {
 public:
  std::string_view name() const override { return "noc-gpu"; }
  std::string_view description() const override {
    return "device: GPU as a 2-D mesh NoC with CUs, HBM channels and I/O ports (seed 003 §5.1)";
  }
  bool is_device() const override { return true; }
  std::vector<BlueprintParameter> parameters() const override {
    // 1 TiB/s = 1.099511627776 TB/s.
    return {{"mesh_x", "8", "routers per row"},
            {"mesh_y", "4", "rows of routers"},
            {"cus_per_router", "4", "compute units on each router"},
            {"hbm_per_side", "16", "HBM channels on the top row and as many on the bottom (multiple of mesh_x)"},
            {"io_per_side", "4", "I/O ports on the left column and as many on the right (multiple of mesh_y)"},
            {"noc_gbytes_per_s", "1099.511627776", "router-router and router-CU link bandwidth, GB/s (1 TiB/s)"},
            {"hbm_total_gbytes_per_s", "4398.046511104", "all HBM channels together, GB/s (4 TiB/s)"},
            {"io_total_gbytes_per_s", "1099.511627776", "all I/O ports together, GB/s (1 TiB/s)"},
            {"io_latency_ns", "1000", "I/O port link latency, ns"}};
  }
  infragraph::Infrastructure build(const BlueprintArgs& args) const override {
    const int64_t mx = args.get_int("mesh_x", 1, 1024);
    const int64_t my = args.get_int("mesh_y", 2, 1024);
    const int64_t cus = args.get_int("cus_per_router", 1, 1024);
    const int64_t hbm = args.get_int("hbm_per_side", 1, 1 << 16);
    const int64_t io = args.get_int("io_per_side", 1, 1 << 16);
    if (hbm % mx != 0) args.fail("hbm_per_side", fmt::format("{} is not a multiple of mesh_x {}", hbm, mx));
    if (io % my != 0) args.fail("io_per_side", fmt::format("{} is not a multiple of mesh_y {}", io, my));
    const int64_t routers = mx * my;
    infragraph::Device d;
    d.name = "gpu";
    d.description = fmt::format("GPU, {}x{} mesh NoC, {} CUs, {} HBM channels, {} I/O ports", mx, my, routers * cus,
                                2 * hbm, 2 * io);
    d.components = {{"router", "NoC router", routers, ComponentChoice::kSwitch, "", 0},
                    {"cu", "compute unit", routers * cus, ComponentChoice::kCustom, "compute_unit", 0},
                    {"hbm", "HBM channel", 2 * hbm, ComponentChoice::kMemory, "", 0},
                    {"io", "scale-up I/O port", 2 * io, ComponentChoice::kPort, "", 0}};
    const double noc = args.get_number("noc_gbytes_per_s", 1e-6, 1e12);
    d.links = {make_link_gigabytes("noc", "on-chip link", noc),
               make_link_gigabytes("hbm", "HBM channel", args.get_number("hbm_total_gbytes_per_s", 1e-6, 1e12) /
                                                             static_cast<double>(2 * hbm)),
               make_link_gigabytes("io", "I/O port", args.get_number("io_total_gbytes_per_s", 1e-6, 1e12) /
                                                         static_cast<double>(2 * io),
                                   args.get_number("io_latency_ns", 0, 1e12))};
    // Mesh: each row's routers to their right neighbours, each router to the one below.
    for (int64_t y = 0; y < my && mx > 1; ++y) {
      d.edges.push_back(device_edge(fmt::format("router[{}:{}]", y * mx, y * mx + mx - 1),
                                    fmt::format("router[{}:{}]", y * mx + 1, y * mx + mx), Scheme::kOne2One, "noc"));
    }
    d.edges.push_back(device_edge(fmt::format("router[0:{}]", routers - mx), fmt::format("router[{}:{}]", mx, routers),
                                  Scheme::kOne2One, "noc"));
    // CU c sits on router c / cus_per_router.
    for (int64_t k = 0; k < cus; ++k) {
      d.edges.push_back(device_edge(fmt::format("cu[{}:{}:{}]", k, routers * cus, cus), "router", Scheme::kOne2One, "noc"));
    }
    // HBM: channel h of the top side on router h % mx of row 0; bottom side on row my-1.
    for (int64_t k = 0; k < hbm / mx; ++k) {
      d.edges.push_back(device_edge(fmt::format("hbm[{}:{}]", k * mx, (k + 1) * mx), fmt::format("router[0:{}]", mx),
                                    Scheme::kOne2One, "hbm"));
      d.edges.push_back(device_edge(fmt::format("hbm[{}:{}]", hbm + k * mx, hbm + (k + 1) * mx),
                                    fmt::format("router[{}:{}]", routers - mx, routers), Scheme::kOne2One, "hbm"));
    }
    // I/O: port p of the left side on row p % my of column 0; right side on column mx-1.
    for (int64_t k = 0; k < io / my; ++k) {
      d.edges.push_back(device_edge(fmt::format("io[{}:{}]", k * my, (k + 1) * my),
                                    fmt::format("router[0:{}:{}]", routers, mx), Scheme::kOne2One, "io"));
      d.edges.push_back(device_edge(fmt::format("io[{}:{}]", io + k * my, io + (k + 1) * my),
                                    fmt::format("router[{}:{}:{}]", mx - 1, routers, mx), Scheme::kOne2One, "io"));
    }
    infragraph::Infrastructure out;
    out.bare_device = true;
    out.name = d.name;
    out.devices.push_back(std::move(d));
    return out;
  }
};
SNR_REGISTER_BLUEPRINT(NocGpuBlueprint);

}  // namespace
}  // namespace snr::infra
