// ASTRA-sim analytical network configuration (the --network-configuration
// YAML): one entry per dimension in each of the lists topology, npus_count,
// bandwidth (GB/s) and latency (ns). NPU ids are laid out with dimension 0
// varying fastest, as in ASTRA-sim.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace snr::dsim {

enum class TopologyKind { kRing, kFullyConnected, kSwitch };

struct NetworkDimension {
  TopologyKind topology = TopologyKind::kRing;
  uint32_t npus_count = 0;
  double bandwidth_gbps = 0;  // GB/s with 1 GB = 2^30 B, as ASTRA-sim's analytical network
  double latency_ns = 0;
};

struct NetworkConfig {
  std::vector<NetworkDimension> dimensions;
  [[nodiscard]] uint64_t npus_count() const;
};

NetworkConfig parse_network_config(std::string_view yaml_text, std::string_view source);
NetworkConfig load_network_config(const std::filesystem::path& path);

std::string_view topology_name(TopologyKind kind);

}  // namespace snr::dsim
