#include "et/generate/feeder_replay.h"

#include <fmt/format.h>

#include <deque>
#include <map>
#include <tuple>

#include "common/error.h"
#include "et/feeder/feeder.h"
#include "formats/chakra/attributes.h"

namespace snr::et {
namespace {

struct Posted {
  Rank rank = 0;
  uint64_t node_id = 0;
  int64_t type = 0;
  uint64_t size_bytes = 0;
};

}  // namespace

ReplayResult replay_with_feeders(const Workload& workload) {
  const auto npus = static_cast<Rank>(workload.ranks.size());
  std::vector<TraceFeeder> feeders;
  for (const auto& nodes : workload.ranks) feeders.emplace_back(nodes, FeederOptions{.window_nodes = 0});
  // Per group, per member: collectives issued but not yet completed, in order.
  std::vector<std::map<Rank, std::deque<Posted>>> group_queues(workload.groups.size());
  using P2pKey = std::tuple<int64_t, int64_t, int64_t>;
  std::map<P2pKey, std::deque<Posted>> sends, recvs;
  ReplayResult result;

  const auto complete = [&](const Posted& p) {
    feeders[p.rank].push_completed(p.node_id);
    ++result.nodes_completed;
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (Rank r = 0; r < npus; ++r) {
      while (const ChakraProtoMsg::Node* node = feeders[r].next_issuable()) {
        progress = true;
        chakra::NodeView view(*node);
        Posted posted{r, node->id(), view.comm_type().value_or(-1), view.comm_size_bytes().value_or(0)};
        if (node->type() == ChakraProtoMsg::COMM_COLL_NODE) {
          const auto group = workload.groups.find(view.pg_name().value_or(""));
          if (!group) throw Error(fmt::format("rank {} node {}: unknown process group", r, node->id()));
          group_queues[group->index][r].push_back(posted);
        } else if (node->type() == ChakraProtoMsg::COMM_SEND_NODE) {
          sends[P2pKey{r, view.comm_dst().value_or(-1), view.comm_tag().value_or(0)}].push_back(posted);
        } else if (node->type() == ChakraProtoMsg::COMM_RECV_NODE) {
          recvs[P2pKey{view.comm_src().value_or(-1), r, view.comm_tag().value_or(0)}].push_back(posted);
        } else {
          complete(posted);
        }
      }
    }
    for (size_t g = 0; g < group_queues.size(); ++g) {
      const auto& members = workload.groups.members(GroupId{static_cast<uint32_t>(g)});
      auto& queues = group_queues[g];
      for (;;) {
        bool all_posted = true;
        for (Rank m : members) all_posted = all_posted && !queues[m].empty();
        if (!all_posted) break;
        const Posted& head = queues[members.front()].front();
        for (Rank m : members) {
          const Posted& mine = queues[m].front();
          if (mine.type != head.type || mine.size_bytes != head.size_bytes) {
            result.stuck = fmt::format("group {}: rank {} node {} and rank {} node {} disagree on the collective", g,
                                       head.rank, head.node_id, mine.rank, mine.node_id);
            return result;
          }
        }
        for (Rank m : members) {
          complete(queues[m].front());
          queues[m].pop_front();
        }
        ++result.collectives_completed;
        progress = true;
      }
    }
    for (auto& [key, queue] : sends) {
      auto& other = recvs[key];
      while (!queue.empty() && !other.empty()) {
        complete(queue.front());
        complete(other.front());
        queue.pop_front();
        other.pop_front();
        ++result.messages_completed;
        progress = true;
      }
    }
  }
  result.completed = true;
  for (Rank r = 0; r < npus; ++r) {
    if (feeders[r].has_pending()) {
      result.completed = false;
      result.stuck += fmt::format("rank {}: {} nodes issued and blocked, {} completed of {}\n", r,
                                  feeders[r].issued_count(), feeders[r].stats().nodes_completed,
                                  workload.ranks[r].size());
    }
  }
  return result;
}

}  // namespace snr::et
