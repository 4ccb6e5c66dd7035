// A rack of accelerators on a 3-D torus of direct chip-to-chip links (TPU
// ICI), with host CPUs on PCIe and one NIC per CPU: InfraGraph's
// IronwoodRack (64 XPUs in 4x4x4, 32 CPUs, 32 NICs, 1,400 Gb/s ICI, PCIe
// Gen5 at 128 Gb/s) with its dimensions and rates as parameters.
//
// XPU index = x + X·(y + Y·z); each XPU links to its +1 neighbour along
// every dimension, wrapping around (so a dimension of size s has s links per
// ring; InfraGraph's builder writes the same edges). CPU i links to XPUs
// xpus_per_cpu·i .. + xpus_per_cpu - 1 and to NIC i.
#include <fmt/format.h>

#include "infra/blueprints/blueprint.h"

namespace snr::infra {
namespace {

using infragraph::ComponentChoice;
using infragraph::Scheme;

class TorusRackBlueprint final : public Blueprint {
 public:
  std::string_view name() const override { return "torus-rack"; }
  std::string_view description() const override {
    return "device: XPUs on an X x Y x Z torus of direct links, CPUs on PCIe, a NIC per CPU (IronwoodRack)";
  }
  bool is_device() const override { return true; }
  std::vector<BlueprintParameter> parameters() const override {
    return {{"x", "4", "XPUs along the first dimension (3 or more)"},
            {"y", "4", "XPUs along the second dimension (1, or 3 or more)"},
            {"z", "4", "XPUs along the third dimension (1, or 3 or more)"},
            {"xpus_per_cpu", "2", "XPUs on each CPU's PCIe (divides the XPUs); one NIC per CPU"},
            {"ici_gbps", "1400", "chip-to-chip link bandwidth, Gb/s"},
            {"ici_latency_ns", "0", "chip-to-chip link latency, ns"},
            {"pcie_gbps", "128", "PCIe link bandwidth, Gb/s"}};
  }
  infragraph::Infrastructure build(const BlueprintArgs& args) const override {
    // A ring of 2 would be two parallel links between one pair: sizes 1 or >= 3.
    const auto size = [&](const char* name, int64_t min) {
      const int64_t s = args.get_int(name, min, 1 << 10);
      if (s == 2) args.fail(name, "2 is not a torus ring (its two links would join one pair); use 1 or 3 or more");
      return s;
    };
    const int64_t x = size("x", 3), y = size("y", 1), z = size("z", 1);
    const int64_t xpus = x * y * z;
    if (xpus > (int64_t{1} << 16)) args.fail("x", fmt::format("{} XPUs, more than 2^16 in one rack", xpus));
    const int64_t per_cpu = args.get_int("xpus_per_cpu", 1, xpus);
    if (xpus % per_cpu != 0) args.fail("xpus_per_cpu", fmt::format("{} does not divide {} XPUs", per_cpu, xpus));
    const int64_t cpus = xpus / per_cpu;

    infragraph::Device d;
    d.name = "torus_rack";
    d.description = fmt::format("{} XPUs in a {}x{}x{} torus, {} CPUs, {} NICs", xpus, x, y, z, cpus, cpus);
    d.components = {{"xpu", "accelerator", xpus, ComponentChoice::kXpu, "", 0},
                    {"cpu", "host CPU", cpus, ComponentChoice::kCpu, "", 0},
                    {"nic", "scale-out NIC", cpus, ComponentChoice::kNic, "", 0}};
    d.links = {make_link("ici", "chip-to-chip link", args.get_number("ici_gbps", 1e-3, 1e9),
                         args.get_number("ici_latency_ns", 0, 1e12)),
               make_link("pcie", "PCIe", args.get_number("pcie_gbps", 1e-3, 1e9))};
    const auto index = [&](int64_t i, int64_t j, int64_t k) { return i + x * (j + y * k); };
    const auto ici = [&](int64_t a, int64_t b) {
      d.edges.push_back(device_edge(fmt::format("xpu[{}]", a), fmt::format("xpu[{}]", b), Scheme::kOne2One, "ici"));
    };
    for (int64_t k = 0; k < z; ++k) {
      for (int64_t j = 0; j < y; ++j) {
        for (int64_t i = 0; i < x; ++i) {
          const int64_t here = index(i, j, k);
          ici(here, index((i + 1) % x, j, k));
          if (y > 1) ici(here, index(i, (j + 1) % y, k));
          if (z > 1) ici(here, index(i, j, (k + 1) % z));
        }
      }
    }
    for (int64_t c = 0; c < cpus; ++c) {
      d.edges.push_back(device_edge(fmt::format("cpu[{}]", c),
                                    fmt::format("xpu[{}:{}]", c * per_cpu, (c + 1) * per_cpu), Scheme::kMany2Many,
                                    "pcie"));
    }
    d.edges.push_back(device_edge("cpu", "nic", Scheme::kOne2One, "pcie"));
    infragraph::Infrastructure out;
    out.bare_device = true;
    out.name = d.name;
    out.devices.push_back(std::move(d));
    return out;
  }
};
SNR_REGISTER_BLUEPRINT(TorusRackBlueprint);

}  // namespace
}  // namespace snr::infra
