// The network configuration of the NoC-level backend for fabrics
// (`--network-backend noc`, seed 003 §4.5's "Simple" network on a general
// graph): named nodes (NPUs, then switches) joined by links with a
// bandwidth and a latency, and how messages are cut into segments and
// routed. `snr infra translate --backend noc` writes it from an InfraGraph
// description; it can also be written by hand:
//
//   npus: [gpu0, gpu1]            # nodes in rank order; or a count (npu0, npu1, ...)
//   switches: [leaf0]             # forwarding nodes; or a count (switch0, ...); optional
//   links:
//     - {from: gpu0, to: leaf0, bandwidth_gbps: 100, latency_ns: 200}   # both directions
//     - {from: leaf0, to: gpu1, bandwidth_gbps: 100, latency_ns: 200, bidirectional: false}
//   segment_bytes: 1024           # message bytes per segment (packet / flit)
//   segment_header_bytes: 0       # wire bytes each segment adds (headers)
//   ecmp: flow                    # how equal shortest paths are chosen: flow | first
//   ecmp_seed: 1
//   logical_dims: [2, 4]          # optional: how collectives see the NPUs
//
// Gb/s are 10^9 bit/s, in each direction a link runs. Every key, name and
// number is checked: unknown keys, numbers out of range, a link naming no
// node, and NPUs that cannot reach each other are errors naming the key and
// its line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dsim/config/network_config.h"

namespace snr::dsim {

struct NetworkBackendSpec;

struct NocFabricLink {
  uint32_t from = 0;  // node index: NPUs first, then switches
  uint32_t to = 0;
  double bandwidth_gbps = 0;  // 10^9 bit/s, each direction
  double latency_ns = 0;      // per traversal
  bool bidirectional = true;  // false: from -> to only
};

// Valid ranges; every number from the file outside them is an error.
inline constexpr uint32_t kMaxNocFabricNodes = 1u << 20;
inline constexpr double kMinNocFabricBandwidthGbps = 1e-3;  // 1 Mb/s
inline constexpr double kMaxNocFabricBandwidthGbps = 1e6;   // 1 Pb/s
inline constexpr double kMaxNocFabricLatencyNs = 1e9;       // 1 s
// Segments from an 8-byte flit to a 1 GiB message sent whole (message-level
// store and forward, as the analytical congestion-aware backend does).
inline constexpr uint64_t kMinNocSegmentBytes = 8;
inline constexpr uint64_t kMaxNocSegmentBytes = uint64_t{1} << 30;
inline constexpr uint64_t kMaxNocSegmentHeaderBytes = 65536;
// The default: a 1 KiB packet, near ns-3's 1,000-byte payload; a message of
// 1 MiB is then 1,024 segments, enough to pipeline across hops.
inline constexpr uint64_t kDefaultNocSegmentBytes = 1024;

struct NocFabricConfig final : NetworkBackendDetails {
  std::vector<std::string> npu_names;     // nodes 0..N-1, rank order
  std::vector<std::string> switch_names;  // nodes N..
  std::vector<NocFabricLink> links;
  uint64_t segment_bytes = kDefaultNocSegmentBytes;
  uint64_t segment_header_bytes = 0;
  std::string ecmp = "flow";  // a name of noc_ecmp_policies()
  uint64_t ecmp_seed = 1;
  // The logical topology collectives are planned on (dimension 0 fastest,
  // Switch dimensions); empty: one dimension of all NPUs.
  std::vector<uint32_t> logical_dims;

  [[nodiscard]] uint32_t npus() const { return static_cast<uint32_t>(npu_names.size()); }
  [[nodiscard]] uint32_t node_count() const { return static_cast<uint32_t>(npu_names.size() + switch_names.size()); }
  [[nodiscard]] const std::string& node_name(uint32_t node) const {
    return node < npus() ? npu_names[node] : switch_names[node - npus()];
  }
};

// Reads and checks a configuration (see above). Throws snr::Error.
NocFabricConfig parse_noc_fabric(std::string_view text, std::string_view source);

// YAML that parse_noc_fabric reads back to the same configuration;
// `comment` (lines without '#') heads the file.
std::string noc_fabric_yaml(const NocFabricConfig& config, std::string_view comment);

// The topology the system layer plans collectives on: Switch dimensions of
// logical_dims (default one of all NPUs), each with the fastest NPU link's
// bandwidth; the configuration rides along for the backend.
NetworkConfig noc_fabric_logical_topology(std::shared_ptr<const NocFabricConfig> config);

// The registry entry (`noc`).
NetworkBackendSpec noc_fabric_spec();

}  // namespace snr::dsim
