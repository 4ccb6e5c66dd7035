#include "dsim/network/ns3/ecmp_routing.h"

#include <fmt/format.h>

#include <deque>
#include <limits>

#include "common/error.h"

namespace snr::dsim::ns3_backend {
namespace {

constexpr uint32_t kUnreachable = std::numeric_limits<uint32_t>::max();

// splitmix64: a well-mixed hash of a word, the same on every platform.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

ns3::TypeId MessageTag::GetTypeId() {
  static const ns3::TypeId id =
      ns3::TypeId("snr::MessageTag").SetParent<ns3::Tag>().SetGroupName("snr").AddConstructor<MessageTag>();
  return id;
}

FabricRoutes::FabricRoutes(const Ns3NetworkConfig& config)
    : mode_(config.ecmp),
      seed_(config.ecmp_seed),
      npus_(config.npus),
      ports_(config.node_count()),
      packet_draws_(config.node_count()) {
  for (uint32_t node = 0; node < config.node_count(); ++node) packet_draws_[node] = mix(seed_ ^ (uint64_t{node} << 32));
}

void FabricRoutes::add_port(uint32_t node, Port port) { ports_[node].push_back(std::move(port)); }

void FabricRoutes::compute_distances() {
  hops_.assign(npus_, std::vector<uint32_t>(ports_.size(), kUnreachable));
  for (uint32_t npu = 0; npu < npus_; ++npu) {
    std::vector<uint32_t>& hops = hops_[npu];
    std::deque<uint32_t> frontier{npu};
    hops[npu] = 0;
    while (!frontier.empty()) {
      const uint32_t node = frontier.front();
      frontier.pop_front();
      for (const Port& port : ports_[node]) {
        if (hops[port.peer] == kUnreachable) {
          hops[port.peer] = hops[node] + 1;
          frontier.push_back(port.peer);
        }
      }
    }
  }
}

const FabricRoutes::Port& FabricRoutes::next_port(uint32_t node, uint32_t npu, uint32_t flow) {
  const std::vector<uint32_t>& hops = hops_[npu];
  candidates_.clear();
  const std::vector<Port>& ports = ports_[node];
  for (uint32_t p = 0; p < ports.size(); ++p) {
    if (hops[ports[p].peer] + 1 == hops[node]) candidates_.push_back(p);
  }
  if (candidates_.empty()) {
    // The configuration was checked to be connected; this would be a bug.
    throw Error(fmt::format("ns-3 backend: node {} has no way to NPU {}", node, npu));
  }
  size_t pick = 0;
  switch (mode_) {
    case EcmpMode::kFirst: break;
    case EcmpMode::kFlow:
      // Each node hashes with its own salt, as switches seed their hash
      // differently: otherwise every tier would make the same choice.
      pick = mix(mix(seed_ ^ flow) ^ (uint64_t{node} << 32 | npu)) % candidates_.size();
      break;
    case EcmpMode::kPacket:
      packet_draws_[node] = mix(packet_draws_[node]);
      pick = packet_draws_[node] % candidates_.size();
      break;
  }
  return ports[candidates_[pick]];
}

int64_t FabricRoutes::npu_of(ns3::Ipv4Address address) const {
  const auto found = npu_of_address_.find(address.Get());
  return found == npu_of_address_.end() ? -1 : static_cast<int64_t>(found->second);
}

ns3::TypeId EcmpRouting::GetTypeId() {
  static const ns3::TypeId id =
      ns3::TypeId("snr::EcmpRouting").SetParent<ns3::Ipv4RoutingProtocol>().SetGroupName("snr");
  return id;
}

ns3::Ptr<ns3::Ipv4Route> EcmpRouting::route_to(uint32_t npu, ns3::Ipv4Address destination, ns3::Ipv4Address source,
                                               uint32_t flow, bool use_port_source) {
  const FabricRoutes::Port& port = routes_->next_port(node_, npu, flow);
  auto route = ns3::Create<ns3::Ipv4Route>();
  route->SetDestination(destination);
  route->SetSource(use_port_source ? port.local : source);
  route->SetGateway(port.peer_address);
  route->SetOutputDevice(port.device);
  return route;
}

ns3::Ptr<ns3::Ipv4Route> EcmpRouting::RouteOutput(ns3::Ptr<ns3::Packet> packet, const ns3::Ipv4Header& header,
                                                  ns3::Ptr<ns3::NetDevice> /*oif*/, ns3::Socket::SocketErrno& error) {
  const int64_t npu = routes_->npu_of(header.GetDestination());
  if (npu < 0) {
    error = ns3::Socket::ERROR_NOROUTETOHOST;
    return nullptr;
  }
  MessageTag tag;
  if (packet != nullptr) packet->PeekPacketTag(tag);
  error = ns3::Socket::ERROR_NOTERROR;
  return route_to(static_cast<uint32_t>(npu), header.GetDestination(), ns3::Ipv4Address(), tag.ecmp_key(), true);
}

bool EcmpRouting::RouteInput(ns3::Ptr<const ns3::Packet> packet, const ns3::Ipv4Header& header,
                             ns3::Ptr<const ns3::NetDevice> idev, UnicastForwardCallback forward,
                             MulticastForwardCallback /*multicast*/, LocalDeliverCallback local,
                             ErrorCallback error) {
  const int32_t interface = ipv4_->GetInterfaceForDevice(idev);
  if (ipv4_->IsDestinationAddress(header.GetDestination(), static_cast<uint32_t>(interface))) {
    if (local.IsNull()) return false;
    local(packet, header, static_cast<uint32_t>(interface));
    return true;
  }
  const int64_t npu = routes_->npu_of(header.GetDestination());
  if (npu < 0) {
    error(packet, header, ns3::Socket::ERROR_NOROUTETOHOST);
    return true;
  }
  MessageTag tag;
  packet->PeekPacketTag(tag);
  forward(route_to(static_cast<uint32_t>(npu), header.GetDestination(), header.GetSource(), tag.ecmp_key(), false),
          packet, header);
  return true;
}

void EcmpRouting::PrintRoutingTable(ns3::Ptr<ns3::OutputStreamWrapper> stream, ns3::Time::Unit /*unit*/) const {
  *stream->GetStream() << "node " << node_ << ": shortest-path ECMP over " << routes_->ports(node_).size()
                       << " ports\n";
}

ns3::Ptr<ns3::Ipv4RoutingProtocol> EcmpRoutingHelper::Create(ns3::Ptr<ns3::Node> node) const {
  return ns3::CreateObject<EcmpRouting>(routes_, node->GetId() - routes_->first_ns3_node);
}

}  // namespace snr::dsim::ns3_backend
