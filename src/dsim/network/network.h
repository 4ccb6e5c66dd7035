// The narrow waist between whoever sends messages (the collective engine,
// point-to-point sends) and a network backend. A backend moves messages
// between NPUs; it keeps its own state, registers its own handler on the
// event loop for its own steps (hops), and when a message reaches its
// destination schedules a MessageArrived event for the handler the sender
// named — the same event slot a last hop would take, so the (time,
// scheduling order) tie rule does not depend on who delivers. Backends know
// nothing about collectives, traces or who the senders are.
// Backends are chosen by name through the registry (registry.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dsim/config/network_config.h"
#include "dsim/core/event_loop.h"

namespace snr::dsim {

class LinkBandwidthFactors;  // dsim/perturbation/perturbation.h

// A sender's own name for a message (each sender has its own id space).
using MessageId = uint32_t;

// Delivered to the sender's handler when a message arrives; every handler
// that sends messages reserves this kind for it.
struct MessageArrived {
  static constexpr uint8_t kKind = 0;
  MessageId message;
};

struct LinkStats {
  std::string name;  // "npu3->npu4", "npu3->switch(dim0)"
  uint64_t bytes = 0;
  uint64_t messages = 0;
  uint64_t busy_ns = 0;
};

// One message as a packet-level backend carried it: injected at the
// sender at start_ns, its last byte received at end_ns.
struct FlowStats {
  MessageId message = 0;
  NpuId src = 0;
  NpuId dst = 0;
  uint64_t bytes = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  [[nodiscard]] TimeNs completion_ns() const { return end_ns - start_ns; }
};

// Packet counters of a packet-level backend.
struct PacketStats {
  uint64_t packets_sent = 0;     // by the NPUs
  uint64_t packets_dropped = 0;  // anywhere (a full port queue)
  uint64_t max_queue_bytes = 0;  // the deepest any port queue got
  std::string max_queue_port;    // where ("node 3 -> node 9")
};

class NetworkBackend {
 public:
  virtual ~NetworkBackend() = default;
  // Injects `bytes` from src to dst now; a MessageArrived{message} event
  // for `deliver_to` follows (delivered at once when src == dst).
  virtual void send(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to) = 0;
  // Per-link statistics of links that carried traffic, in a stable order.
  [[nodiscard]] virtual std::vector<LinkStats> link_stats() const = 0;
  [[nodiscard]] virtual std::string name() const = 0;
  // Scales link bandwidths (stragglers and heterogeneity, see
  // dsim/perturbation); called at most once, before the first send. Each
  // backend maps the factors onto its own links; one that has no per-link
  // model keeps this default, which refuses with the backend's name.
  virtual void set_bandwidth_factors(const LinkBandwidthFactors& factors);
  // Per-message records and packet counters, from backends that model
  // packets (none from the analytical ones).
  [[nodiscard]] virtual std::vector<FlowStats> flow_stats() const { return {}; }
  [[nodiscard]] virtual std::optional<PacketStats> packet_stats() const { return std::nullopt; }
  // What the run should tell the user about how this backend treated it
  // (printed as notes after the results).
  [[nodiscard]] virtual std::vector<std::string> notes() const { return {}; }
};

// A duration computed in floating point as whole ns, truncated as ASTRA-sim
// does; throws snr::Error when it does not fit (a bandwidth factor so small
// that a message would take longer than 2^63 ns).
TimeNs checked_truncated_ns(double ns, std::string_view what);

// ASTRA-sim's analytical network counts 1 GB as 2^30 bytes.
inline double gib_per_s_to_bytes_per_ns(double gib_per_s) { return gib_per_s * 1073741824.0 / 1e9; }

// Multi-dimensional address helpers (dimension 0 varies fastest).
class DimensionLayout {
 public:
  explicit DimensionLayout(const NetworkConfig& config);
  [[nodiscard]] size_t dims() const { return sizes_.size(); }
  [[nodiscard]] uint32_t size(size_t dim) const { return sizes_[dim]; }
  [[nodiscard]] uint64_t stride(size_t dim) const { return strides_[dim]; }
  [[nodiscard]] uint32_t coordinate(NpuId npu, size_t dim) const {
    return static_cast<uint32_t>((npu / strides_[dim]) % sizes_[dim]);
  }
  [[nodiscard]] NpuId with_coordinate(NpuId npu, size_t dim, uint32_t coordinate) const {
    return static_cast<NpuId>(npu - coordinate_of(npu, dim) * strides_[dim] + coordinate * strides_[dim]);
  }

 private:
  [[nodiscard]] uint64_t coordinate_of(NpuId npu, size_t dim) const { return coordinate(npu, dim); }
  std::vector<uint32_t> sizes_;
  std::vector<uint64_t> strides_;
};

// Hops inside one dimension between two coordinates (Ring: shortest way
// around, bidirectional; FullyConnected: 1; Switch: 2). Inline: the
// congestion-unaware backend asks once per message.
inline int hops_in_dimension(TopologyKind topology, uint32_t size, uint32_t from, uint32_t to) {
  if (from == to) return 0;
  switch (topology) {
    case TopologyKind::kRing: {
      const uint32_t clockwise = to >= from ? to - from : to + size - from;
      const uint32_t anticlockwise = size - clockwise;
      return static_cast<int>(anticlockwise < clockwise ? anticlockwise : clockwise);
    }
    case TopologyKind::kFullyConnected: return 1;
    case TopologyKind::kSwitch: return 2;
  }
  return 0;
}

}  // namespace snr::dsim
