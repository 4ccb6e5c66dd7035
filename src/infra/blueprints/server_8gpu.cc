// A generic 8-GPU server: GPUs on NVLink switches (scale-up), GPUs and NICs
// in pairs behind PCIe switches, two CPUs on a CPU fabric, each CPU owning
// half of the PCIe switches.
#include <fmt/format.h>

#include "infra/blueprints/blueprint.h"

namespace snr::infra {
namespace {

using infragraph::ComponentChoice;
using infragraph::Scheme;

class Server8GpuBlueprint final : public Blueprint {
 public:
  std::string_view name() const override { return "server-8gpu"; }
  std::string_view description() const override {
    return "device: 8 GPUs on NVLink switches, GPU+NIC pairs on PCIe switches, 2 CPUs";
  }
  bool is_device() const override { return true; }
  std::vector<BlueprintParameter> parameters() const override {
    return {{"gpus", "8", "xpu components (even); as many NICs, one PCIe switch per GPU pair"},
            {"nvswitches", "4", "NVLink switch components; every GPU links to every one"},
            {"nvlink_gbps", "900", "bandwidth of one GPU-NVSwitch link, Gb/s"},
            {"nvlink_latency_ns", "0", "NVLink latency, ns"},
            {"pcie_gbps", "512", "PCIe link bandwidth, Gb/s"},
            {"cpu_fabric_gbps", "512", "CPU-CPU fabric bandwidth, Gb/s"}};
  }
  infragraph::Infrastructure build(const BlueprintArgs& args) const override {
    const int64_t gpus = args.get_int("gpus", 2, 4096);
    if (gpus % 2 != 0) args.fail("gpus", "must be even (GPUs share PCIe switches in pairs)");
    const int64_t nvs = args.get_int("nvswitches", 1, 1024);
    const int64_t pairs = gpus / 2;
    infragraph::Device d;
    d.name = "server";
    d.description = fmt::format("generic {}-GPU server", gpus);
    d.components = {{"cpu", "CPU", 2, ComponentChoice::kCpu, "", 0},
                    {"xpu", "GPU", gpus, ComponentChoice::kXpu, "", 0},
                    {"nvsw", "NVLink switch", nvs, ComponentChoice::kSwitch, "", 0},
                    {"pciesw", "PCIe switch", pairs, ComponentChoice::kSwitch, "", 0},
                    {"nic", "scale-out NIC", gpus, ComponentChoice::kNic, "", 0}};
    d.links = {make_link("nvlink", "GPU to NVLink switch", args.get_number("nvlink_gbps", 1e-3, 1e9),
                         args.get_number("nvlink_latency_ns", 0, 1e12)),
               make_link("pcie", "PCIe", args.get_number("pcie_gbps", 1e-3, 1e9)),
               make_link("cpu_fabric", "CPU to CPU", args.get_number("cpu_fabric_gbps", 1e-3, 1e9))};
    const std::string half = std::to_string(pairs / 2 > 0 ? pairs / 2 : 1);
    d.edges = {device_edge("cpu", "cpu", Scheme::kMany2Many, "cpu_fabric"),
               device_edge("xpu", "nvsw", Scheme::kMany2Many, "nvlink"),
               device_edge("xpu[0::2]", "pciesw", Scheme::kOne2One, "pcie"),
               device_edge("xpu[1::2]", "pciesw", Scheme::kOne2One, "pcie"),
               device_edge("nic[0::2]", "pciesw", Scheme::kOne2One, "pcie"),
               device_edge("nic[1::2]", "pciesw", Scheme::kOne2One, "pcie"),
               device_edge("cpu[0]", fmt::format("pciesw[0:{}]", half), Scheme::kMany2Many, "pcie")};
    if (pairs > 1) d.edges.push_back(device_edge("cpu[1]", fmt::format("pciesw[{}:]", half), Scheme::kMany2Many, "pcie"));
    infragraph::Infrastructure out;
    out.bare_device = true;
    out.name = d.name;
    out.devices.push_back(std::move(d));
    return out;
  }
};
SNR_REGISTER_BLUEPRINT(Server8GpuBlueprint);

}  // namespace
}  // namespace snr::infra
