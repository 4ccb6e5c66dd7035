#include "hw/network_export.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"
#include "common/output.h"
#include "hw/topology.h"

namespace snr::hw {
namespace {

// ASTRA-sim's analytical network reads bandwidth in GB/s with 1 GB = 2^30 B
// (and 1 s = 10^9 ns); its system layer's local-mem-bw in 10^9 B/s.
constexpr double kNetworkGigabyte = 1073741824.0;
constexpr double kSystemGigabyte = 1e9;
constexpr uint64_t kMatrixUnitFlopsPerCycle = 2ull * 128 * 128;

struct Dimension {
  std::string topology;
  uint64_t npus = 0;
};

std::vector<Dimension> dimensions(const HwConfig& config) {
  const Topology topology(config);  // validates the shape against ici.links_per_chip
  const uint64_t n = topology.chip_count();
  if (n < 2) throw Error(fmt::format("export-network: a network needs at least 2 chips, the config has {}", n));
  switch (config.topology) {
    case TopologyKind::kRing: return {{"Ring", n}};
    case TopologyKind::kFullyConnected: return {{"FullyConnected", n}};
    case TopologyKind::kTorus2d: {
      // Chip id = y * width + x and routes go X first: dimension 0 (the
      // fastest-varying in ASTRA-sim's NPU ids, routed first) is X.
      const uint64_t width = topology.torus_width(), height = n / width;
      std::vector<Dimension> dims;
      if (width >= 2) dims.push_back({"Ring", width});
      if (height >= 2) dims.push_back({"Ring", height});
      return dims;
    }
  }
  throw Error("export-network: unknown topology kind");
}

// Shortest decimal text that reads back as the same double.
std::string number(double value) { return fmt::format("{}", value); }

}  // namespace

NetworkConfigFiles export_network(const HwConfig& config) {
  const std::vector<Dimension> dims = dimensions(config);
  const double link_gb_per_s = config.ici_link_bandwidth.bytes_per_second / kNetworkGigabyte;
  const double hop_ns = config.ici_hop_latency.nanoseconds();
  NetworkConfigFiles files;
  std::string topology, npus, bandwidth, latency;
  for (size_t d = 0; d < dims.size(); ++d) {
    const char* sep = d == 0 ? "" : ", ";
    topology += sep + dims[d].topology;
    npus += sep + std::to_string(dims[d].npus);
    bandwidth += sep + number(link_gb_per_s);
    latency += sep + number(hop_ns);
  }
  files.network_yml = fmt::format(
      "# {} chips of {} ({}), from snr hw export-network.\n"
      "# bandwidth: ici.link_bandwidth {} B/s per directed link, in GB/s of 2^30 B;\n"
      "# latency: ici.hop_latency in ns per hop.\n"
      "topology: [ {} ]\nnpus_count: [ {} ]\nbandwidth: [ {} ]\nlatency: [ {} ]\n",
      config.chip_count, config.preset_name, Topology(config).describe(),
      number(config.ici_link_bandwidth.bytes_per_second), topology, npus, bandwidth, latency);

  // A flattened direct algorithm over all NPUs is what the compiler emits
  // (every chip DMAs each peer directly, routed through the torus); on one
  // dimension it is plain `direct`.
  const std::string algorithm = dims.size() == 1 ? "direct" : "oneDirect";
  // DMAs queue FIFO on their link, one DMA per peer (not split into chunks).
  files.system_json = astra_system_json(
      algorithm, dims.size(), static_cast<int64_t>(std::ceil(config.dma_base_latency.nanoseconds())),
      config.vmem_bandwidth.bytes_per_second,
      config.clock.hertz * static_cast<double>(config.mxu_count * kMatrixUnitFlopsPerCycle));
  files.remote_memory_json = "{\n  \"memory-type\": \"NO_MEMORY_EXPANSION\"\n}\n";
  return files;
}

std::string astra_system_json(const std::string& algorithm, size_t dimensions, int64_t endpoint_delay_ns,
                              double local_mem_bytes_per_s, double peak_flops_per_s) {
  const std::vector<std::string> per_dim(dimensions, algorithm);
  nlohmann::ordered_json system;
  system["scheduling-policy"] = "FIFO";
  system["endpoint-delay"] = endpoint_delay_ns;
  system["active-chunks-per-dimension"] = 1;
  system["preferred-dataset-splits"] = 1;
  system["collective-optimization"] = "baseline";
  system["local-mem-bw"] = local_mem_bytes_per_s / kSystemGigabyte;
  system["peak-perf"] = peak_flops_per_s / 1e12;
  system["roofline-enabled"] = 0;
  system["all-reduce-implementation"] = per_dim;
  system["all-gather-implementation"] = per_dim;
  system["reduce-scatter-implementation"] = per_dim;
  system["all-to-all-implementation"] = per_dim;
  return system.dump(2) + "\n";
}

void write_network_config(const NetworkConfigFiles& files, const std::filesystem::path& directory) {
  output::StagedDirectory staged(directory);
  write_file_atomic(staged.path() / "network.yml", files.network_yml);
  write_file_atomic(staged.path() / "system.json", files.system_json);
  write_file_atomic(staged.path() / "remote_memory.json", files.remote_memory_json);
  staged.commit();
}

}  // namespace snr::hw
