// Routing for the packet-level backend: every node forwards toward the
// destination NPU over a link that brings it one hop closer (shortest paths
// in hops), choosing among equal-cost links by the configured ECMP mode.
// The paths come from the configuration's graph rather than from ns-3's
// global routing, whose only multipath mode sprays every packet at random.
//
// A message's packets carry a MessageTag (no wire bytes) naming the message,
// so the receiver can count them and a flow hash can keep one path.
#pragma once

#include <ns3/ipv4-route.h>
#include <ns3/ipv4-routing-helper.h>
#include <ns3/ipv4-routing-protocol.h>
#include <ns3/ipv4.h>
#include <ns3/net-device.h>
#include <ns3/node.h>
#include <ns3/output-stream-wrapper.h>
#include <ns3/packet.h>
#include <ns3/socket.h>
#include <ns3/tag.h>

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "dsim/network/ns3/ns3_config.h"

namespace snr::dsim::ns3_backend {

// The sender's slot of the message (reused once the message is complete)
// and the message's number in send order, the ECMP key that keeps it on
// one path.
class MessageTag final : public ns3::Tag {
 public:
  MessageTag() = default;
  MessageTag(uint32_t slot, uint32_t ecmp_key) : slot_(slot), ecmp_key_(ecmp_key) {}
  static ns3::TypeId GetTypeId();
  ns3::TypeId GetInstanceTypeId() const override { return GetTypeId(); }
  uint32_t GetSerializedSize() const override { return 2 * sizeof(uint32_t); }
  void Serialize(ns3::TagBuffer buffer) const override {
    buffer.WriteU32(slot_);
    buffer.WriteU32(ecmp_key_);
  }
  void Deserialize(ns3::TagBuffer buffer) override {
    slot_ = buffer.ReadU32();
    ecmp_key_ = buffer.ReadU32();
  }
  void Print(std::ostream& os) const override { os << "slot=" << slot_ << " message=" << ecmp_key_; }
  [[nodiscard]] uint32_t slot() const { return slot_; }
  [[nodiscard]] uint32_t ecmp_key() const { return ecmp_key_; }

 private:
  uint32_t slot_ = 0;
  uint32_t ecmp_key_ = 0;
};

// The graph, its distances and addresses, shared by every node's router.
class FabricRoutes {
 public:
  struct Port {
    uint32_t peer = 0;                   // node at the other end
    ns3::Ptr<ns3::NetDevice> device;     // this node's end
    ns3::Ipv4Address local, peer_address;
  };

  FabricRoutes(const Ns3NetworkConfig& config);
  // Filled while the network is built, before the first packet.
  void add_port(uint32_t node, Port port);
  void add_npu_address(ns3::Ipv4Address address, uint32_t npu) { npu_of_address_[address.Get()] = npu; }
  // Distances from every NPU; call after the last add_port.
  void compute_distances();

  // The port `node` sends a packet of `flow` for `npu` through.
  [[nodiscard]] const Port& next_port(uint32_t node, uint32_t npu, uint32_t flow);
  [[nodiscard]] const std::vector<Port>& ports(uint32_t node) const { return ports_[node]; }
  // The NPU an address belongs to, or -1.
  [[nodiscard]] int64_t npu_of(ns3::Ipv4Address address) const;
  // ns-3 numbers nodes across the process; the configuration's node k is
  // ns-3 node first_ns3_node + k.
  uint32_t first_ns3_node = 0;

 private:
  EcmpMode mode_;
  uint64_t seed_;
  uint32_t npus_;
  std::vector<std::vector<Port>> ports_;       // per node
  std::vector<std::vector<uint32_t>> hops_;    // per NPU, per node
  std::unordered_map<uint32_t, uint32_t> npu_of_address_;
  std::vector<uint64_t> packet_draws_;         // per node: the state of its packet-spraying draw
  std::vector<uint32_t> candidates_;           // scratch
};

// One node's router; all of them share the FabricRoutes.
class EcmpRouting final : public ns3::Ipv4RoutingProtocol {
 public:
  static ns3::TypeId GetTypeId();
  EcmpRouting(std::shared_ptr<FabricRoutes> routes, uint32_t node) : routes_(std::move(routes)), node_(node) {}

  ns3::Ptr<ns3::Ipv4Route> RouteOutput(ns3::Ptr<ns3::Packet> packet, const ns3::Ipv4Header& header,
                                       ns3::Ptr<ns3::NetDevice> oif, ns3::Socket::SocketErrno& error) override;
  bool RouteInput(ns3::Ptr<const ns3::Packet> packet, const ns3::Ipv4Header& header,
                  ns3::Ptr<const ns3::NetDevice> idev, UnicastForwardCallback forward,
                  MulticastForwardCallback multicast, LocalDeliverCallback local, ErrorCallback error) override;
  void NotifyInterfaceUp(uint32_t /*interface*/) override {}
  void NotifyInterfaceDown(uint32_t /*interface*/) override {}
  void NotifyAddAddress(uint32_t /*interface*/, ns3::Ipv4InterfaceAddress /*address*/) override {}
  void NotifyRemoveAddress(uint32_t /*interface*/, ns3::Ipv4InterfaceAddress /*address*/) override {}
  void SetIpv4(ns3::Ptr<ns3::Ipv4> ipv4) override { ipv4_ = ipv4; }
  void PrintRoutingTable(ns3::Ptr<ns3::OutputStreamWrapper> stream, ns3::Time::Unit unit) const override;

 private:
  ns3::Ptr<ns3::Ipv4Route> route_to(uint32_t npu, ns3::Ipv4Address destination, ns3::Ipv4Address source,
                                    uint32_t flow, bool use_port_source);
  std::shared_ptr<FabricRoutes> routes_;
  uint32_t node_;
  ns3::Ptr<ns3::Ipv4> ipv4_;
};

class EcmpRoutingHelper final : public ns3::Ipv4RoutingHelper {
 public:
  explicit EcmpRoutingHelper(std::shared_ptr<FabricRoutes> routes) : routes_(std::move(routes)) {}
  EcmpRoutingHelper* Copy() const override { return new EcmpRoutingHelper(*this); }
  ns3::Ptr<ns3::Ipv4RoutingProtocol> Create(ns3::Ptr<ns3::Node> node) const override;

 private:
  std::shared_ptr<FabricRoutes> routes_;
};

}  // namespace snr::dsim::ns3_backend
