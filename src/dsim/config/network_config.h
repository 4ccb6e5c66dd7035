// ASTRA-sim analytical network configuration (the --network-configuration
// YAML): one entry per dimension in each of the lists topology, npus_count,
// bandwidth (GB/s) and latency (ns). NPU ids are laid out with dimension 0
// varying fastest, as in ASTRA-sim.
//
// Every number has a valid range (errors name the key, the value and the
// range): outside it the analytical cost (bytes / bandwidth + latency, in
// whole ns) would leave 64-bit time or lose all meaning — at 1e-15 GB/s a
// 1 MB message would take 10^24 ns.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <string_view>
#include <vector>

namespace snr::dsim {

enum class TopologyKind { kRing, kFullyConnected, kSwitch };

struct NetworkDimension {
  TopologyKind topology = TopologyKind::kRing;
  uint32_t npus_count = 0;
  double bandwidth_gib_per_s = 0;  // the file says GB/s but, as ASTRA-sim's analytical network, means 2^30 B/s
  double latency_ns = 0;
};

// Valid ranges. Bandwidth: 10^-4 .. 10^6 GB/s of 2^30 B, about 100 kB/s ..
// 1 PB/s: every link `snr hw` accepts (1 MB/s .. 1 PB/s) fits, and a
// 2^50-byte message, the largest the workload accepts, then takes at most
// ~10^19 ns. Latency:
// 0 .. 1 s per hop. NPUs: 1 .. 2^24 in total; a dimension of one NPU is
// valid only as the only dimension (a single-NPU system, e.g. a one-GPU
// trace), every other dimension has at least 2.
inline constexpr double kMinBandwidthGibPerS = 1e-4;
inline constexpr double kMaxBandwidthGibPerS = 1e6;
inline constexpr double kMaxLatencyNs = 1e9;
inline constexpr uint64_t kMaxNetworkNpus = uint64_t{1} << 24;

// What a backend reads from its own network configuration beyond the
// logical topology the system layer plans on (the packet-level backend's
// physical graph of switches and links). Each such backend derives its own
// and finds it again when it is created; the analytical backends have none.
class NetworkBackendDetails {
 public:
  virtual ~NetworkBackendDetails() = default;
};

struct NetworkConfig {
  std::vector<NetworkDimension> dimensions;
  std::shared_ptr<const NetworkBackendDetails> backend_details;
  [[nodiscard]] uint64_t npus_count() const;
};

// `backend_keys`: keys a backend reads itself from the same file (skipped here).
NetworkConfig parse_network_config(std::string_view yaml_text, std::string_view source,
                                   std::initializer_list<std::string_view> backend_keys = {});
NetworkConfig load_network_config(const std::filesystem::path& path);

std::string_view topology_name(TopologyKind kind);

}  // namespace snr::dsim
