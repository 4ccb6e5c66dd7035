#include "dsim/network/noc/fabric_network.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "dsim/network/noc/fabric_routing.h"

namespace snr::dsim {
namespace {

constexpr uint64_t kPsPerNs = 1000;

uint64_t add_ps(uint64_t a, uint64_t b) {
  uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    throw Error("noc backend: simulated time passed 2^64 ps (about 213 days)");
  }
  return sum;
}

class NocFabricNetwork final : public NetworkBackend, public EventHandler {
 public:
  NocFabricNetwork(const NocFabricConfig& config, EventLoop& loop);

  void send(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to) override;
  void handle(const Event& event) override;
  [[nodiscard]] std::vector<LinkStats> link_stats() const override;
  [[nodiscard]] std::string name() const override { return "noc"; }
  [[nodiscard]] FlowLog* flow_log() override { return &flow_log_; }
  [[nodiscard]] std::optional<PacketStats> packet_stats() const override;

 private:
  // A segment held whole by the node before path[hop]; it got there at
  // event time - early_ps (the event fires at the next whole ns).
  struct SegmentAt {
    static constexpr uint8_t kKind = 1;
    uint32_t flow;
    uint32_t segment;
    uint16_t hop;
    uint16_t early_ps;
  };
  struct Link {
    double ps_per_byte = 0;
    uint64_t latency_ps = 0;
    uint64_t free_ps = 0;  // when its last accepted segment is off the wire
    uint64_t wire_bytes = 0, segments = 0, busy_ps = 0;
    uint64_t max_backlog_bytes = 0;  // wire bytes ahead of an arriving segment
    // Serialization of the last size asked: nearly every segment is full.
    uint64_t cached_bytes = std::numeric_limits<uint64_t>::max();
    uint64_t cached_ps = 0;
  };
  // A message in flight; its slot is reused once its end is known (its
  // segments are then all on their last link, no event names it).
  struct Flow {
    FlowStats stats;
    HandlerId deliver_to = 0;
    uint32_t segments = 0;
    uint32_t delivered = 0;     // segments put on the path's last link
    uint64_t last_arrival_ps = 0;
    std::vector<uint32_t> path;  // directed links; empty while the slot is free
  };

  // Puts segment `segment` of `flow`, ready at its node at `ready_ps`, on
  // link path[hop]: it leaves when the link is free and is whole at the far
  // node latency later.
  void forward(uint32_t flow, uint32_t segment, uint16_t hop, uint64_t ready_ps);
  [[nodiscard]] uint64_t wire_bytes(const Flow& flow, uint32_t segment) const;
  uint64_t serialization_ps(Link& link, uint64_t bytes);

  NocFabricConfig config_;
  EventLoop& loop_;
  HandlerId handler_;
  NocFabricRoutes routes_;
  std::vector<Link> links_;  // per directed link of routes_
  InFlightSlots<Flow> flows_;
  uint64_t messages_sent_ = 0;    // also each message's ECMP key, in send order
  uint64_t segments_sent_ = 0;
  FlowLog flow_log_;
};

NocFabricNetwork::NocFabricNetwork(const NocFabricConfig& config, EventLoop& loop)
    : config_(config), loop_(loop), handler_(loop.add_handler("network backend noc", *this)), routes_(config_) {
  links_.resize(routes_.links().size());
  for (size_t l = 0; l < links_.size(); ++l) {
    const NocFabricLink& link = config_.links[routes_.links()[l].config_link];
    // Gb/s are bits per ns: a byte takes 8000 / Gb/s ps.
    links_[l].ps_per_byte = 8.0 * kPsPerNs / link.bandwidth_gbps;
    links_[l].latency_ps = static_cast<uint64_t>(std::llround(link.latency_ns * kPsPerNs));
  }
}

uint64_t NocFabricNetwork::wire_bytes(const Flow& flow, uint32_t segment) const {
  const uint64_t offset = uint64_t{segment} * config_.segment_bytes;
  const uint64_t payload = std::min<uint64_t>(config_.segment_bytes, flow.stats.bytes - std::min(offset, flow.stats.bytes));
  return payload + config_.segment_header_bytes;
}

uint64_t NocFabricNetwork::serialization_ps(Link& link, uint64_t bytes) {
  if (bytes != link.cached_bytes) {
    const double ps = std::round(static_cast<double>(bytes) * link.ps_per_byte);
    if (!(ps < 1e19)) throw Error("noc backend: a segment's serialization time passed 2^64 ps");
    link.cached_bytes = bytes;
    link.cached_ps = static_cast<uint64_t>(ps);
  }
  return link.cached_ps;
}

void NocFabricNetwork::send(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to) {
  if (src >= config_.npus() || dst >= config_.npus()) {
    throw Error(fmt::format("noc backend: a message from NPU {} to NPU {} in a network of {} NPUs", src, dst,
                            config_.npus()));
  }
  const TimeNs now = loop_.now();
  if (src == dst) {
    loop_.schedule(now, deliver_to, MessageArrived{message});
    return;
  }
  const uint64_t segments = std::max<uint64_t>(1, (bytes + config_.segment_bytes - 1) / config_.segment_bytes);
  if (segments > std::numeric_limits<uint32_t>::max()) {
    throw Error(fmt::format("noc backend: a message of {} bytes is {} segments of segment_bytes = {}, more than 2^32; "
                            "raise segment_bytes",
                            bytes, segments, config_.segment_bytes));
  }
  if (now > std::numeric_limits<uint64_t>::max() / kPsPerNs) {
    throw Error("noc backend: simulated time passed 2^64 ps (about 213 days)");
  }
  const uint32_t flow = flows_.take("noc");
  Flow& f = flows_[flow];
  f.stats = FlowStats{message, src, dst, bytes, now, 0};
  f.deliver_to = deliver_to;
  f.segments = static_cast<uint32_t>(segments);
  f.delivered = 0;
  f.last_arrival_ps = 0;
  routes_.path(src, dst, messages_sent_++, f.path);
  if (f.path.size() > std::numeric_limits<uint16_t>::max()) {
    throw Error(fmt::format("noc backend: the path from NPU {} to NPU {} has {} hops, more than 65,535", src, dst,
                            f.path.size()));
  }
  segments_sent_ += segments;
  // Every segment queues on the first link now, in order: the link's FIFO
  // sends them back to back.
  for (uint32_t s = 0; s < f.segments; ++s) forward(flow, s, 0, now * kPsPerNs);
}

void NocFabricNetwork::forward(uint32_t flow_index, uint32_t segment, uint16_t hop, uint64_t ready_ps) {
  Flow& flow = flows_[flow_index];
  Link& link = links_[flow.path[hop]];
  const uint64_t bytes = wire_bytes(flow, segment);
  if (hop > 0 && link.free_ps > ready_ps) {
    // Queued behind others at a forwarding node (not the sender's own backlog).
    const auto backlog = static_cast<uint64_t>(static_cast<double>(link.free_ps - ready_ps) / link.ps_per_byte);
    link.max_backlog_bytes = std::max(link.max_backlog_bytes, backlog);
  }
  const uint64_t serialization = serialization_ps(link, bytes);
  const uint64_t start = std::max(ready_ps, link.free_ps);
  link.free_ps = add_ps(start, serialization);
  link.wire_bytes += bytes;
  link.segments += 1;
  link.busy_ps += serialization;
  const uint64_t arrival_ps = add_ps(link.free_ps, link.latency_ps);
  const TimeNs arrival_ns = arrival_ps / kPsPerNs + (arrival_ps % kPsPerNs != 0 ? 1 : 0);
  if (hop + 1u < flow.path.size()) {
    const auto early = static_cast<uint16_t>(arrival_ns * kPsPerNs - arrival_ps);
    loop_.schedule(arrival_ns, handler_, SegmentAt{flow_index, segment, static_cast<uint16_t>(hop + 1), early});
    return;
  }
  // On the last link: one path and FIFO links keep the segments in order,
  // but the latest arrival is taken anyway.
  flow.last_arrival_ps = std::max(flow.last_arrival_ps, arrival_ps);
  if (++flow.delivered < flow.segments) return;
  const uint64_t last = flow.last_arrival_ps;
  flow.stats.end_ns = last / kPsPerNs + (last % kPsPerNs != 0 ? 1 : 0);
  flow_log_.add(flow.stats);
  flow.path.clear();
  flows_.release(flow_index);
  loop_.schedule(flow.stats.end_ns, flow.deliver_to, MessageArrived{flow.stats.message});
}

void NocFabricNetwork::handle(const Event& event) {
  if (event.kind != SegmentAt::kKind) throw_unknown_event(loop_.handler_name(handler_), event);
  const auto at = event.get<SegmentAt>();
  if (at.flow >= flows_.size() || at.hop >= flows_[at.flow].path.size()) {
    throw Error(fmt::format("noc backend: an event for unknown segment {} of message slot {}", at.segment, at.flow));
  }
  forward(at.flow, at.segment, at.hop, event.time_ns * kPsPerNs - at.early_ps);
}

std::vector<LinkStats> NocFabricNetwork::link_stats() const {
  std::vector<LinkStats> out;
  for (size_t l = 0; l < links_.size(); ++l) {
    const Link& link = links_[l];
    if (link.segments == 0) continue;
    const NocDirectedLink& directed = routes_.links()[l];
    out.push_back(LinkStats{fmt::format("{}->{}", config_.node_name(directed.from), config_.node_name(directed.to)),
                            link.wire_bytes, link.segments, (link.busy_ps + kPsPerNs / 2) / kPsPerNs});
  }
  return out;
}

std::optional<PacketStats> NocFabricNetwork::packet_stats() const {
  PacketStats stats;
  stats.packets_sent = segments_sent_;  // queues are unbounded: nothing is dropped
  for (size_t l = 0; l < links_.size(); ++l) {
    if (links_[l].max_backlog_bytes > stats.max_queue_bytes) {
      const NocDirectedLink& directed = routes_.links()[l];
      stats.max_queue_bytes = links_[l].max_backlog_bytes;
      stats.max_queue_port = fmt::format("{}->{}", config_.node_name(directed.from), config_.node_name(directed.to));
    }
  }
  return stats;
}

}  // namespace

std::unique_ptr<NetworkBackend> make_noc_fabric_network(const NocFabricConfig& config, EventLoop& loop) {
  return std::make_unique<NocFabricNetwork>(config, loop);
}

}  // namespace snr::dsim
