#include "et/critical_path/critical_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "common/error.h"

namespace snr::et::critical_path {
namespace {

struct NodeRef {
  uint32_t rank = 0;
  uint32_t index = 0;
};

// For every communication node that can wait for another rank, the nodes
// it pairs with: a collective's instances on the other members (the k-th
// collective of a group on each member, in start order, as the simulator
// and the communication libraries match them) and a receive's send.
class PeerIndex {
 public:
  explicit PeerIndex(const TimedJob& job) : job_(job), peers_(job.ranks.size()) {
    const auto ranks = static_cast<uint32_t>(job.ranks.size());
    std::map<int32_t, std::vector<std::vector<uint32_t>>> collectives;   // group -> per rank, in start order
    std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<uint32_t>> sends, recvs;  // (src, dst, tag)
    for (uint32_t r = 0; r < ranks; ++r) {
      const auto& nodes = job.ranks[r].nodes;
      peers_[r].resize(nodes.size());
      for (uint32_t i = 0; i < nodes.size(); ++i) {
        const TimedNode& n = nodes[i];
        if (n.comm == CommRole::kCollective) {
          auto& per_rank = collectives[n.group];
          per_rank.resize(ranks);
          per_rank[r].push_back(i);
        } else if (n.comm == CommRole::kSend) {
          sends[{r, n.peer, n.tag}].push_back(i);
        } else if (n.comm == CommRole::kRecv) {
          recvs[{n.peer, r, n.tag}].push_back(i);
        }
      }
    }
    for (auto& [group, per_rank] : collectives) {
      std::vector<uint32_t> members;
      if (group < 0) {
        for (uint32_t r = 0; r < ranks; ++r) members.push_back(r);
      } else {
        members = job.groups.at(static_cast<size_t>(group));
      }
      for (uint32_t r : members) by_start(r, per_rank[r]);
      for (uint32_t r : members) {
        for (size_t k = 0; k < per_rank[r].size(); ++k) {
          auto& peers = peers_[r][per_rank[r][k]];
          for (uint32_t m : members) {
            if (m != r && k < per_rank[m].size()) peers.push_back({m, per_rank[m][k]});
          }
        }
      }
    }
    for (auto& [key, recv_list] : recvs) {
      const auto send_it = sends.find(key);
      if (send_it == sends.end()) continue;
      const auto src = static_cast<uint32_t>(std::get<0>(key));
      const auto dst = static_cast<uint32_t>(std::get<1>(key));
      if (src >= ranks) continue;
      by_start(dst, recv_list);
      by_start(src, send_it->second);
      for (size_t k = 0; k < recv_list.size() && k < send_it->second.size(); ++k) {
        peers_[dst][recv_list[k]].push_back({src, send_it->second[k]});
      }
    }
  }

  const std::vector<NodeRef>& of(uint32_t rank, uint32_t index) const { return peers_[rank][index]; }

 private:
  void by_start(uint32_t rank, std::vector<uint32_t>& list) const {
    const auto& nodes = job_.ranks[rank].nodes;
    std::stable_sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
      return std::tie(nodes[a].start_ns, a) < std::tie(nodes[b].start_ns, b);
    });
  }

  const TimedJob& job_;
  std::vector<std::vector<std::vector<NodeRef>>> peers_;
};

}  // namespace

const char* category_name(Category category) {
  switch (category) {
    case Category::kCompute: return "compute";
    case Category::kCommunication: return "communication";
    case Category::kHost: return "host";
    case Category::kIdle: return "idle";
  }
  return "?";
}

int64_t CategoryTimes::total() const {
  int64_t sum = 0;
  for (const int64_t v : ns) sum += v;
  return sum;
}

CriticalPath find_critical_path(const TimedJob& job) {
  CriticalPath path;
  path.per_rank.resize(job.ranks.size());
  bool any = false;
  NodeRef last;
  path.origin_ns = std::numeric_limits<int64_t>::max();
  path.end_ns = std::numeric_limits<int64_t>::min();
  for (uint32_t r = 0; r < job.ranks.size(); ++r) {
    const auto& nodes = job.ranks[r].nodes;
    for (uint32_t i = 0; i < nodes.size(); ++i) {
      path.origin_ns = std::min(path.origin_ns, nodes[i].start_ns);
      if (nodes[i].end_ns > path.end_ns) {
        path.end_ns = nodes[i].end_ns;
        last = {r, i};
      }
      any = true;
    }
  }
  if (!any) throw Error("critical path: no rank ran a node");

  const PeerIndex peers(job);
  std::vector<PathSegment> backwards;
  const auto add = [&](uint32_t rank, int64_t node, Category category, int64_t start, int64_t end) {
    if (end > start) backwards.push_back({rank, node, category, start, end});
  };
  const auto node_at = [&](NodeRef ref) -> const TimedNode& { return job.ranks[ref.rank].nodes[ref.index]; };

  NodeRef cur = last;
  int64_t t = path.end_ns;
  // Each step moves to a node that ended no later than t; a node is left
  // at most once, so the walk ends (the bound guards malformed inputs
  // whose parents end after their children).
  size_t steps = 0;
  size_t total_nodes = 0;
  for (const auto& rank : job.ranks) total_nodes += rank.nodes.size();
  while (true) {
    if (++steps > 2 * total_nodes + 2) throw Error("critical path: the graph's times do not order its dependencies");
    const TimedNode& n = node_at(cur);
    // A communication node that started before its last peer arrived
    // waited for that peer: the path continues on the peer's rank.
    const TimedNode* late_peer = nullptr;
    NodeRef late_ref;
    for (const NodeRef& p : peers.of(cur.rank, cur.index)) {
      const TimedNode& pn = node_at(p);
      if (pn.start_ns > n.start_ns && (late_peer == nullptr || pn.start_ns > late_peer->start_ns)) {
        late_peer = &pn;
        late_ref = p;
      }
    }
    if (late_peer != nullptr && late_peer->start_ns < t) {
      add(cur.rank, cur.index, n.category, late_peer->start_ns, t);
      t = late_peer->start_ns;
      cur = late_ref;
    } else {
      const int64_t start = std::min(n.start_ns, t);
      if (!n.instant) add(cur.rank, cur.index, n.category, start, t);
      t = start;
    }
    // What the node waited for last: the parent or lane predecessor that
    // ended latest (parents first on ties, then the lower index).
    const TimedNode& at = node_at(cur);
    const auto& nodes = job.ranks[cur.rank].nodes;
    int64_t best = -1;
    const auto later = [&](int64_t candidate) {
      return best < 0 || nodes[static_cast<size_t>(candidate)].end_ns > nodes[static_cast<size_t>(best)].end_ns;
    };
    for (const uint32_t p : at.parents) {
      if (later(p)) best = p;
    }
    // A lane predecessor still running when this node started did not hold it back.
    if (at.lane_predecessor >= 0 && nodes[static_cast<size_t>(at.lane_predecessor)].end_ns <= at.start_ns &&
        later(at.lane_predecessor)) {
      best = at.lane_predecessor;
    }
    if (best < 0) {
      add(cur.rank, -1, Category::kIdle, path.origin_ns, t);
      break;
    }
    const TimedNode& pred = nodes[static_cast<size_t>(best)];
    if (pred.end_ns < t) {
      add(cur.rank, -1, Category::kIdle, pred.end_ns, t);
      t = pred.end_ns;
    }
    cur = {cur.rank, static_cast<uint32_t>(best)};
  }
  path.segments.assign(backwards.rbegin(), backwards.rend());
  for (size_t k = 0; k < path.segments.size(); ++k) {
    const PathSegment& s = path.segments[k];
    path.total[s.category] += s.end_ns - s.start_ns;
    path.per_rank[s.rank][s.category] += s.end_ns - s.start_ns;
    if (k > 0 && path.segments[k - 1].rank != s.rank) ++path.rank_changes;
  }
  return path;
}

std::vector<PathOp> top_ops(const TimedJob& job, const CriticalPath& path, size_t limit) {
  std::unordered_map<std::string, PathOp> by_name;
  for (const PathSegment& s : path.segments) {
    if (s.node < 0) continue;
    const TimedNode& n = job.ranks[s.rank].nodes[static_cast<size_t>(s.node)];
    PathOp& op = by_name[n.name];
    op.name = n.name;
    op.category = s.category;
    op.ns += s.end_ns - s.start_ns;
    ++op.count;
  }
  std::vector<PathOp> ops;
  ops.reserve(by_name.size());
  for (auto& [name, op] : by_name) ops.push_back(std::move(op));
  std::sort(ops.begin(), ops.end(), [](const PathOp& a, const PathOp& b) {
    return std::tie(b.ns, a.name) < std::tie(a.ns, b.name);
  });
  if (ops.size() > limit) ops.resize(limit);
  return ops;
}

}  // namespace snr::et::critical_path
