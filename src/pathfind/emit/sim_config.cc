#include "pathfind/emit/sim_config.h"

#include <fmt/format.h>

#include "common/error.h"

namespace snr::pathfind {
namespace {
// ASTRA-sim's analytical network reads GB/s of 2^30 B.
constexpr double kNetworkGigabyte = 1073741824.0;
std::string number(double value) { return fmt::format("{}", value); }
}  // namespace

hw::NetworkConfigFiles emit_sim_config(const DeviceSpec& device, const Prediction& r) {
  if (!r.system) throw Error("emit: the prediction has no system graph");
  std::string topology, npus, bandwidth, latency;
  size_t used = 0;
  for (const SystemDimension& d : r.system->dimensions()) {
    if (d.size < 2) continue;
    const NetworkTier& tier = device.network.at(d.tier);
    const bool switched = d.kind == SystemDimension::Kind::kSwitch;
    const char* sep = used++ == 0 ? "" : ", ";
    topology += sep + std::string(switched ? "Switch" : "Ring");
    npus += sep + std::to_string(d.size);
    bandwidth += sep + number(d.link_bandwidth_bytes_per_s * tier.efficiency / kNetworkGigabyte);
    // The analytical network charges latency per link crossed; a tier's
    // once-per-operation latency is spread over the 2(n−1) steps of an
    // all-reduce across the dimension, so that one costs what it predicts.
    const double step_latency_s = tier.latency_s + tier.operation_latency_s / (2.0 * static_cast<double>(d.size - 1));
    latency += sep + number(step_latency_s * 1e9 / (switched ? 2.0 : 1.0));
  }
  if (used == 0) throw Error("emit: snr sim needs at least two devices (one network dimension)");
  hw::NetworkConfigFiles files;
  files.network_yml = fmt::format(
      "# {} devices of {}, from snr pathfind emit: one dimension per system dimension,\n"
      "# link bandwidth x tier efficiency in GB/s of 2^30 B, latency per link in ns (the tier's\n"
      "# per-step latency plus its per-operation latency over an all-reduce's 2(n-1) steps).\n"
      "topology: [ {} ]\nnpus_count: [ {} ]\nbandwidth: [ {} ]\nlatency: [ {} ]\n",
      r.devices, device.name, topology, npus, bandwidth, latency);
  // COMP nodes carry the predicted durations; links carry the latency.
  files.system_json = hw::astra_system_json("ring", used, 0, device.main_memory().bandwidth_bytes_per_s,
                                            device.peak_flops_per_s(DType::kFp16));
  files.remote_memory_json = "{\n  \"memory-type\": \"NO_MEMORY_EXPANSION\"\n}\n";
  return files;
}

}  // namespace snr::pathfind
