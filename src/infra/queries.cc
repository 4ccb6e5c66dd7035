#include "infra/queries.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <queue>
#include <unordered_map>

#include "common/error.h"

namespace snr::infra {

namespace {

constexpr uint32_t kUnseen = std::numeric_limits<uint32_t>::max();

void bfs(const Graph& g, NodeId source, std::vector<uint32_t>& dist, std::vector<NodeId>* parent) {
  std::fill(dist.begin(), dist.end(), kUnseen);
  std::vector<NodeId> queue;
  queue.reserve(g.node_count());
  dist[source] = 0;
  queue.push_back(source);
  for (size_t head = 0; head < queue.size(); ++head) {
    const NodeId n = queue[head];
    for (const auto& adj : g.neighbours(n)) {
      if (dist[adj.node] != kUnseen) {
        continue;
      }
      dist[adj.node] = dist[n] + 1;
      if (parent != nullptr) (*parent)[adj.node] = n;
      queue.push_back(adj.node);
    }
  }
}

}  // namespace

std::vector<NodeId> shortest_path(const Graph& g, NodeId a, NodeId b) {
  std::vector<uint32_t> dist(g.node_count());
  std::vector<NodeId> parent(g.node_count(), kUnseen);
  // Search from b so that following parents walks a → b; neighbours are in
  // edge order, which makes ties deterministic.
  bfs(g, b, dist, &parent);
  if (dist[a] == kUnseen) return {};
  std::vector<NodeId> path{a};
  for (NodeId n = a; n != b; n = parent[n]) path.push_back(parent[n]);
  return path;
}

HopHistogram hop_histogram(const Graph& g, std::span<const NodeId> endpoints) {
  HopHistogram h;
  std::vector<uint32_t> dist(g.node_count());
  for (size_t i = 0; i < endpoints.size(); ++i) {
    bfs(g, endpoints[i], dist, nullptr);
    for (size_t j = i + 1; j < endpoints.size(); ++j) {
      const uint32_t d = dist[endpoints[j]];
      if (d == kUnseen) {
        ++h.unreachable_pairs;
      } else {
        ++h.pairs_by_hops[d];
      }
    }
  }
  return h;
}

namespace {

// Dinic's max flow on an undirected graph with a super source and sink.
class MaxFlow {
 public:
  explicit MaxFlow(size_t n) : head_(n, -1), level_(n), it_(n) {}
  void add_undirected(uint32_t a, uint32_t b, double cap) {
    arcs_.push_back({b, head_[a], cap});
    head_[a] = static_cast<int32_t>(arcs_.size() - 1);
    arcs_.push_back({a, head_[b], cap});
    head_[b] = static_cast<int32_t>(arcs_.size() - 1);
  }
  void add_directed(uint32_t a, uint32_t b, double cap) {
    arcs_.push_back({b, head_[a], cap});
    head_[a] = static_cast<int32_t>(arcs_.size() - 1);
    arcs_.push_back({a, head_[b], 0});
    head_[b] = static_cast<int32_t>(arcs_.size() - 1);
  }
  double run(uint32_t s, uint32_t t) {
    double total = 0;
    while (levels(s, t)) {
      for (size_t i = 0; i < head_.size(); ++i) it_[i] = head_[i];
      while (true) {
        const double f = push(s, t, kInf);
        if (f <= 0) break;
        total += f;
        if (total >= kInf) return kInf;
      }
    }
    return total;
  }
  static constexpr double kInf = std::numeric_limits<double>::infinity();

 private:
  struct Arc {
    uint32_t to;
    int32_t next;
    double cap;
  };
  bool levels(uint32_t s, uint32_t t) {
    std::fill(level_.begin(), level_.end(), -1);
    std::deque<uint32_t> q{s};
    level_[s] = 0;
    while (!q.empty()) {
      const uint32_t v = q.front();
      q.pop_front();
      for (int32_t a = head_[v]; a >= 0; a = arcs_[a].next) {
        if (arcs_[a].cap > kEps && level_[arcs_[a].to] < 0) {
          level_[arcs_[a].to] = level_[v] + 1;
          q.push_back(arcs_[a].to);
        }
      }
    }
    return level_[t] >= 0;
  }
  // Iterative would avoid deep recursion; path lengths here are bounded by
  // the graph diameter, which is small for fabrics.
  double push(uint32_t v, uint32_t t, double f) {
    if (v == t) return f;
    for (int32_t& a = it_[v]; a >= 0; a = arcs_[a].next) {
      Arc& arc = arcs_[a];
      if (arc.cap <= kEps || level_[arc.to] != level_[v] + 1) continue;
      const double d = push(arc.to, t, std::min(f, arc.cap));
      if (d > 0) {
        if (arc.cap != kInf) arc.cap -= d;
        if (arcs_[a ^ 1].cap != kInf) arcs_[a ^ 1].cap += d;
        return d;
      }
    }
    return 0;
  }
  static constexpr double kEps = 1e-9;
  std::vector<int32_t> head_;
  std::vector<int32_t> level_;
  std::vector<int32_t> it_;
  std::vector<Arc> arcs_;
};

}  // namespace

Bisection bisection_bandwidth(const Graph& g, std::span<const NodeId> endpoints) {
  if (endpoints.size() < 2) throw Error("bisection bandwidth needs at least 2 endpoints");
  Bisection out;
  out.endpoints_per_half = endpoints.size() / 2;
  const auto n = static_cast<uint32_t>(g.node_count());
  MaxFlow flow(n + 2);
  const uint32_t s = n, t = n + 1;
  for (const auto& e : g.edges()) {
    const double bw = g.links()[e.link].bandwidth_bits_per_s();
    flow.add_undirected(e.a, e.b, bw > 0 ? bw : MaxFlow::kInf);
  }
  for (size_t i = 0; i < endpoints.size(); ++i) {
    if (i < out.endpoints_per_half) {
      flow.add_directed(s, endpoints[i], MaxFlow::kInf);
    } else if (i >= endpoints.size() - out.endpoints_per_half) {
      flow.add_directed(endpoints[i], t, MaxFlow::kInf);
    }
  }
  out.bits_per_s = flow.run(s, t);
  out.unbounded = out.bits_per_s == MaxFlow::kInf;
  if (out.unbounded) out.bits_per_s = 0;
  return out;
}

double instance_egress_bits_per_s(const Graph& g, std::span<const NodeId> sources) {
  if (sources.empty()) return 0;
  const uint32_t dev = g.device_instance_of(sources[0]);
  // Local ids for the instance's nodes reachable from the sources, found by
  // a walk that stays inside the instance; 0 and 1 are the source and sink.
  std::unordered_map<NodeId, uint32_t> local;
  std::vector<NodeId> order;
  for (auto s : sources) {
    if (g.device_instance_of(s) != dev) throw Error("instance egress: the sources lie in different device instances");
    if (local.emplace(s, static_cast<uint32_t>(order.size()) + 2).second) order.push_back(s);
  }
  for (size_t i = 0; i < order.size(); ++i) {
    for (const auto& adj : g.neighbours(order[i])) {
      if (g.device_instance_of(adj.node) != dev) continue;
      if (local.emplace(adj.node, static_cast<uint32_t>(order.size()) + 2).second) order.push_back(adj.node);
    }
  }
  MaxFlow flow(order.size() + 2);
  const uint32_t s = 0, t = 1;
  for (auto src : sources) flow.add_directed(s, local.at(src), MaxFlow::kInf);
  for (auto v : order) {
    bool exits = false;
    for (const auto& adj : g.neighbours(v)) {
      if (g.device_instance_of(adj.node) != dev) {
        exits = true;
      } else if (v < adj.node) {  // each internal edge once
        const double bw = g.links()[g.edges()[adj.edge].link].bandwidth_bits_per_s();
        flow.add_undirected(local.at(v), local.at(adj.node), bw > 0 ? bw : MaxFlow::kInf);
      }
    }
    if (exits) flow.add_directed(local.at(v), t, MaxFlow::kInf);
  }
  return flow.run(s, t);
}

std::optional<std::vector<LinkId>> instance_egress_path(const Graph& g, NodeId source) {
  const uint32_t dev = g.device_instance_of(source);
  // Dijkstra over the instance's nodes from the source, each node keeping
  // the edge it was reached by.
  struct Reached {
    double latency_ns;
    uint32_t edge;  // kUnseen for the source
  };
  std::unordered_map<NodeId, Reached> reached{{source, {0.0, kUnseen}}};
  using Entry = std::pair<double, NodeId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  queue.push({0.0, source});
  while (!queue.empty()) {
    const auto [d, n] = queue.top();
    queue.pop();
    if (d > reached.at(n).latency_ns) continue;
    const bool exits = std::any_of(g.neighbours(n).begin(), g.neighbours(n).end(),
                                   [&](const auto& adj) { return g.device_instance_of(adj.node) != dev; });
    if (exits) {  // the first settled node that links outside: walk back
      std::vector<LinkId> links;
      for (NodeId at = n; reached.at(at).edge != kUnseen;) {
        const auto& edge = g.edges()[reached.at(at).edge];
        links.push_back(edge.link);
        at = edge.a == at ? edge.b : edge.a;
      }
      std::reverse(links.begin(), links.end());
      return links;
    }
    for (const auto& adj : g.neighbours(n)) {
      const double next = d + g.links()[g.edges()[adj.edge].link].latency_ns().value_or(0.0);
      auto [it, fresh] = reached.try_emplace(adj.node, Reached{next, adj.edge});
      if (!fresh && it->second.latency_ns <= next) continue;
      it->second = Reached{next, adj.edge};
      queue.push({next, adj.node});
    }
  }
  return std::nullopt;
}

}  // namespace snr::infra
