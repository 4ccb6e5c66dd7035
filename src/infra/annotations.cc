#include "infra/annotations.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <deque>

#include "common/error.h"
#include "common/yaml_input.h"

namespace snr::infra {

using infragraph::ComponentChoice;

std::string_view role_name(Role role) {
  switch (role) {
    case Role::kHost: return "host";
    case Role::kSwitch: return "switch";
    case Role::kDevice: return "device";
  }
  return "?";
}

namespace {

Role template_role(const Graph& g, const DeviceTemplate& t) {
  bool npu = false, network = false;
  for (auto type : t.leaf_types) {
    const auto c = g.types()[type].choice;
    npu = npu || c == ComponentChoice::kXpu || c == ComponentChoice::kNic;
    network = network || c == ComponentChoice::kPort || c == ComponentChoice::kSwitch;
  }
  if (npu) return Role::kHost;
  return network ? Role::kSwitch : Role::kDevice;
}

void rank_nodes(const Graph& g, Annotations& a) {
  a.node_rank.assign(g.node_count(), -1);
  a.ranked_nodes.clear();
  for (auto choice : {ComponentChoice::kXpu, ComponentChoice::kNic}) {
    for (NodeId n = 0; n < g.node_count(); ++n) {
      if (g.node_type(n).choice != choice) continue;
      if (a.device_role[g.device_instance_of(n)] != Role::kHost) continue;
      a.node_rank[n] = static_cast<int32_t>(a.ranked_nodes.size());
      a.ranked_nodes.push_back(n);
    }
    if (!a.ranked_nodes.empty()) return;
  }
}

}  // namespace

Annotations annotate(const Graph& g) {
  Annotations a;
  std::vector<Role> block_role;
  for (const auto& b : g.blocks()) block_role.push_back(template_role(g, g.templates()[b.device_template]));
  a.device_role.reserve(g.device_instance_count());
  for (size_t bi = 0; bi < g.blocks().size(); ++bi) {
    for (uint32_t c = 0; c < g.blocks()[bi].count; ++c) a.device_role.push_back(block_role[bi]);
  }
  rank_nodes(g, a);
  // Tiers: multi-source BFS over device instances from every host.
  const size_t nd = g.device_instance_count();
  std::vector<std::vector<uint32_t>> device_adj(nd);
  for (const auto& e : g.edges()) {
    const uint32_t da = g.device_instance_of(e.a), db = g.device_instance_of(e.b);
    if (da != db) {
      device_adj[da].push_back(db);
      device_adj[db].push_back(da);
    }
  }
  a.device_tier.assign(nd, -1);
  std::deque<uint32_t> queue;
  for (uint32_t d = 0; d < nd; ++d) {
    if (a.device_role[d] == Role::kHost) {
      a.device_tier[d] = 0;
      queue.push_back(d);
    }
  }
  while (!queue.empty()) {
    const uint32_t d = queue.front();
    queue.pop_front();
    for (auto n : device_adj[d]) {
      if (a.device_tier[n] >= 0 || a.device_role[n] == Role::kHost) continue;
      a.device_tier[n] = a.device_tier[d] + 1;
      queue.push_back(n);
    }
  }
  return a;
}

void apply_annotations(const Graph& g, Annotations& a, std::string_view text, std::string_view source) {
  const YAML::Node root = load_yaml_document(text, source, "InfraGraph annotations");
  auto fail = [&](const YAML::Node& n, const std::string& path, const std::string& msg) {
    const int line = n.IsDefined() && !n.Mark().is_null() ? n.Mark().line + 1 : 0;
    throw Error(fmt::format("{}:{}: {}: {}", source, line, path, msg));
  };
  auto check_keys = [&](const YAML::Node& n, const std::string& path, std::initializer_list<std::string_view> keys) {
    if (!n.IsMap()) fail(n, path, "expected a mapping");
    for (const auto& kv : n) {
      const auto k = kv.first.as<std::string>();
      bool ok = false;
      for (auto key : keys) ok = ok || k == key;
      if (!ok) fail(kv.first, path, fmt::format("unknown key '{}'", k));
    }
  };
  auto attributes = [&](const YAML::Node& n, const std::string& path) {
    std::map<std::string, std::string> out;
    const YAML::Node list = n["attributes"];
    if (!list.IsDefined()) return out;
    if (!list.IsSequence()) fail(list, path + ".attributes", "expected a list");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = fmt::format("{}.attributes[{}]", path, i);
      check_keys(list[i], p, {"attribute", "value"});
      if (!list[i]["attribute"].IsScalar() || !list[i]["value"].IsScalar()) fail(list[i], p, "needs 'attribute' and 'value'");
      out[list[i]["attribute"].as<std::string>()] = list[i]["value"].as<std::string>();
    }
    return out;
  };
  check_keys(root, "annotation", {"nodes", "links", "edges", "graph"});
  if (root["edges"].IsDefined() || root["graph"].IsDefined()) {
    fail(root, "annotation", "'edges' and 'graph' annotations are not supported; annotate nodes or links");
  }
  bool ranks_given = false;
  if (const YAML::Node nodes = root["nodes"]; nodes.IsDefined()) {
    if (!nodes.IsSequence()) fail(nodes, "annotation.nodes", "expected a list");
    for (size_t i = 0; i < nodes.size(); ++i) {
      const std::string p = fmt::format("annotation.nodes[{}]", i);
      check_keys(nodes[i], p, {"name", "attributes"});
      if (!nodes[i]["name"].IsScalar()) fail(nodes[i], p, "missing 'name'");
      const auto name = nodes[i]["name"].as<std::string>();
      const auto attrs = attributes(nodes[i], p);
      std::vector<NodeId> targets;
      if (auto n = g.find_node(name)) {
        targets.push_back(*n);
      } else {
        std::vector<infragraph::SliceSegment> segs;
        try {
          segs = infragraph::parse_slice_path(name);
        } catch (const Error& e) {
          fail(nodes[i], p + ".name", e.what());
        }
        const InstanceBlock* block = nullptr;
        for (const auto& b : g.blocks()) {
          if (segs.size() == 1 && b.name == segs[0].name) block = &b;
        }
        if (block == nullptr) fail(nodes[i], p + ".name", fmt::format("'{}' is not a node or instance of the graph", name));
        for (auto c : segs[0].indices(block->count, p + ".name")) {
          for (uint32_t l = 0; l < block->leaves; ++l) targets.push_back(block->first_node + static_cast<uint32_t>(c) * block->leaves + l);
        }
      }
      for (auto n : targets) {
        for (const auto& [k, v] : attrs) a.node_attributes[n][k] = v;
      }
      ranks_given = ranks_given || attrs.contains("rank");
    }
  }
  if (const YAML::Node links = root["links"]; links.IsDefined()) {
    if (!links.IsSequence()) fail(links, "annotation.links", "expected a list");
    for (size_t i = 0; i < links.size(); ++i) {
      const std::string p = fmt::format("annotation.links[{}]", i);
      check_keys(links[i], p, {"name", "attributes"});
      if (!links[i]["name"].IsScalar()) fail(links[i], p, "missing 'name'");
      const auto name = links[i]["name"].as<std::string>();
      bool found = false;
      for (LinkId l = 0; l < g.links().size(); ++l) {
        if (g.links()[l].qualified_name() != name) continue;
        found = true;
        for (const auto& [k, v] : attributes(links[i], p)) a.link_attributes[l][k] = v;
      }
      if (!found) fail(links[i], p + ".name", fmt::format("'{}' is not a link of the graph", name));
    }
  }
  if (!ranks_given) return;
  // Explicit ranks replace the default ones.
  std::vector<NodeId> ranked;
  std::vector<int32_t> node_rank(g.node_count(), -1);
  for (const auto& [n, attrs] : a.node_attributes) {
    auto it = attrs.find("rank");
    if (it == attrs.end()) continue;
    int32_t r = -1;
    auto [ptr, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), r);
    if (ec != std::errc() || ptr != it->second.data() + it->second.size() || r < 0 ||
        static_cast<size_t>(r) >= g.node_count()) {
      throw Error(fmt::format("{}: node {}: rank '{}' is not a valid rank", source, g.node_name(n), it->second));
    }
    if (static_cast<size_t>(r) >= ranked.size()) ranked.resize(static_cast<size_t>(r) + 1, UINT32_MAX);
    if (ranked[static_cast<size_t>(r)] != UINT32_MAX) {
      throw Error(fmt::format("{}: rank {} is given to both {} and {}", source, r, g.node_name(ranked[static_cast<size_t>(r)]),
                              g.node_name(n)));
    }
    ranked[static_cast<size_t>(r)] = n;
    node_rank[n] = r;
  }
  for (size_t r = 0; r < ranked.size(); ++r) {
    if (ranked[r] == UINT32_MAX) throw Error(fmt::format("{}: ranks must be 0..{} with none missing; rank {} is missing", source, ranked.size() - 1, r));
  }
  a.ranked_nodes = std::move(ranked);
  a.node_rank = std::move(node_rank);
}

}  // namespace snr::infra
