#include "et/generate/workload_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "common/error.h"
#include "formats/chakra/attributes.h"

namespace snr::et {
namespace {

struct CollectiveCall {
  int64_t type = 0;
  uint64_t size_bytes = 0;
  uint64_t node_id = 0;
};

class Checker {
 public:
  explicit Checker(WorkloadCheck& check) : check_(check) {}
  void problem(std::string text) {
    ++check_.problem_count;
    if (check_.problems.size() < WorkloadCheck::kMaxProblems) check_.problems.push_back(std::move(text));
  }

  // Unknown ids and cycles, by Kahn's algorithm over the rank's nodes.
  void check_graph(Rank rank, const std::vector<ChakraProtoMsg::Node>& nodes) {
    std::unordered_map<uint64_t, size_t> index;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (!index.emplace(nodes[i].id(), i).second) problem(fmt::format("rank {}: node id {} appears twice", rank, nodes[i].id()));
    }
    std::vector<size_t> waiting(nodes.size(), 0);
    std::vector<std::vector<size_t>> children(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      const auto visit = [&](uint64_t parent) {
        auto it = index.find(parent);
        if (it == index.end()) {
          problem(fmt::format("rank {} node {}: depends on node {} which is not in the trace", rank, nodes[i].id(), parent));
          return;
        }
        children[it->second].push_back(i);
        ++waiting[i];
      };
      for (uint64_t dep : nodes[i].data_deps()) visit(dep);
      for (uint64_t dep : nodes[i].ctrl_deps()) visit(dep);
    }
    std::vector<size_t> ready;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (waiting[i] == 0) ready.push_back(i);
    }
    size_t done = 0;
    while (!ready.empty()) {
      const size_t i = ready.back();
      ready.pop_back();
      ++done;
      for (size_t child : children[i]) {
        if (--waiting[child] == 0) ready.push_back(child);
      }
    }
    if (done != nodes.size()) {
      problem(fmt::format("rank {}: {} nodes are on or behind a dependency cycle", rank, nodes.size() - done));
    }
  }

  void run(const Workload& workload) {
    const ProcessGroups& groups = workload.groups;
    if (workload.ranks.size() != groups.npus()) {
      problem(fmt::format("{} rank traces but process groups describe {} ranks", workload.ranks.size(), groups.npus()));
      return;
    }
    // calls[group][member position] = collectives in node order
    std::vector<std::map<Rank, std::vector<CollectiveCall>>> calls(groups.size());
    using P2pKey = std::tuple<int64_t, int64_t, int64_t>;  // src, dst, tag
    std::map<P2pKey, std::vector<uint64_t>> sent, received;
    for (Rank rank = 0; rank < workload.ranks.size(); ++rank) {
      const auto& nodes = workload.ranks[rank];
      check_.nodes += nodes.size();
      check_graph(rank, nodes);
      for (const auto& node : nodes) {
        try {
          chakra::NodeView view(node);
          if (node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
            ++check_.collectives;
            const auto pg = view.pg_name().value_or("");
            const auto group = groups.find(pg);
            if (!group) {
              problem(fmt::format("rank {} node {}: unknown process group '{}'", rank, node.id(), pg));
              continue;
            }
            const auto& members = groups.members(*group);
            if (std::find(members.begin(), members.end(), rank) == members.end()) {
              problem(fmt::format("rank {} node {}: not a member of process group '{}'", rank, node.id(), pg));
              continue;
            }
            calls[group->index][rank].push_back(
                CollectiveCall{view.comm_type().value_or(-1), view.comm_size_bytes().value_or(0), node.id()});
          } else if (node.type() == ChakraProtoMsg::COMM_SEND_NODE || node.type() == ChakraProtoMsg::COMM_RECV_NODE) {
            const bool is_send = node.type() == ChakraProtoMsg::COMM_SEND_NODE;
            const int64_t src = is_send ? rank : view.comm_src().value_or(-1);
            const int64_t dst = is_send ? view.comm_dst().value_or(-1) : rank;
            auto& list = is_send ? sent : received;
            list[P2pKey{src, dst, view.comm_tag().value_or(0)}].push_back(view.comm_size_bytes().value_or(0));
          }
        } catch (const Error& e) {
          problem(fmt::format("rank {} node {}: {}", rank, node.id(), e.what()));
        }
      }
    }
    for (uint32_t g = 0; g < groups.size(); ++g) check_group(groups, GroupId{g}, calls[g]);
    check_p2p(sent, received);
  }

  void check_group(const ProcessGroups& groups, GroupId group, std::map<Rank, std::vector<CollectiveCall>>& calls) {
    const auto& members = groups.members(group);
    const Rank first = members.front();
    const auto& reference = calls[first];
    const std::string name = group.index == 0 ? "world" : "'" + groups.pg_name(group) + "'";
    for (Rank member : members) {
      const auto& mine = calls[member];
      const size_t common = std::min(mine.size(), reference.size());
      for (size_t i = 0; i < common; ++i) {
        if (mine[i].type != reference[i].type || mine[i].size_bytes != reference[i].size_bytes) {
          problem(fmt::format("process group {}: collective #{} differs: rank {} node {} is {} of {} bytes, rank {} node {} "
                              "is {} of {} bytes",
                              name, i, member, mine[i].node_id, chakra::comm_type_name(mine[i].type), mine[i].size_bytes,
                              first, reference[i].node_id, chakra::comm_type_name(reference[i].type),
                              reference[i].size_bytes));
          break;
        }
      }
      if (mine.size() != reference.size()) {
        problem(fmt::format("process group {}: rank {} issues {} collectives but rank {} issues {} (would deadlock)",
                            name, member, mine.size(), first, reference.size()));
      }
    }
  }

  template <typename Map>
  void check_p2p(const Map& sent, const Map& received) {
    for (const auto& [key, sizes] : sent) {
      const auto& [src, dst, tag] = key;
      auto it = received.find(key);
      const size_t matched = it == received.end() ? 0 : std::min(sizes.size(), it->second.size());
      for (size_t i = 0; i < matched; ++i) {
        if (sizes[i] != it->second[i]) {
          problem(fmt::format("send {} -> {} tag {} #{}: {} bytes sent but {} bytes received", src, dst, tag, i, sizes[i],
                              it->second[i]));
        }
      }
      check_.p2p_messages += matched;
      if (sizes.size() > matched) {
        problem(fmt::format("{} sends {} -> {} tag {} have no matching receive", sizes.size() - matched, src, dst, tag));
      }
    }
    for (const auto& [key, sizes] : received) {
      const auto& [src, dst, tag] = key;
      auto it = sent.find(key);
      const size_t available = it == sent.end() ? 0 : it->second.size();
      if (sizes.size() > available) {
        problem(fmt::format("{} receives {} -> {} tag {} have no matching send", sizes.size() - available, src, dst, tag));
      }
    }
  }

 private:
  WorkloadCheck& check_;
};

}  // namespace

std::string WorkloadCheck::summary() const {
  if (ok()) {
    return fmt::format("ok: {} nodes, {} collective calls, {} point-to-point messages", nodes, collectives, p2p_messages);
  }
  std::string out;
  for (const auto& p : problems) out += p + "\n";
  if (problem_count > problems.size()) out += fmt::format("... and {} more problems\n", problem_count - problems.size());
  return out;
}

WorkloadCheck check_workload(const Workload& workload) {
  WorkloadCheck check;
  Checker(check).run(workload);
  return check;
}

}  // namespace snr::et
