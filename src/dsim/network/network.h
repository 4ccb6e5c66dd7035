// The narrow waist between the system layer and a network backend. A backend
// moves messages between NPUs; it keeps its own state and schedules its own
// events straight on the simulator's event queue (no call back into the
// host per message): kNetworkHop for its own steps, which come back through
// handle_event, and kMessageArrived when a message reaches its destination,
// which the simulator loop hands to the host. Same event slot as a last hop,
// so the (time, scheduling order) tie rule does not depend on who delivers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dsim/config/network_config.h"
#include "dsim/core/event_queue.h"

namespace snr::dsim {

using MessageId = uint32_t;

// Told of a message delivered without an event (source == destination).
class NetworkHost {
 public:
  virtual ~NetworkHost() = default;
  virtual void message_arrived(MessageId message) = 0;
};

struct LinkStats {
  std::string name;  // "npu3->npu4", "npu3->switch(dim0)"
  uint64_t bytes = 0;
  uint64_t messages = 0;
  uint64_t busy_ns = 0;
};

class NetworkBackend {
 public:
  virtual ~NetworkBackend() = default;
  // Injects `bytes` from src to dst now; message_arrived follows later.
  virtual void send(MessageId message, NpuId src, NpuId dst, uint64_t bytes) = 0;
  virtual void handle_event(MessageId message) = 0;
  // Per-link statistics of links that carried traffic, in a stable order.
  [[nodiscard]] virtual std::vector<LinkStats> link_stats() const = 0;
  [[nodiscard]] virtual std::string name() const = 0;
};

// ASTRA-sim's analytical network counts 1 GB as 2^30 bytes.
inline double gbps_to_bytes_per_ns(double gbps) { return gbps * 1073741824.0 / 1e9; }

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
