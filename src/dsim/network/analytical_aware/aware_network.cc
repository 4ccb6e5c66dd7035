#include "dsim/network/analytical_aware/aware_network.h"

#include "dsim/network/registry.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"

namespace snr::dsim {

AwareNetwork::AwareNetwork(const NetworkConfig& config, EventLoop& loop)
    : config_(config), layout_(config), loop_(loop) {
  hop_handler_ = loop.add_handler("network backend analytical-congestion-aware", *this);
  const uint64_t npus = config.npus_count();
  for (size_t d = 0; d < config.dimensions.size(); ++d) {
    const auto& dim = config.dimensions[d];
    Dim spec;
    spec.topology = dim.topology;
    spec.size = dim.npus_count;
    spec.stride = layout_.stride(d);
    spec.bytes_per_ns = gib_per_s_to_bytes_per_ns(dim.bandwidth_gib_per_s);
    spec.latency_ns = dim.latency_ns;
    dims_.push_back(spec);
    dense_links_.emplace_back(dim.topology == TopologyKind::kFullyConnected ? 0 : 2 * npus);
    fc_last_link_.emplace_back(dim.topology == TopologyKind::kFullyConnected ? npus : 0);
  }
  if (dims_.size() == 1) {
    switch (dims_[0].topology) {
      case TopologyKind::kRing: one_dim_ = OneDim::kRing; break;
      case TopologyKind::kSwitch: one_dim_ = OneDim::kSwitch; break;
      case TopologyKind::kFullyConnected: one_dim_ = OneDim::kFullyConnected; break;
    }
  }
}

// The one-dimensional paths below are each one message's common case, with
// nothing in them but tail calls (no stack frame to build for every
// message); whatever else happens (more than one hop, a link not cached, a
// busy link, a full node pool) goes through send_general, which takes the
// same hops through advance().

[[gnu::always_inline]] inline void AwareNetwork::send_ring_1d(MessageId message, NpuId src, NpuId dst, uint64_t bytes,
                                                              HandlerId deliver_to) {
  // A neighbour: one hop clockwise (also the tie on a ring of two) or
  // anticlockwise; any other peer is more than one hop away.
  Dim& spec = dims_[0];
  const uint32_t n = spec.size;
  const uint32_t clockwise = dst >= src ? dst - src : dst + n - src;
  if (clockwise != 1 && clockwise != n - 1) return send_general(message, src, dst, bytes, deliver_to);
  Link& link = dense_links_[0][2 * static_cast<uint64_t>(src) + (clockwise == 1 ? 0 : 1)];
  if (busy(link)) return send_general(message, src, dst, bytes, deliver_to);
  TimeNs serialization_ns;
  TimeNs hop_ns;
  spec.cost(bytes, serialization_ns, hop_ns);
  const TimeNs hop_done_ns = book(link, bytes, serialization_ns, hop_ns);
  if (!loop_.queue().try_schedule_unit(hop_done_ns, deliver_to, MessageArrived{message})) {
    schedule_arrival(hop_done_ns, deliver_to, message);
  }
  reserve_free(link);
}

[[gnu::always_inline]] inline void AwareNetwork::send_switch_1d(MessageId message, NpuId src, NpuId dst,
                                                                uint64_t bytes, HandlerId deliver_to) {
  // Up to the switch now, down from it at the hop event (the message rides
  // in the event when its size leaves room for the handler).
  if (bytes >> AtSwitch::kHandlerShift != 0) return send_general(message, src, dst, bytes, deliver_to);
  Link& link = dense_links_[0][2 * static_cast<uint64_t>(src)];
  if (busy(link)) return send_general(message, src, dst, bytes, deliver_to);
  TimeNs serialization_ns;
  TimeNs hop_ns;
  dims_[0].cost(bytes, serialization_ns, hop_ns);
  const TimeNs hop_done_ns = book(link, bytes, serialization_ns, hop_ns);
  const AtSwitch at{message, dst, bytes | uint64_t{deliver_to} << AtSwitch::kHandlerShift};
  if (!loop_.queue().try_schedule_unit(hop_done_ns, hop_handler_, at)) {
    schedule_at_switch(hop_done_ns, at.message, at.dst, at.bytes_and_handler);
  }
  reserve_free(link);
}

[[gnu::always_inline]] inline void AwareNetwork::send_fully_connected_1d(MessageId message, NpuId src, NpuId dst,
                                                                         uint64_t bytes, HandlerId deliver_to) {
  // Straight to dst over their own link (the one src used last, or looked
  // up by send_general).
  const FcLinkCache& last = fc_last_link_[0][src];
  if (last.to != dst || busy(*last.link)) return send_general(message, src, dst, bytes, deliver_to);
  TimeNs serialization_ns;
  TimeNs hop_ns;
  dims_[0].cost(bytes, serialization_ns, hop_ns);
  Link& link = *last.link;
  const TimeNs hop_done_ns = book(link, bytes, serialization_ns, hop_ns);
  if (!loop_.queue().try_schedule_unit(hop_done_ns, deliver_to, MessageArrived{message})) {
    schedule_arrival(hop_done_ns, deliver_to, message);
  }
  reserve_free(link);
}

void AwareNetwork::schedule_arrival(TimeNs time_ns, HandlerId deliver_to, MessageId message) {
  loop_.schedule(time_ns, deliver_to, MessageArrived{message});
}

void AwareNetwork::schedule_at_switch(TimeNs time_ns, MessageId message, NpuId dst, uint64_t bytes_and_handler) {
  loop_.schedule(time_ns, hop_handler_, AtSwitch{message, dst, bytes_and_handler});
}

void AwareNetwork::send(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to) {
  // One path per one-dimensional topology, chosen once at construction;
  // perturbed links (a factor per link) take the general path.
  const OneDim one_dim = src != dst && !perturbed_ ? one_dim_ : OneDim::kNo;
  if (one_dim == OneDim::kRing) return send_ring_1d(message, src, dst, bytes, deliver_to);
  if (one_dim == OneDim::kSwitch) return send_switch_1d(message, src, dst, bytes, deliver_to);
  if (one_dim == OneDim::kFullyConnected) return send_fully_connected_1d(message, src, dst, bytes, deliver_to);
  send_general(message, src, dst, bytes, deliver_to);
}

[[gnu::always_inline]] inline uint32_t AwareNetwork::allocate_flight(const InFlight& m) {
  uint32_t flight;
  if (free_flight_ != kNoFlight) {
    flight = free_flight_;
    free_flight_ = in_flight_[flight].next_free;
    in_flight_[flight] = m;
  } else {
    flight = static_cast<uint32_t>(in_flight_.size());
    in_flight_.push_back(m);
  }
  return flight;
}

void AwareNetwork::send_general(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to) {
  if (src == dst) {
    loop_.deliver_now(deliver_to, MessageArrived{message});
    return;
  }
  // Most messages (ring neighbours, fully connected peers) take one hop and
  // leave no state here; a slot is kept only while hops remain or the
  // message waits for a link.
  advance(InFlight{src, dst, bytes, message, deliver_to, -1, true, 0}, kNoFlight);
}

void AwareNetwork::wait_for(Link& link, uint32_t flight) {
  in_flight_[flight].next_free = kNoFlight;
  if (link.waiting_tail == kNoFlight) {
    link.waiting_head = flight;
    // The first to wait: the link-free event takes its reserved place.
    loop_.schedule_reserved(link.free_at_ns, link.free_sequence, hop_handler_, LinkFree{&link});
  } else {
    in_flight_[link.waiting_tail].next_free = flight;
  }
  link.waiting_tail = flight;
}

[[gnu::always_inline]] inline AwareNetwork::Link& AwareNetwork::link_for(size_t dim, NpuId from, uint32_t a, uint32_t b,
                                                                         int16_t& next_switch_dim, NpuId& next_at) {
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
      return fc_link(dim, from, to);
    }
    case TopologyKind::kSwitch:
      next_at = from;  // stays addressed by its source until it leaves the switch
      next_switch_dim = static_cast<int16_t>(dim);
      return dense_links_[dim][2 * static_cast<uint64_t>(from)];
  }
  throw Error("unreachable topology kind");
}

void AwareNetwork::advance(const InFlight& m, uint32_t flight, bool force) {
  Link* link = nullptr;
  size_t dim = 0;
  NpuId next_at = m.at;
  int16_t next_switch_dim = -1;
  if (m.switch_dim >= 0) {
    // Leaving a switch towards the NPU whose coordinate in that dimension matches dst.
    dim = static_cast<size_t>(m.switch_dim);
    const Dim& spec = dims_[dim];
    if (dims_.size() == 1) {
      next_at = m.dst;  // one dimension: NPU ids are coordinates
    } else {
      const uint32_t at_coord = spec.coordinate(m.at);
      const uint32_t dst_coord = spec.coordinate(m.dst);
      next_at = static_cast<NpuId>(m.at + (static_cast<int64_t>(dst_coord) - at_coord) *
                                              static_cast<int64_t>(spec.stride));
    }
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
  if (!force && busy(*link)) {
    if (flight == kNoFlight) flight = allocate_flight(m);
    wait_for(*link, flight);
    return;
  }
  TimeNs serialization_ns;
  TimeNs hop_ns;
  dims_[dim].cost(m.bytes, serialization_ns, hop_ns);
  if (perturbed_) {
    const double factor = m.switch_dim >= 0      ? factors_.from_switch(dim, next_at)
                          : next_switch_dim >= 0 ? factors_.to_switch(dim, m.at)
                                                 : factors_.between(dim, m.at, next_at);
    scale_cost(dim, factor, m.bytes, serialization_ns, hop_ns);
  }
  const TimeNs hop_done_ns = book(*link, m.bytes, serialization_ns, hop_ns);
  if (next_switch_dim < 0 && next_at == m.dst) {
    // Last hop: the arrival event itself, no extra network step.
    loop_.schedule(hop_done_ns, m.deliver_to, MessageArrived{m.message});
    if (flight != kNoFlight) free_flight(flight);
  } else {
    if (flight == kNoFlight) flight = allocate_flight(m);
    InFlight& kept = in_flight_[flight];
    kept.at = next_at;
    kept.switch_dim = next_switch_dim;
    loop_.schedule(hop_done_ns, hop_handler_, HopDone{flight});
  }
  reserve_free(*link);
}

void AwareNetwork::set_bandwidth_factors(const LinkBandwidthFactors& factors) {
  factors_ = factors;
  perturbed_ = !factors.empty();
}

void AwareNetwork::scale_cost(size_t dim, double factor, uint64_t bytes, TimeNs& serialization_ns,
                              TimeNs& hop_ns) const {
  if (factor == 1.0) return;  // the dimension's own (cached) cost, to the ns
  const Dim& spec = dims_[dim];
  const double serialization = static_cast<double>(bytes) / (spec.bytes_per_ns * factor);
  serialization_ns = checked_truncated_ns(serialization, "network: a perturbed link's serialization time");
  hop_ns = checked_truncated_ns(spec.latency_ns + serialization, "network: a perturbed link's hop time");
}

void AwareNetwork::handle(const Event& first) {
  // Hops that end at the same time (a switch's messages of one step) come
  // in runs: the run is taken here without going back to the loop (see
  // core/event_loop.h), except inside a deliver_now.
  const bool nested = loop_.delivering_now();
  uint8_t kind = first.kind;
  EventData data = first.data;
  do {
    if (kind == AtSwitch::kKind) {
      // Down from a one-dimensional Switch's port to dst: advance()'s
      // second hop, inline while the port is free.
      const auto at = data.as<AtSwitch>();
      const uint64_t bytes = at.bytes_and_handler & ((uint64_t{1} << AtSwitch::kHandlerShift) - 1);
      const auto deliver_to = static_cast<HandlerId>(at.bytes_and_handler >> AtSwitch::kHandlerShift);
      Link& link = dense_links_[0][2 * static_cast<uint64_t>(at.dst) + 1];
      if (busy(link)) {
        advance(InFlight{at.dst, at.dst, bytes, at.message, deliver_to, 0, true, 0}, kNoFlight);  // waits there
        continue;
      }
      TimeNs serialization_ns;
      TimeNs hop_ns;
      dims_[0].cost(bytes, serialization_ns, hop_ns);
      if (perturbed_) scale_cost(0, factors_.from_switch(0, at.dst), bytes, serialization_ns, hop_ns);
      const TimeNs hop_done_ns = book(link, bytes, serialization_ns, hop_ns);
      loop_.schedule(hop_done_ns, deliver_to, MessageArrived{at.message});
      reserve_free(link);
      continue;
    }
    if (kind == LinkFree::kKind) {
      // The link frees: its first waiting message starts now.
      Link& link = *data.as<LinkFree>().link;
      const uint32_t flight = link.waiting_head;
      link.waiting_head = in_flight_[flight].next_free;
      if (link.waiting_head == kNoFlight) link.waiting_tail = kNoFlight;
      advance(in_flight_[flight], flight, true);
      if (link.waiting_head != kNoFlight) {
        loop_.schedule_reserved(link.free_at_ns, link.free_sequence, hop_handler_, LinkFree{&link});
      }
      continue;
    }
    if (kind != HopDone::kKind) {
      throw_unknown_event(loop_.handler_name(hop_handler_), Event{loop_.now(), data, hop_handler_, kind});
    }
    const uint32_t flight = data.as<HopDone>().flight;
    if (flight >= in_flight_.size() || !in_flight_[flight].active) {
      throw Error(fmt::format("network: hop event for unknown message slot {}", flight));
    }
    advance(in_flight_[flight], flight);
  } while (!nested && loop_.queue().pop_if_for(hop_handler_, kind, data));
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

NetworkBackendSpec analytical_aware_spec() {
  NetworkBackendSpec spec;
  spec.name = "analytical-congestion-aware";
  spec.summary = "per-link FIFO queues, store and forward (ASTRA-sim analytical congestion_aware)";
  spec.config_keys = {"topology", "npus_count", "bandwidth", "latency"};
  spec.parse_config = [](std::string_view text, std::string_view source) { return parse_network_config(text, source); };
  spec.create = [](const NetworkConfig& config, EventLoop& loop) -> std::unique_ptr<NetworkBackend> {
    return std::make_unique<AwareNetwork>(config, loop);
  };
  return spec;
}

}  // namespace snr::dsim
