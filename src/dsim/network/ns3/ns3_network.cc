// The packet-level backend on ns-3 (3.37, Debian's libns3-dev).
//
// Every configuration link is an ns-3 point-to-point link (full duplex, its
// bandwidth and propagation delay each way) whose two devices each have one
// drop-tail output queue of port_queue_bytes; ns-3's traffic-control queue
// discs are removed, so that queue is the only one. Every node runs the
// IPv4 stack with EcmpRouting (ecmp_routing.h). A message is a flow of UDP
// packets of packet_payload_bytes (plus 8 B UDP, 20 B IPv4 and 2 B PPP
// headers on the wire): the sending NPU keeps at most two packets in its
// output queue and serves its messages round-robin, as an RDMA NIC serves
// its queue pairs; it does not slow down for congestion further on (no
// congestion control), so deep port queues stand in for a lossless fabric,
// and a drop stops the run with an error naming the port.
//
// Two clocks: snr's event loop and ns-3's simulator. The backend keeps an
// event of its own in snr's loop at the time of ns-3's next event and, when
// it fires, runs ns-3 through exactly that instant. ns-3 therefore never
// runs ahead of snr: a message snr sends at t enters ns-3 at t, and a
// message ns-3 completes at t reaches the sender's handler at t.
#include <fmt/format.h>
// Single headers: ns-3's *-module.h umbrellas do not compile as C++20.
#include <ns3/data-rate.h>
#include <ns3/drop-tail-queue.h>
#include <ns3/inet-socket-address.h>
#include <ns3/internet-stack-helper.h>
#include <ns3/ipv4-address-helper.h>
#include <ns3/net-device-container.h>
#include <ns3/node-container.h>
#include <ns3/packet.h>
#include <ns3/point-to-point-helper.h>
#include <ns3/point-to-point-net-device.h>
#include <ns3/simulator.h>
#include <ns3/socket.h>
#include <ns3/traffic-control-helper.h>
#include <ns3/udp-socket-factory.h>

#include <atomic>
#include <cmath>
#include <deque>
#include <set>

#include "common/error.h"
#include "dsim/network/ns3/ecmp_routing.h"
#include "dsim/network/ns3/ns3_backend.h"
#include "dsim/network/ns3/ns3_scheduler.h"

namespace snr::dsim {

namespace {

using ns3_backend::EcmpRoutingHelper;
using ns3_backend::FabricRoutes;
using ns3_backend::MessageTag;

constexpr uint16_t kPort = 4791;                 // RoCEv2's UDP port, for readers of packet traces
constexpr uint32_t kPacketsQueuedPerNpu = 2;     // the sending NIC's look-ahead

std::atomic<bool> g_backend_alive{false};

class Ns3Network final : public NetworkBackend, public EventHandler {
 public:
  Ns3Network(const Ns3NetworkConfig& config, EventLoop& loop);
  ~Ns3Network() override;

  void send(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to) override;
  void handle(const Event& event) override;
  [[nodiscard]] std::vector<LinkStats> link_stats() const override;
  [[nodiscard]] std::string name() const override { return "ns3"; }
  [[nodiscard]] FlowLog* flow_log() override { return &flow_log_; }
  [[nodiscard]] std::optional<PacketStats> packet_stats() const override;

 private:
  struct Sync {
    static constexpr uint8_t kKind = 1;
  };
  // A message in flight; its slot is reused once all its bytes arrived
  // (no packet names it then).
  struct Flow {
    FlowStats stats;
    uint64_t sent_bytes = 0;
    uint64_t received_bytes = 0;
    HandlerId deliver_to = 0;
    uint32_t ecmp_key = 0;
  };
  struct Port {
    uint32_t node = 0, peer = 0;
    double bits_per_ns = 0;
    ns3::Ptr<ns3::Queue<ns3::Packet>> queue;
    uint64_t wire_bytes = 0, packets = 0, max_queue_bytes = 0;
  };
  struct Npu {
    ns3::Ptr<ns3::Socket> sender, receiver;
    std::vector<uint32_t> ports;  // indices into ports_
    std::deque<uint32_t> active;  // flows with bytes left to send, served round-robin
    bool pump_scheduled = false;
  };

  void build();
  void start_flow(uint32_t flow);
  void pump(uint32_t npu);
  void receive(uint32_t npu, ns3::Ptr<ns3::Socket> socket);
  void arm();
  void dropped(uint32_t port);

  Ns3NetworkConfig config_;
  EventLoop& loop_;
  HandlerId handler_;
  std::shared_ptr<FabricRoutes> routes_;
  ns3::NodeContainer nodes_;
  std::vector<Port> ports_;
  std::vector<Npu> npus_;
  InFlightSlots<Flow> flows_;
  uint64_t messages_sent_ = 0;
  FlowLog flow_log_;
  std::multiset<TimeNs> syncs_;  // times of this backend's pending events in snr's loop
  [[nodiscard]] std::string no_retransmission() const {
    return fmt::format("this transport does not retransmit (deep queues stand in for a lossless fabric): raise "
                       "port_queue_bytes (now {})",
                       config_.port_queue_bytes);
  }

  uint64_t packets_sent_ = 0, packets_received_ = 0, packets_dropped_ = 0;
  uint64_t messages_completed_ = 0;
  uint32_t first_drop_port_ = 0;
};

Ns3Network::Ns3Network(const Ns3NetworkConfig& config, EventLoop& loop)
    : config_(config), loop_(loop), handler_(loop.add_handler("ns3", *this)) {
  if (g_backend_alive.exchange(true)) {
    throw Error("network backend 'ns3': ns-3 runs one simulation per process, and one is running");
  }
  try {
    ns3_backend::prepare_simulator();
    build();
  } catch (...) {
    ns3::Simulator::Destroy();
    g_backend_alive = false;
    throw;
  }
}

Ns3Network::~Ns3Network() {
  for (Npu& npu : npus_) {
    if (npu.sender) npu.sender->Close();
    if (npu.receiver) npu.receiver->Close();
  }
  npus_.clear();
  ports_.clear();
  nodes_ = ns3::NodeContainer();
  ns3::Simulator::Destroy();
  g_backend_alive = false;
}

void Ns3Network::build() {
  nodes_.Create(config_.node_count());
  routes_ = std::make_shared<FabricRoutes>(config_);
  routes_->first_ns3_node = nodes_.Get(0)->GetId();
  ns3::InternetStackHelper stack;
  stack.SetRoutingHelper(EcmpRoutingHelper(routes_));
  stack.Install(nodes_);

  ns3::PointToPointHelper wire;
  wire.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                ns3::QueueSizeValue(ns3::QueueSize(ns3::QueueSizeUnit::BYTES,
                                                   static_cast<uint32_t>(config_.port_queue_bytes))));
  ns3::TrafficControlHelper queue_discs;
  npus_.resize(config_.npus);
  for (size_t l = 0; l < config_.links.size(); ++l) {
    const Ns3Link& link = config_.links[l];
    wire.SetDeviceAttribute("DataRate",
                            ns3::DataRateValue(ns3::DataRate(static_cast<uint64_t>(
                                std::llround(link.bandwidth_gbit_per_s * 1e9)))));
    wire.SetChannelAttribute("Delay", ns3::TimeValue(ns3::Time::FromDouble(link.latency_ns, ns3::Time::NS)));
    ns3::NetDeviceContainer devices = wire.Install(nodes_.Get(link.from), nodes_.Get(link.to));
    // One /30 per link: 10.0.0.0/8 holds 2^22 links.
    ns3::Ipv4AddressHelper addresses;
    addresses.SetBase(ns3::Ipv4Address(static_cast<uint32_t>((10u << 24) + 4 * l)), "255.255.255.252");
    const ns3::Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
    queue_discs.Uninstall(devices);
    const uint32_t ends[2] = {link.from, link.to};
    for (uint32_t side = 0; side < 2; ++side) {
      const uint32_t node = ends[side];
      const uint32_t peer = ends[1 - side];
      routes_->add_port(node, {peer, devices.Get(side), interfaces.GetAddress(side), interfaces.GetAddress(1 - side)});
      if (node < config_.npus) {
        routes_->add_npu_address(interfaces.GetAddress(side), node);
        npus_[node].ports.push_back(static_cast<uint32_t>(ports_.size()));
      }
      Port port;
      port.node = node;
      port.peer = peer;
      port.bits_per_ns = link.bandwidth_gbit_per_s;
      port.queue = ns3::DynamicCast<ns3::PointToPointNetDevice>(devices.Get(side))->GetQueue();
      const auto index = static_cast<uint32_t>(ports_.size());
      port.queue->TraceConnectWithoutContext(
          "Enqueue", ns3::Callback<void, ns3::Ptr<const ns3::Packet>>([this, index](ns3::Ptr<const ns3::Packet> p) {
            Port& at = ports_[index];
            at.packets += 1;
            at.wire_bytes += p->GetSize();
            at.max_queue_bytes = std::max<uint64_t>(at.max_queue_bytes, at.queue->GetNBytes());
          }));
      port.queue->TraceConnectWithoutContext(
          "Drop", ns3::Callback<void, ns3::Ptr<const ns3::Packet>>(
                      [this, index](ns3::Ptr<const ns3::Packet>) { dropped(index); }));
      if (node < config_.npus) {
        // Refill after the device took a packet, once that event is over:
        // sending from inside the device's own dequeue would re-enter it.
        port.queue->TraceConnectWithoutContext(
            "Dequeue", ns3::Callback<void, ns3::Ptr<const ns3::Packet>>([this, node](ns3::Ptr<const ns3::Packet>) {
              if (npus_[node].pump_scheduled || npus_[node].active.empty()) return;
              npus_[node].pump_scheduled = true;
              ns3::Simulator::ScheduleNow(&Ns3Network::pump, this, node);
            }));
      }
      ports_.push_back(std::move(port));
    }
  }
  routes_->compute_distances();
  for (uint32_t npu = 0; npu < config_.npus; ++npu) {
    Npu& at = npus_[npu];
    const ns3::TypeId udp = ns3::UdpSocketFactory::GetTypeId();
    at.receiver = ns3::Socket::CreateSocket(nodes_.Get(npu), udp);
    if (at.receiver->Bind(ns3::InetSocketAddress(ns3::Ipv4Address::GetAny(), kPort)) != 0) {
      throw Error(fmt::format("ns-3 backend: NPU {} cannot bind its receiving socket", npu));
    }
    at.receiver->SetRecvCallback(ns3::Callback<void, ns3::Ptr<ns3::Socket>>(
        [this, npu](ns3::Ptr<ns3::Socket> socket) { receive(npu, socket); }));
    at.sender = ns3::Socket::CreateSocket(nodes_.Get(npu), udp);
    if (at.sender->Bind() != 0) throw Error(fmt::format("ns-3 backend: NPU {} cannot bind its sending socket", npu));
  }
}

void Ns3Network::send(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to) {
  if (src >= config_.npus || dst >= config_.npus) {
    throw Error(fmt::format("ns-3 backend: a message from NPU {} to NPU {} in a network of {} NPUs", src, dst,
                            config_.npus));
  }
  const TimeNs now = loop_.now();
  if (src == dst || bytes == 0) {
    loop_.schedule(now, deliver_to, MessageArrived{message});
    return;
  }
  // The message's number is its ECMP key (the hash keeps one path).
  if (messages_sent_ >= std::numeric_limits<uint32_t>::max()) throw Error("ns-3 backend: more than 2^32 messages");
  const uint32_t flow = flows_.take("ns-3");
  flows_[flow] = Flow{FlowStats{message, src, dst, bytes, now, 0}, 0, 0, deliver_to,
                      static_cast<uint32_t>(messages_sent_++)};
  const ns3::Time at = ns3::NanoSeconds(now) - ns3::Simulator::Now();
  ns3::Simulator::Schedule(at, &Ns3Network::start_flow, this, flow);
  arm();
}

void Ns3Network::start_flow(uint32_t flow) {
  Npu& npu = npus_[flows_[flow].stats.src];
  npu.active.push_back(flow);
  pump(flows_[flow].stats.src);
}

void Ns3Network::pump(uint32_t npu_index) {
  Npu& npu = npus_[npu_index];
  npu.pump_scheduled = false;
  const auto queued = [&] {
    uint32_t packets = 0;
    for (const uint32_t p : npu.ports) packets += ports_[p].queue->GetNPackets();
    return packets;
  };
  const uint32_t limit = kPacketsQueuedPerNpu * static_cast<uint32_t>(npu.ports.size());
  while (!npu.active.empty() && queued() < limit) {
    const uint32_t flow_index = npu.active.front();
    npu.active.pop_front();
    Flow& flow = flows_[flow_index];
    const uint64_t left = flow.stats.bytes - flow.sent_bytes;
    const auto payload = static_cast<uint32_t>(std::min<uint64_t>(left, config_.packet_payload_bytes));
    auto packet = ns3::Create<ns3::Packet>(payload);
    packet->AddPacketTag(MessageTag(flow_index, flow.ecmp_key));
    const int64_t address_npu = flow.stats.dst;
    const ns3::Ipv4Address destination =
        routes_->ports(static_cast<uint32_t>(address_npu)).front().local;
    if (npu.sender->SendTo(packet, 0, ns3::InetSocketAddress(destination, kPort)) < 0) {
      throw Error(fmt::format("ns-3 backend: NPU {} could not send a packet of message {} (socket error {})",
                              npu_index, flow.stats.message, static_cast<int>(npu.sender->GetErrno())));
    }
    ++packets_sent_;
    flow.sent_bytes += payload;
    if (flow.sent_bytes < flow.stats.bytes) npu.active.push_back(flow_index);
  }
}

void Ns3Network::receive(uint32_t npu, ns3::Ptr<ns3::Socket> socket) {
  while (ns3::Ptr<ns3::Packet> packet = socket->Recv()) {
    MessageTag tag;
    if (!packet->PeekPacketTag(tag) || tag.slot() >= flows_.size() ||
        flows_[tag.slot()].ecmp_key != tag.ecmp_key()) {
      throw Error(fmt::format("ns-3 backend: NPU {} received a packet of no known message", npu));
    }
    Flow& flow = flows_[tag.slot()];
    flow.received_bytes += packet->GetSize();
    ++packets_received_;
    if (flow.received_bytes == flow.stats.bytes) {
      ++messages_completed_;
      // ns-3 runs in ps, snr in ns: the sync that runs this event is at the
      // event's time rounded up, which is snr's now.
      flow.stats.end_ns = ns3_backend::ceil_ns(ns3::Simulator::Now());
      flow_log_.add(flow.stats);
      loop_.schedule(loop_.now(), flow.deliver_to, MessageArrived{flow.stats.message});
      flows_.release(tag.slot());
    }
  }
}

void Ns3Network::dropped(uint32_t port) {
  // Nothing retransmits: the message would never complete. Stop at once and
  // say why (handle() throws), rather than stall the run.
  if (packets_dropped_++ == 0) first_drop_port_ = port;
  ns3::Simulator::Stop();
}

void Ns3Network::arm() {
  const std::optional<TimeNs> next = ns3_backend::next_event_ns();
  if (!next) return;
  const TimeNs at = std::max(*next, loop_.now());
  if (!syncs_.empty() && *syncs_.begin() <= at) return;  // an earlier sync will re-arm
  syncs_.insert(at);
  loop_.schedule(at, handler_, Sync{});
}

void Ns3Network::handle(const Event& event) {
  if (event.kind != Sync::kKind) throw_unknown_event(loop_.handler_name(handler_), event);
  syncs_.erase(syncs_.find(event.time_ns));
  // Through this instant and no further: events ns-3 schedules for now
  // after the stop are left for the next sync, at the same time.
  ns3::Simulator::Stop(ns3::NanoSeconds(event.time_ns) - ns3::Simulator::Now());
  ns3::Simulator::Run();
  if (packets_dropped_ > 0) {
    const Port& port = ports_[first_drop_port_];
    throw Error(fmt::format("ns-3 backend: the queue of port {} -> {} overflowed at {} ns and dropped a packet; {}",
                            config_.node_name(port.node), config_.node_name(port.peer), event.time_ns,
                            no_retransmission()));
  }
  // A full queue can also make ns-3 drop a packet before it reaches the
  // queue (the device stops taking packets and the layer above discards
  // them), out of sight of the queue's own count. Packets are counted at
  // both ends instead: with nothing left to happen, any message still
  // short of bytes lost some.
  if (!ns3_backend::next_event_ns() && messages_completed_ < messages_sent_) {
    const auto packets = packet_stats();
    throw Error(fmt::format("ns-3 backend: {} of {} messages never completed: {} packets were sent and {} received, "
                            "so {} were dropped (the deepest queue, port {}, held {} bytes); {}",
                            messages_sent_ - messages_completed_, messages_sent_, packets_sent_, packets_received_,
                            packets_sent_ - packets_received_, packets->max_queue_port, packets->max_queue_bytes,
                            no_retransmission()));
  }
  arm();
}

std::vector<LinkStats> Ns3Network::link_stats() const {
  std::vector<LinkStats> out;
  for (const Port& port : ports_) {
    if (port.packets == 0) continue;
    LinkStats stats;
    stats.name = fmt::format("{}->{}", config_.node_name(port.node), config_.node_name(port.peer));
    stats.bytes = port.wire_bytes;
    stats.messages = port.packets;
    stats.busy_ns = static_cast<uint64_t>(std::llround(static_cast<double>(port.wire_bytes) * 8 / port.bits_per_ns));
    out.push_back(std::move(stats));
  }
  return out;
}

std::optional<PacketStats> Ns3Network::packet_stats() const {
  PacketStats stats;
  stats.packets_sent = packets_sent_;
  // After a run that lost packets, the difference between both ends counts
  // them wherever they were dropped.
  const uint64_t lost = messages_completed_ == messages_sent_ ? 0 : packets_sent_ - packets_received_;
  stats.packets_dropped = std::max(packets_dropped_, lost);
  for (const Port& port : ports_) {
    if (port.max_queue_bytes > stats.max_queue_bytes) {
      stats.max_queue_bytes = port.max_queue_bytes;
      stats.max_queue_port = fmt::format("{}->{}", config_.node_name(port.node), config_.node_name(port.peer));
    }
  }
  return stats;
}

}  // namespace

}  // namespace snr::dsim

snr::dsim::NetworkBackend* snr_dsim_new_ns3_network(const snr::dsim::Ns3NetworkConfig& config,
                                                    snr::dsim::EventLoop& loop) {
  return new snr::dsim::Ns3Network(config, loop);
}
