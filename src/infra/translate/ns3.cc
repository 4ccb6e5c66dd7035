// The ns-3 translator: the fully qualified graph to the packet-level
// backend's network configuration (dsim/network/ns3/ns3_config.h).
//
// Which nodes ns-3 sees: components joined by links that state no
// bandwidth are one node (a switch's ports and its ASIC, a NIC's ports and
// its chip: wiring inside a part, with no capacity to model). Every such
// group holding a ranked NPU becomes that NPU; the other groups on the
// paths forward packets (switches, NICs, PCIe switches). Every edge whose
// link states a bandwidth becomes an ns-3 link with that bandwidth and
// latency; parallel edges stay parallel links, and ECMP spreads over them.
#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "common/error.h"
#include "dsim/network/ns3/ns3_config.h"
#include "infra/translate/translator.h"

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

struct Translation {
  dsim::Ns3NetworkConfig config;
  std::set<std::string> links_without_latency;
  std::vector<std::vector<NodeId>> members;  // per ns-3 node, the graph nodes it stands for
};

// A name for the nodes of one group: the device instance when the group is
// all of it, else the first node's qualified name.
std::string group_name(const Graph& g, const std::vector<NodeId>& members, const std::vector<uint32_t>& instance_nodes) {
  const uint32_t instance = g.device_instance_of(members.front());
  bool whole = members.size() == instance_nodes[instance];
  for (const NodeId node : members) whole = whole && g.device_instance_of(node) == instance;
  return whole ? g.device_instance_name(instance) : g.node_name(members.front());
}

Translation translate_graph(const Graph& g, const Annotations& a) {
  const auto& ranked = a.ranked_nodes;
  if (ranked.size() < 2) throw Error("ns3 translation: needs at least 2 ranked NPUs (xpu components)");
  Groups groups(g.node_count());
  for (const Edge& edge : g.edges()) {
    if (!g.links()[edge.link].bandwidth) groups.join(edge.a, edge.b);
  }
  // ns-3 node of each group root: NPUs first in rank order, then the
  // forwarding groups in order of their first appearance on a link.
  std::map<NodeId, uint32_t> index_of_root;
  for (size_t rank = 0; rank < ranked.size(); ++rank) {
    const NodeId root = groups.find(ranked[rank]);
    const auto [at, added] = index_of_root.emplace(root, static_cast<uint32_t>(rank));
    if (!added) {
      throw Error(fmt::format("ns3 translation: ranks {} ({}) and {} ({}) are joined by links without a bandwidth, "
                              "so they would be one ns-3 node; give those links a bandwidth",
                              at->second, g.node_name(ranked[at->second]), rank, g.node_name(ranked[rank])));
    }
  }
  Translation out;
  out.config.npus = static_cast<uint32_t>(ranked.size());
  uint32_t next = out.config.npus;
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
    out.config.links.push_back({ends[0], ends[1], link.bandwidth_bits_per_s() / 1e9, latency.value_or(0.0)});
  }
  out.config.switches = next - out.config.npus;
  out.members.resize(next);
  for (NodeId node = 0; node < g.node_count(); ++node) {
    const auto found = index_of_root.find(groups.find(node));
    if (found != index_of_root.end()) out.members[found->second].push_back(node);
  }
  std::vector<uint32_t> instance_nodes(g.device_instance_count(), 0);
  for (NodeId node = 0; node < g.node_count(); ++node) ++instance_nodes[g.device_instance_of(node)];
  std::set<std::string> names;
  for (uint32_t k = 0; k < next; ++k) {
    std::string name = k < out.config.npus ? g.node_name(ranked[k]) : group_name(g, out.members[k], instance_nodes);
    if (!names.insert(name).second) name = g.node_name(out.members[k].front());  // unique by construction
    names.insert(name);
    out.config.node_names.push_back(std::move(name));
  }
  return out;
}

class Ns3Translator final : public Translator {
 public:
  std::string_view name() const override { return "ns3"; }
  std::string_view description() const override {
    return "the ns-3 packet-level backend's network: NPUs, forwarding nodes and point-to-point links";
  }
  std::vector<std::string_view> sim_backends() const override { return {"ns3"}; }
  std::string_view network_configuration_file() const override { return "ns3.network.yaml"; }

  std::vector<TranslatedFile> translate(const Graph& g, const Annotations& a) const override {
    const Translation t = translate_graph(g, a);
    const std::string comment = fmt::format(
        "ns-3 network translated from InfraGraph '{}': {} NPUs, {} forwarding nodes, {} links.\n"
        "Components joined by links without a bandwidth are one node; see translation.json.",
        g.name(), t.config.npus, t.config.switches, t.config.links.size());
    // Checked as the backend will read it: a translation that does not parse
    // (a partitioned fabric) fails here, naming the NPU.
    const std::string yaml = dsim::ns3_network_yaml(t.config, comment);
    (void)dsim::parse_ns3_network(yaml, "ns3.network.yaml");
    return {{"ns3.network.yaml", yaml}, {"translation.json", report(g, t)}};
  }

 private:
  static std::string report(const Graph& g, const Translation& t) {
    nlohmann::ordered_json j;
    j["infrastructure"] = g.name();
    j["npus"] = t.config.npus;
    j["forwarding_nodes"] = t.config.switches;
    j["links"] = t.config.links.size();
    j["links_without_latency"] = t.links_without_latency;
    auto& nodes = j["nodes"] = nlohmann::ordered_json::array();
    for (size_t k = 0; k < t.members.size(); ++k) {
      nodes.push_back({{"node", k}, {"name", t.config.node_names[k]}, {"components", t.members[k].size()}});
    }
    return j.dump(2) + "\n";
  }
};

}  // namespace

SNR_REGISTER_TRANSLATOR(Ns3Translator);

}  // namespace snr::infra
