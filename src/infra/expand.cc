// Expansion of an InfraGraph document into its fully qualified graph.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "common/error.h"
#include "infra/graph.h"

namespace snr::infra {

using infragraph::ComponentChoice;
using infragraph::Device;
using infragraph::Infrastructure;
using infragraph::Scheme;
using infragraph::SliceSegment;

namespace {

uint64_t pair_key(uint32_t a, uint32_t b) {
  if (a > b) std::swap(a, b);
  return (static_cast<uint64_t>(a) << 32) | b;
}

// Refuses `count` nodes or edges (`noun`) over `limit` before they are
// made; `what` names the device or instance, formatted only then.
template <typename WhatFn>
void check_size(uint64_t count, uint64_t limit, std::string_view noun, WhatFn&& what) {
  if (count > limit) {
    throw Error(fmt::format("{} expands to {} {} or more; at most {} fit in one graph", what(), count, noun, limit));
  }
}

// An endpoint list and whether every level of it was sliced explicitly.
struct Endpoints {
  std::vector<uint32_t> ids;
  bool explicit_slices = true;
};

}  // namespace

class GraphBuilder {
 public:
  explicit GraphBuilder(const Infrastructure& infra) : infra_(infra) {}

  Graph build() {
    graph_.name_ = infra_.name;
    if (infra_.bare_device) {
      const Device& d = infra_.devices.front();
      add_block(d.name, d.name, 1);
    } else {
      for (const auto& inst : infra_.instances) add_block(inst.name, inst.device, static_cast<uint32_t>(inst.count));
    }
    // Device-internal edges, copy by copy.
    uint64_t internal_edges = 0;
    for (const auto& block : graph_.blocks_) {
      internal_edges += uint64_t{block.count} * graph_.templates_[block.device_template].edges.size();
      check_size(internal_edges, kMaxGraphEdges, "edges",
                 [&] { return fmt::format("{}instance '{}'", where(0), block.name); });
    }
    graph_.edges_.reserve(internal_edges);
    for (const auto& block : graph_.blocks_) {
      const DeviceTemplate& t = graph_.templates_[block.device_template];
      for (uint32_t c = 0; c < block.count; ++c) {
        const NodeId base = block.first_node + c * block.leaves;
        for (const auto& e : t.edges) graph_.edges_.push_back({base + e.a, base + e.b, e.link});
      }
    }
    for (size_t i = 0; i < infra_.edges.size(); ++i) add_infrastructure_edge(i);
    build_adjacency();
    return std::move(graph_);
  }

 private:
  std::string where(int line) const {
    if (infra_.source.empty()) return "";
    return line > 0 ? fmt::format("{}:{}: ", infra_.source, line) : infra_.source + ": ";
  }

  uint32_t type_id(const infragraph::Component& c) {
    const std::string name = c.choice == ComponentChoice::kCustom ? c.custom_type : std::string(choice_name(c.choice));
    for (uint32_t i = 0; i < graph_.types_.size(); ++i) {
      if (graph_.types_[i].name == name && graph_.types_[i].choice == c.choice) return i;
    }
    graph_.types_.push_back({name, c.choice});
    return static_cast<uint32_t>(graph_.types_.size() - 1);
  }

  LinkId link_id(const std::string& scope, const infragraph::Link& link) {
    for (uint32_t i = 0; i < graph_.links_.size(); ++i) {
      if (graph_.links_[i].scope == scope && graph_.links_[i].name == link.name) return i;
    }
    graph_.links_.push_back({scope, link.name, link.bandwidth, link.latency});
    return static_cast<LinkId>(graph_.links_.size() - 1);
  }

  // Walks a component path through `device` (and composed devices) and
  // returns the selected leaf names relative to `device`.
  std::vector<std::string> resolve_path(const Device* device, const std::string& text, const std::string& what,
                                        bool& explicit_slices) const {
    std::vector<SliceSegment> segs = infragraph::parse_slice_path(text);
    std::vector<std::string> prefixes{""};
    for (size_t i = 0; i < segs.size(); ++i) {
      if (i == 0 && segs.size() > 1 && segs[0].name == device->name && !segs[0].has_slice &&
          device->find_component(segs[0].name) == nullptr) {
        continue;
      }
      const auto* comp = device->find_component(segs[i].name);
      if (comp == nullptr) throw Error(fmt::format("{}: '{}' is not a component of '{}'", what, segs[i].name, device->name));
      explicit_slices = explicit_slices && segs[i].has_slice;
      const auto idxs = segs[i].indices(comp->count, what);
      std::vector<std::string> next;
      next.reserve(prefixes.size() * idxs.size());
      for (const auto& p : prefixes) {
        for (auto idx : idxs) next.push_back(fmt::format("{}{}.{}", p.empty() ? "" : p + ".", comp->name, idx));
      }
      prefixes = std::move(next);
      if (comp->choice == ComponentChoice::kDevice) {
        if (i + 1 == segs.size()) throw Error(fmt::format("{}: '{}' is a composed device, not a component", what, comp->name));
        device = infra_.find_device(comp->name);
      }
    }
    return prefixes;
  }

  uint32_t template_for(const Device& d) {
    for (uint32_t i = 0; i < graph_.templates_.size(); ++i) {
      if (graph_.templates_[i].device == d.name) return i;
    }
    DeviceTemplate t;
    t.device = d.name;
    const auto device_what = [&] { return fmt::format("{}device '{}'", where(0), d.name); };
    std::unordered_map<uint64_t, LinkId> seen;
    for (const auto& comp : d.components) {
      if (comp.choice == ComponentChoice::kDevice) {
        const uint32_t sub_id = template_for(*infra_.find_device(comp.name));
        const DeviceTemplate& sub = graph_.templates_[sub_id];
        const auto copies = static_cast<uint64_t>(comp.count);
        check_size(t.leaf_names.size() + copies * sub.leaf_names.size(), kMaxGraphNodes, "nodes", device_what);
        check_size(t.edges.size() + copies * sub.edges.size(), kMaxGraphEdges, "edges", device_what);
        for (int64_t j = 0; j < comp.count; ++j) {
          const auto base = static_cast<uint32_t>(t.leaf_names.size());
          for (size_t l = 0; l < sub.leaf_names.size(); ++l) {
            t.leaf_names.push_back(fmt::format("{}.{}.{}", comp.name, j, sub.leaf_names[l]));
            t.leaf_types.push_back(sub.leaf_types[l]);
          }
          for (const auto& e : sub.edges) {
            t.edges.push_back({base + e.a, base + e.b, e.link});
            seen.emplace(pair_key(base + e.a, base + e.b), e.link);
          }
        }
        continue;
      }
      const uint32_t type = type_id(comp);
      check_size(t.leaf_names.size() + static_cast<uint64_t>(comp.count), kMaxGraphNodes, "nodes", device_what);
      for (int64_t j = 0; j < comp.count; ++j) {
        t.leaf_names.push_back(fmt::format("{}.{}", comp.name, j));
        t.leaf_types.push_back(type);
      }
    }
    for (uint32_t i = 0; i < t.leaf_names.size(); ++i) t.leaf_index.emplace(t.leaf_names[i], i);
    for (size_t ei = 0; ei < d.edges.size(); ++ei) {
      const auto& e = d.edges[ei];
      const std::string path = fmt::format("{}device '{}' edges[{}]", where(e.line), d.name, ei);
      Endpoints eps[2];
      int k = 0;
      for (const auto* ep : {&e.ep1, &e.ep2}) {
        const std::string text = ep->device.empty() ? ep->component : ep->device + "." + ep->component;
        const std::string what = fmt::format("{}.ep{}", path, k + 1);
        for (const auto& leaf : resolve_path(&d, text, what, eps[k].explicit_slices)) {
          eps[k].ids.push_back(t.leaf_index.at(leaf));
        }
        ++k;
      }
      const LinkId link = link_id(d.name, *d.find_link(e.link));
      connect(e.scheme, eps[0], eps[1], path, [&](uint32_t a, uint32_t b) {
        auto [it, inserted] = seen.emplace(pair_key(a, b), link);
        if (!inserted) {
          if (it->second != link) {
            throw Error(fmt::format("{}: {} – {} is already joined by link '{}', not '{}'", path, t.leaf_names[a],
                                    t.leaf_names[b], graph_.links_[it->second].name, e.link));
          }
          return;
        }
        check_size(t.edges.size() + 1, kMaxGraphEdges, "edges", device_what);
        t.edges.push_back({a, b, link});
      });
    }
    graph_.templates_.push_back(std::move(t));
    return static_cast<uint32_t>(graph_.templates_.size() - 1);
  }

  template <typename AddFn>
  void connect(Scheme scheme, const Endpoints& ep1, const Endpoints& ep2, const std::string& path, AddFn&& add) {
    const auto& a = ep1.ids;
    const auto& b = ep2.ids;
    switch (scheme) {
      case Scheme::kMany2Many:
        for (auto x : a) {
          for (auto y : b) {
            if (x != y) add(x, y);
          }
        }
        return;
      case Scheme::kOne2One: {
        // Lists of different lengths pair up to the shorter one only when the
        // longer side left a level unsliced ("as many as the other side");
        // two explicit selections of different sizes contradict each other.
        if (a.size() != b.size()) {
          const bool longer_explicit = a.size() > b.size() ? ep1.explicit_slices : ep2.explicit_slices;
          if (longer_explicit) {
            throw Error(fmt::format("{}: one2one needs endpoint lists of equal length; ep1 selects {}, ep2 selects {}",
                                    path, a.size(), b.size()));
          }
        }
        const size_t n = std::min(a.size(), b.size());
        for (size_t i = 0; i < n; ++i) {
          if (a[i] != b[i]) add(a[i], b[i]);
        }
        return;
      }
      case Scheme::kRing: {
        if (a.size() != b.size()) {
          throw Error(fmt::format("{}: ring needs endpoint lists of equal length; ep1 selects {}, ep2 selects {}", path,
                                  a.size(), b.size()));
        }
        if (a.size() < 2) throw Error(fmt::format("{}: ring needs at least 2 endpoints", path));
        for (size_t i = 0; i < a.size(); ++i) {
          const auto y = b[(i + 1) % b.size()];
          if (a[i] != y) add(a[i], y);
        }
        return;
      }
    }
  }

  void add_block(const std::string& name, const std::string& device, uint32_t count) {
    InstanceBlock b;
    b.name = name;
    b.device_template = template_for(*infra_.find_device(device));
    b.count = count;
    b.first_node = static_cast<NodeId>(graph_.node_count_);
    b.leaves = static_cast<uint32_t>(graph_.templates_[b.device_template].leaf_names.size());
    const uint64_t total = graph_.node_count_ + static_cast<uint64_t>(count) * b.leaves;
    check_size(total, kMaxGraphNodes, "nodes", [&] { return fmt::format("{}instance '{}'", where(0), name); });
    graph_.node_count_ = total;
    graph_.block_index_.emplace(name, static_cast<uint32_t>(graph_.blocks_.size()));
    graph_.block_device_instance_base_.push_back(static_cast<uint32_t>(graph_.device_instance_count_));
    graph_.device_instance_count_ += count;
    graph_.blocks_.push_back(std::move(b));
  }

  void add_infrastructure_edge(size_t index) {
    const auto& e = infra_.edges[index];
    const std::string path = fmt::format("{}edges[{}]", where(e.line), index);
    Endpoints eps[2];
    int k = 0;
    for (const auto* ep : {&e.ep1, &e.ep2}) {
      const std::string what = fmt::format("{}.ep{}", path, k + 1);
      const auto segs = infragraph::parse_slice_path(ep->instance);
      const InstanceBlock& block = graph_.blocks_[graph_.block_index_.at(segs[0].name)];
      const DeviceTemplate& t = graph_.templates_[block.device_template];
      eps[k].explicit_slices = segs[0].has_slice;
      const auto copies = segs[0].indices(block.count, what + ".instance");
      const auto leaves = resolve_path(infra_.find_device(t.device), ep->component, what + ".component",
                                       eps[k].explicit_slices);
      for (auto c : copies) {
        for (const auto& leaf : leaves) {
          eps[k].ids.push_back(block.first_node + static_cast<uint32_t>(c) * block.leaves + t.leaf_index.at(leaf));
        }
      }
      ++k;
    }
    const LinkId link = link_id("", *infra_.find_link(e.link));
    connect(e.scheme, eps[0], eps[1], path, [&](NodeId a, NodeId b) {
      auto [it, inserted] = infra_seen_.emplace(pair_key(a, b), link);
      if (!inserted) {
        if (it->second != link) {
          throw Error(fmt::format("{}: {} – {} is already joined by link '{}', not '{}'", path, graph_.node_name(a),
                                  graph_.node_name(b), graph_.links_[it->second].name, e.link));
        }
        return;
      }
      if (graph_.device_instance_of(a) == graph_.device_instance_of(b)) {
        // Inside one device instance: it may repeat one of the device's own edges.
        const auto& t = graph_.templates_[graph_.blocks_[graph_.block_of(a)].device_template];
        const uint32_t la = graph_.leaf_of(a), lb = graph_.leaf_of(b);
        for (const auto& te : t.edges) {
          if (pair_key(te.a, te.b) == pair_key(la, lb)) {
            throw Error(fmt::format("{}: {} – {} is already joined inside its device by link '{}'", path,
                                    graph_.node_name(a), graph_.node_name(b), graph_.links_[te.link].name));
          }
        }
      }
      check_size(graph_.edges_.size() + 1, kMaxGraphEdges, "edges", [&] { return path; });
      graph_.edges_.push_back({a, b, link});
    });
  }

  void build_adjacency() {
    const size_t n = graph_.node_count_;
    graph_.offsets_.assign(n + 1, 0);
    for (const auto& e : graph_.edges_) {
      ++graph_.offsets_[e.a + 1];
      ++graph_.offsets_[e.b + 1];
    }
    for (size_t i = 0; i < n; ++i) graph_.offsets_[i + 1] += graph_.offsets_[i];
    graph_.adjacency_.resize(graph_.offsets_[n]);
    std::vector<uint32_t> fill(graph_.offsets_.begin(), graph_.offsets_.end() - 1);
    for (uint32_t i = 0; i < graph_.edges_.size(); ++i) {
      const auto& e = graph_.edges_[i];
      graph_.adjacency_[fill[e.a]++] = {e.b, i};
      graph_.adjacency_[fill[e.b]++] = {e.a, i};
    }
  }

  const Infrastructure& infra_;
  Graph graph_;
  std::unordered_map<uint64_t, LinkId> infra_seen_;
};

Graph expand(const Infrastructure& infra) { return GraphBuilder(infra).build(); }

uint32_t Graph::block_of(NodeId node) const {
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), node,
                             [](NodeId n, const InstanceBlock& b) { return n < b.first_node; });
  return static_cast<uint32_t>(it - blocks_.begin() - 1);
}

uint32_t Graph::copy_of(NodeId node) const {
  const auto& b = blocks_[block_of(node)];
  return (node - b.first_node) / b.leaves;
}

uint32_t Graph::leaf_of(NodeId node) const {
  const auto& b = blocks_[block_of(node)];
  return (node - b.first_node) % b.leaves;
}

uint32_t Graph::device_instance_of(NodeId node) const {
  const uint32_t bi = block_of(node);
  const auto& b = blocks_[bi];
  return block_device_instance_base_[bi] + (node - b.first_node) / b.leaves;
}

std::string Graph::device_instance_name(uint32_t device_instance) const {
  auto it = std::upper_bound(block_device_instance_base_.begin(), block_device_instance_base_.end(), device_instance);
  const auto bi = static_cast<size_t>(it - block_device_instance_base_.begin() - 1);
  return fmt::format("{}.{}", blocks_[bi].name, device_instance - block_device_instance_base_[bi]);
}

std::string Graph::node_name(NodeId node) const {
  const auto& b = blocks_[block_of(node)];
  const uint32_t rel = node - b.first_node;
  return fmt::format("{}.{}.{}", b.name, rel / b.leaves, templates_[b.device_template].leaf_names[rel % b.leaves]);
}

const NodeType& Graph::node_type(NodeId node) const {
  const auto& b = blocks_[block_of(node)];
  return types_[templates_[b.device_template].leaf_types[(node - b.first_node) % b.leaves]];
}

std::optional<NodeId> Graph::find_node(std::string_view name) const {
  const size_t d1 = name.find('.');
  if (d1 == std::string_view::npos) return std::nullopt;
  const size_t d2 = name.find('.', d1 + 1);
  if (d2 == std::string_view::npos) return std::nullopt;
  auto it = block_index_.find(std::string(name.substr(0, d1)));
  if (it == block_index_.end()) return std::nullopt;
  const auto& b = blocks_[it->second];
  uint32_t copy = 0;
  const auto idx = name.substr(d1 + 1, d2 - d1 - 1);
  auto [ptr, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), copy);
  if (ec != std::errc() || ptr != idx.data() + idx.size() || copy >= b.count) return std::nullopt;
  const auto& t = templates_[b.device_template];
  auto leaf = t.leaf_index.find(std::string(name.substr(d2 + 1)));
  if (leaf == t.leaf_index.end()) return std::nullopt;
  return b.first_node + copy * b.leaves + leaf->second;
}

}  // namespace snr::infra
