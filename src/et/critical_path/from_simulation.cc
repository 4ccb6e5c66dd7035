#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "common/error.h"
#include "et/critical_path/builders.h"

namespace snr::et::critical_path {

TimedJob from_simulation(const dsim::SimulationResult& result) {
  if (result.timeline.size() != result.graphs.size() || result.graphs.empty()) {
    throw Error("critical path: the simulation did not record its timeline");
  }
  TimedJob job;
  job.source = "simulated";
  job.groups = result.group_members;
  job.ranks.resize(result.graphs.size());
  for (size_t npu = 0; npu < result.graphs.size(); ++npu) {
    const auto& graph = result.graphs[npu].nodes;
    auto& nodes = job.ranks[npu].nodes;
    nodes.resize(graph.size());
    for (uint32_t i = 0; i < graph.size(); ++i) {
      const dsim::WorkNode& w = graph[i];
      TimedNode& n = nodes[i];
      n.id = w.chakra_id;
      n.name = w.name;
      switch (w.node_class) {
        case dsim::NodeClass::kCpu: n.category = Category::kHost; break;
        case dsim::NodeClass::kGpuCompute: n.category = Category::kCompute; break;
        case dsim::NodeClass::kGpuComm: n.category = Category::kCommunication; break;
        case dsim::NodeClass::kInstant: n.instant = true; break;
      }
      // Replayed nodes (replay-only) only took their trace time: no
      // collective or message ties them to other ranks.
      switch (w.replayed ? dsim::NodeAction::kCompute : w.action) {
        case dsim::NodeAction::kCollective:
          n.comm = CommRole::kCollective;
          n.group = w.group;
          break;
        case dsim::NodeAction::kSend: n.comm = CommRole::kSend; break;
        case dsim::NodeAction::kRecv: n.comm = CommRole::kRecv; break;
        default: break;
      }
      n.peer = w.peer;
      n.tag = w.tag;
      for (const uint32_t child : w.children) nodes[child].parents.push_back(i);
    }
    // Times from the timeline; per lane, the node that could have held
    // this one back: of those on its lane that ended by its start, the one
    // that ended last. (Not simply the one that started before it: a
    // receive is posted when its dependencies are met and stays open, while
    // the lane runs the sends and collectives after it.)
    auto slices = result.timeline[npu];
    std::sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
      return std::tie(a.start_ns, a.end_ns, a.node) < std::tie(b.start_ns, b.end_ns, b.node);
    });
    std::array<std::vector<size_t>, 4> by_end;  // per lane, slice indices in end order
    for (size_t k = 0; k < slices.size(); ++k) by_end.at(static_cast<size_t>(slices[k].lane)).push_back(k);
    for (auto& lane : by_end) {
      std::stable_sort(lane.begin(), lane.end(),
                       [&](size_t a, size_t b) { return slices[a].end_ns < slices[b].end_ns; });
    }
    std::array<size_t, 4> ended{};                  // per lane, slices of by_end that ended by the current start
    std::array<int64_t, 4> lane_last{-1, -1, -1, -1};  // the last of those
    std::vector<bool> ran(graph.size(), false);
    for (size_t k = 0; k < slices.size(); ++k) {
      const auto& slice = slices[k];
      TimedNode& n = nodes.at(slice.node);
      n.start_ns = static_cast<int64_t>(slice.start_ns);
      n.end_ns = static_cast<int64_t>(slice.end_ns);
      const auto lane = static_cast<size_t>(slice.lane);
      // Only slices before this one in start order: a zero-length one at
      // this start that comes after it (ends tie in start order) is not.
      while (ended[lane] < by_end[lane].size() && by_end[lane][ended[lane]] < k &&
             slices[by_end[lane][ended[lane]]].end_ns <= slice.start_ns) {
        lane_last[lane] = slices[by_end[lane][ended[lane]]].node;
        ++ended[lane];
      }
      n.lane_predecessor = lane_last[lane];
      ran[slice.node] = true;
    }
    for (uint32_t i = 0; i < graph.size(); ++i) {
      if (!ran[i] && !nodes[i].instant) {
        throw Error(fmt::format("critical path: NPU {} node {} ({}) has no time in the simulation", npu,
                                nodes[i].id, nodes[i].name));
      }
    }
    settle_instants(job.ranks[npu]);
  }
  return job;
}

}  // namespace snr::et::critical_path
