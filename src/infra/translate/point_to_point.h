// The part of the ns3 and noc translations they share: the fully qualified
// graph as nodes joined by point-to-point links, each backend then writing
// its own file.
//
// Which nodes the backends see: components joined by links that state no
// bandwidth are one node (a switch's ports and its ASIC, a NIC's ports and
// its chip: wiring inside a part, with no capacity to model). Every such
// group holding a ranked NPU becomes that NPU (nodes 0..N-1 in rank order);
// the other groups on the paths forward (switches, NICs, PCIe switches), in
// order of their first appearance on a link. Every edge whose link states a
// bandwidth becomes a full-duplex link with that bandwidth and latency;
// parallel edges stay parallel links.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "infra/annotations.h"
#include "infra/graph.h"

namespace snr::infra {

struct PointToPointNetwork {
  struct Link {
    uint32_t from = 0;
    uint32_t to = 0;
    double bits_per_s = 0;
    double latency_ns = 0;  // 0 when the link states none (listed below)
  };
  uint32_t npus = 0;
  std::vector<std::string> node_names;       // per node, unique
  std::vector<std::vector<NodeId>> members;  // per node, the graph nodes it stands for
  std::vector<Link> links;
  std::set<std::string> links_without_latency;

  [[nodiscard]] uint32_t forwarding_nodes() const { return static_cast<uint32_t>(node_names.size()) - npus; }
};

// Throws snr::Error (prefixed "<backend> translation:") with fewer than two
// ranks, or when two ranks would be one node.
PointToPointNetwork point_to_point_network(const Graph& g, const Annotations& a, std::string_view backend);

// translation.json: the infrastructure, counts, links without latency and
// every node with the number of components it stands for.
std::string point_to_point_report(const Graph& g, const PointToPointNetwork& network);

}  // namespace snr::infra
