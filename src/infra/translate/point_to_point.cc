#include "infra/translate/point_to_point.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

#include "common/error.h"

namespace snr::infra {
namespace {

class Groups {
 public:
  explicit Groups(size_t nodes) : parent_(nodes) { std::iota(parent_.begin(), parent_.end(), NodeId{0}); }
  NodeId find(NodeId node) {
    while (parent_[node] != node) {
      parent_[node] = parent_[parent_[node]];
      node = parent_[node];
    }
    return node;
  }
  void join(NodeId a, NodeId b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<NodeId> parent_;
};

// A name for the nodes of one group: the device instance when the group is
// all of it, else the first node's qualified name.
std::string group_name(const Graph& g, const std::vector<NodeId>& members, const std::vector<uint32_t>& instance_nodes) {
  const uint32_t instance = g.device_instance_of(members.front());
  bool whole = members.size() == instance_nodes[instance];
  for (const NodeId node : members) whole = whole && g.device_instance_of(node) == instance;
  return whole ? g.device_instance_name(instance) : g.node_name(members.front());
}

}  // namespace

PointToPointNetwork point_to_point_network(const Graph& g, const Annotations& a, std::string_view backend) {
  const auto& ranked = a.ranked_nodes;
  if (ranked.size() < 2) throw Error(fmt::format("{} translation: needs at least 2 ranked NPUs (xpu components)", backend));
  Groups groups(g.node_count());
  for (const Edge& edge : g.edges()) {
    if (!g.links()[edge.link].bandwidth) groups.join(edge.a, edge.b);
  }
  // Node of each group root: NPUs first in rank order, then the forwarding
  // groups in order of their first appearance on a link.
  std::map<NodeId, uint32_t> index_of_root;
  for (size_t rank = 0; rank < ranked.size(); ++rank) {
    const NodeId root = groups.find(ranked[rank]);
    const auto [at, added] = index_of_root.emplace(root, static_cast<uint32_t>(rank));
    if (!added) {
      throw Error(fmt::format("{} translation: ranks {} ({}) and {} ({}) are joined by links without a bandwidth, "
                              "so they would be one {} node; give those links a bandwidth",
                              backend, at->second, g.node_name(ranked[at->second]), rank, g.node_name(ranked[rank]),
                              backend));
    }
  }
  PointToPointNetwork out;
  out.npus = static_cast<uint32_t>(ranked.size());
  uint32_t next = out.npus;
  for (const Edge& edge : g.edges()) {
    const LinkClass& link = g.links()[edge.link];
    if (!link.bandwidth) continue;
    const NodeId ra = groups.find(edge.a), rb = groups.find(edge.b);
    if (ra == rb) continue;  // a link with bandwidth inside a part that is one node anyway
    uint32_t ends[2];
    const NodeId roots[2] = {ra, rb};
    for (int side = 0; side < 2; ++side) {
      const auto [at, added] = index_of_root.emplace(roots[side], next);
      if (added) ++next;
      ends[side] = at->second;
    }
    const std::optional<double> latency = link.latency_ns();
    if (!latency) out.links_without_latency.insert(link.qualified_name());
    out.links.push_back({ends[0], ends[1], link.bandwidth_bits_per_s(), latency.value_or(0.0)});
  }
  out.members.resize(next);
  for (NodeId node = 0; node < g.node_count(); ++node) {
    const auto found = index_of_root.find(groups.find(node));
    if (found != index_of_root.end()) out.members[found->second].push_back(node);
  }
  std::vector<uint32_t> instance_nodes(g.device_instance_count(), 0);
  for (NodeId node = 0; node < g.node_count(); ++node) ++instance_nodes[g.device_instance_of(node)];
  std::set<std::string> names;
  for (uint32_t k = 0; k < next; ++k) {
    std::string name = k < out.npus ? g.node_name(ranked[k]) : group_name(g, out.members[k], instance_nodes);
    if (!names.insert(name).second) name = g.node_name(out.members[k].front());  // unique by construction
    names.insert(name);
    out.node_names.push_back(std::move(name));
  }
  return out;
}

std::string point_to_point_report(const Graph& g, const PointToPointNetwork& network) {
  nlohmann::ordered_json j;
  j["infrastructure"] = g.name();
  j["npus"] = network.npus;
  j["forwarding_nodes"] = network.forwarding_nodes();
  j["links"] = network.links.size();
  j["links_without_latency"] = network.links_without_latency;
  auto& nodes = j["nodes"] = nlohmann::ordered_json::array();
  for (size_t k = 0; k < network.members.size(); ++k) {
    nodes.push_back({{"node", k}, {"name", network.node_names[k]}, {"components", network.members[k].size()}});
  }
  return j.dump(2) + "\n";
}

}  // namespace snr::infra
