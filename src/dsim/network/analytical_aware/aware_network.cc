#include "dsim/network/analytical_aware/aware_network.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"

namespace snr::dsim {

AwareNetwork::AwareNetwork(const NetworkConfig& config, EventQueue& events, NetworkHost& host)
    : config_(config), layout_(config), events_(events), host_(host) {
  const uint64_t npus = config.npus_count();
  for (size_t d = 0; d < config.dimensions.size(); ++d) {
    const auto& dim = config.dimensions[d];
    Dim spec;
    spec.topology = dim.topology;
    spec.size = dim.npus_count;
    spec.stride = layout_.stride(d);
    spec.bytes_per_ns = gbps_to_bytes_per_ns(dim.bandwidth_gbps);
    spec.latency_ns = dim.latency_ns;
    dims_.push_back(spec);
    dense_links_.emplace_back(dim.topology == TopologyKind::kFullyConnected ? 0 : 2 * npus);
  }
  ring_1d_ = dims_.size() == 1 && dims_[0].topology == TopologyKind::kRing;
}

void AwareNetwork::send(MessageId message, NpuId src, NpuId dst, uint64_t bytes) {
  if (!ring_1d_ || src == dst) {
    send_general(message, src, dst, bytes);
    return;
  }
  // One-dimensional Ring, the most common case: forward()'s arithmetic
  // without the dimension search, as NPU ids are ring positions.
  Dim& spec = dims_[0];
  const uint32_t n = spec.size;
  const uint32_t clockwise = dst >= src ? dst - src : dst + n - src;
  const uint32_t anticlockwise = n - clockwise;
  const bool go_clockwise = anticlockwise >= clockwise;  // ties go clockwise
  Link& link = dense_links_[0][2 * static_cast<uint64_t>(src) + (go_clockwise ? 0 : 1)];
  TimeNs serialization_ns;
  TimeNs hop_ns;
  spec.cost(bytes, serialization_ns, hop_ns);
  const TimeNs start = std::max(events_.now(), link.free_at_ns);
  link.free_at_ns = start + serialization_ns;
  link.bytes += bytes;
  link.messages += 1;
  link.busy_ns += serialization_ns;
  const TimeNs hop_done_ns = start + hop_ns;
  if ((go_clockwise ? clockwise : anticlockwise) == 1) {
    events_.schedule(hop_done_ns, EventKind::kMessageArrived, message);
    return;
  }
  const NpuId next_at = go_clockwise ? (src + 1 == n ? 0 : src + 1) : (src == 0 ? n - 1 : src - 1);
  keep_in_flight(message, InFlight{next_at, dst, bytes, -1, true}, hop_done_ns);
}

void AwareNetwork::keep_in_flight(MessageId message, const InFlight& m, TimeNs hop_done_ns) {
  if (in_flight_.size() <= message) in_flight_.resize(message + 1);
  in_flight_[message] = m;
  events_.schedule(hop_done_ns, EventKind::kNetworkHop, message);
}

void AwareNetwork::send_general(MessageId message, NpuId src, NpuId dst, uint64_t bytes) {
  InFlight m{src, dst, bytes, -1, true};
  // Most messages (ring neighbours, fully connected peers) take one hop and
  // need no state here: only multi-hop ones are remembered.
  if (forward(message, m)) {
    if (in_flight_.size() <= message) in_flight_.resize(message + 1);
    in_flight_[message] = m;
  }
}

AwareNetwork::Link& AwareNetwork::link_for(size_t dim, NpuId from, uint32_t a, uint32_t b, int16_t& next_switch_dim,
                                           NpuId& next_at) {
  const Dim& spec = dims_[dim];
  switch (spec.topology) {
    case TopologyKind::kRing: {
      const uint32_t n = spec.size;
      const uint32_t clockwise = b >= a ? b - a : b + n - a;
      const bool go_clockwise = (n - clockwise) >= clockwise;  // ties go clockwise
      const uint32_t next = go_clockwise ? (a + 1 == n ? 0 : a + 1) : (a == 0 ? n - 1 : a - 1);
      next_at = static_cast<NpuId>(from + (static_cast<int64_t>(next) - a) * static_cast<int64_t>(spec.stride));
      next_switch_dim = -1;
      return dense_links_[dim][2 * static_cast<uint64_t>(from) + (go_clockwise ? 0 : 1)];
    }
    case TopologyKind::kFullyConnected: {
      const auto to = static_cast<NpuId>(from + (static_cast<int64_t>(b) - a) * static_cast<int64_t>(spec.stride));
      next_at = to;
      next_switch_dim = -1;
      return fc_links_[fc_key(dim, from, to)];
    }
    case TopologyKind::kSwitch:
      next_at = from;  // stays addressed by its source until it leaves the switch
      next_switch_dim = static_cast<int16_t>(dim);
      return dense_links_[dim][2 * static_cast<uint64_t>(from)];
  }
  throw Error("unreachable topology kind");
}

bool AwareNetwork::forward(MessageId message, InFlight& m) {
  if (m.switch_dim < 0 && m.at == m.dst) {
    m.active = false;
    host_.message_arrived(message);
    return false;
  }
  Link* link = nullptr;
  size_t dim = 0;
  NpuId next_at = m.at;
  int16_t next_switch_dim = -1;
  if (m.switch_dim >= 0) {
    // Leaving a switch towards the NPU whose coordinate in that dimension matches dst.
    dim = static_cast<size_t>(m.switch_dim);
    const Dim& spec = dims_[dim];
    const uint32_t at_coord = spec.coordinate(m.at);
    const uint32_t dst_coord = spec.coordinate(m.dst);
    next_at = static_cast<NpuId>(m.at + (static_cast<int64_t>(dst_coord) - at_coord) * static_cast<int64_t>(spec.stride));
    link = &dense_links_[dim][2 * static_cast<uint64_t>(next_at) + 1];
  } else {
    uint32_t at_coord = 0;
    uint32_t dst_coord = 0;
    for (;; ++dim) {
      at_coord = dims_[dim].coordinate(m.at);
      dst_coord = dims_[dim].coordinate(m.dst);
      if (at_coord != dst_coord) break;
    }
    link = &link_for(dim, m.at, at_coord, dst_coord, next_switch_dim, next_at);
  }
  TimeNs serialization_ns;
  TimeNs hop_ns;
  dims_[dim].cost(m.bytes, serialization_ns, hop_ns);
  const TimeNs start = std::max(events_.now(), link->free_at_ns);
  link->free_at_ns = start + serialization_ns;
  link->bytes += m.bytes;
  link->messages += 1;
  link->busy_ns += serialization_ns;
  const TimeNs hop_done_ns = start + hop_ns;
  if (next_switch_dim < 0 && next_at == m.dst) {
    // Last hop: the arrival event itself, no extra network step.
    m.active = false;
    events_.schedule(hop_done_ns, EventKind::kMessageArrived, message);
    return false;
  }
  m.at = next_at;
  m.switch_dim = next_switch_dim;
  events_.schedule(hop_done_ns, EventKind::kNetworkHop, message);
  return true;
}

void AwareNetwork::handle_event(MessageId message) {
  if (message >= in_flight_.size() || !in_flight_[message].active) {
    throw Error(fmt::format("network: event for unknown message {}", message));
  }
  forward(message, in_flight_[message]);
}

std::vector<LinkStats> AwareNetwork::link_stats() const {
  std::vector<LinkStats> result;
  for (size_t d = 0; d < dense_links_.size(); ++d) {
    const auto& spec = config_.dimensions[d];
    for (size_t i = 0; i < dense_links_[d].size(); ++i) {
      const Link& link = dense_links_[d][i];
      if (link.messages == 0) continue;
      const auto npu = static_cast<NpuId>(i / 2);
      std::string name;
      if (spec.topology == TopologyKind::kRing) {
        const uint32_t c = layout_.coordinate(npu, d);
        const uint32_t next = (i % 2 == 0) ? (c + 1) % spec.npus_count : (c + spec.npus_count - 1) % spec.npus_count;
        name = fmt::format("npu{}->npu{}", npu, layout_.with_coordinate(npu, d, next));
      } else {
        name = i % 2 == 0 ? fmt::format("npu{}->switch(dim{})", npu, d) : fmt::format("switch(dim{})->npu{}", d, npu);
      }
      result.push_back(LinkStats{std::move(name), link.bytes, link.messages, link.busy_ns});
    }
  }
  std::vector<std::pair<uint64_t, const Link*>> fc(fc_links_.size());
  size_t k = 0;
  for (const auto& [key, link] : fc_links_) fc[k++] = {key, &link};
  std::sort(fc.begin(), fc.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [key, link] : fc) {
    const auto from = static_cast<NpuId>((key >> 28) & ((uint64_t{1} << 28) - 1));
    const auto to = static_cast<NpuId>(key & ((uint64_t{1} << 28) - 1));
    result.push_back(LinkStats{fmt::format("npu{}->npu{}", from, to), link->bytes, link->messages, link->busy_ns});
  }
  return result;
}

}  // namespace snr::dsim
