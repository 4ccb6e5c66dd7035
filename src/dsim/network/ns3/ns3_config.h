// The network configuration of the packet-level backend on ns-3
// (`--network-backend ns3`): the physical graph of NPUs and forwarding
// nodes (switches, NICs, PCIe switches) joined by full-duplex links, and the
// transport settings. `snr infra translate --backend ns3` writes it from an
// InfraGraph description; it can also be written by hand:
//
//   npus: 8                      # nodes 0..7 are the NPUs, in rank order
//   switches: 6                  # nodes 8..13 forward packets
//   node_names: [gpu0, ...]      # optional, one per node
//   links:                       # [from, to, Gb/s (10^9 bit/s), latency ns]
//     - [0, 8, 100, 200]
//   packet_payload_bytes: 1000   # bytes of message per packet
//   port_queue_bytes: 16777216   # per output port; a full queue drops
//   ecmp: flow                   # flow | packet | first
//   ecmp_seed: 1
//   logical_dims: [2, 4]         # optional: how collectives see the NPUs
//
// This file knows nothing of ns-3: the configuration is read, checked and
// translated even in a build without it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dsim/config/network_config.h"

namespace snr::dsim {

struct NetworkBackendSpec;

struct Ns3Link {
  uint32_t from = 0;
  uint32_t to = 0;
  double bandwidth_gbit_per_s = 0;  // 10^9 bit/s, each direction
  double latency_ns = 0;            // propagation, each direction
};

// How a node picks among next hops of equal distance to the destination.
enum class EcmpMode {
  kFlow,    // one hash of (message, source, destination): a message keeps one path
  kPacket,  // every packet drawn anew (spraying; packets may overtake each other)
  kFirst,   // always the lowest-numbered link (no multipath)
};
std::string_view ecmp_mode_name(EcmpMode mode);

// Valid ranges; every number from the file outside them is an error.
inline constexpr uint32_t kMaxNs3Nodes = 1u << 20;
inline constexpr double kMinNs3BandwidthGbitPerS = 1e-3;  // 1 Mb/s
inline constexpr double kMaxNs3BandwidthGbitPerS = 1e6;   // 1 Pb/s
inline constexpr double kMaxNs3LatencyNs = 1e9;           // 1 s
inline constexpr uint32_t kMinNs3PayloadBytes = 64;
inline constexpr uint32_t kMaxNs3PayloadBytes = 65000;  // below UDP's 65,507-byte limit
inline constexpr uint64_t kMaxNs3QueueBytes = 0xffffffffULL;  // ns-3 counts queue sizes in 32 bits

struct Ns3NetworkConfig final : NetworkBackendDetails {
  uint32_t npus = 0;
  uint32_t switches = 0;
  std::vector<std::string> node_names;  // empty, or one per node
  std::vector<Ns3Link> links;
  uint32_t packet_payload_bytes = 1000;
  uint64_t port_queue_bytes = uint64_t{16} << 20;
  EcmpMode ecmp = EcmpMode::kFlow;
  uint64_t ecmp_seed = 1;
  // The logical topology collectives are planned on, dimension 0 fastest,
  // each a Switch dimension (hierarchical collectives, as the analytical
  // translation of the same fabric plans them); empty: one dimension of
  // all NPUs (flat collectives). Packets take the physical paths either way.
  std::vector<uint32_t> logical_dims;

  [[nodiscard]] uint32_t node_count() const { return npus + switches; }
  [[nodiscard]] std::string node_name(uint32_t node) const;
};

// Reads and checks a configuration: unknown keys, numbers out of range, a
// link to a node that does not exist or to itself, and an NPU that cannot reach every other NPU are errors naming the
// key, the entry and its line. Parallel links (the same two nodes twice) are
// separate ports.
Ns3NetworkConfig parse_ns3_network(std::string_view text, std::string_view source);

// The configuration as YAML that parse_ns3_network reads back to the same
// value; `comment` (lines without '#') heads the file.
std::string ns3_network_yaml(const Ns3NetworkConfig& config, std::string_view comment);

// The topology the system layer plans collectives on: Switch dimensions of
// logical_dims (default: one of all NPUs; every NPU reaches every other
// through the fabric), each with the fastest NPU link's bandwidth; the
// config itself rides along for the backend.
NetworkConfig ns3_logical_topology(std::shared_ptr<const Ns3NetworkConfig> config);

// The registry entry (`ns3`). In a build without ns-3 its configuration
// still parses; creating the backend says how to enable it.
NetworkBackendSpec ns3_spec();

}  // namespace snr::dsim
