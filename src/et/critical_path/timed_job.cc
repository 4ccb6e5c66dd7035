#include "et/critical_path/timed_job.h"

#include <algorithm>
#include <vector>

namespace snr::et::critical_path {

void settle_instants(TimedRank& rank) {
  auto& nodes = rank.nodes;
  // 0: not visited, 1: on the stack, 2: settled. Parents are settled
  // before their children (iteratively: graphs can be deep chains).
  std::vector<uint8_t> state(nodes.size(), 0);
  std::vector<std::pair<uint32_t, size_t>> stack;
  for (uint32_t root = 0; root < nodes.size(); ++root) {
    if (state[root] != 0) continue;
    stack.push_back({root, 0});
    state[root] = 1;
    while (!stack.empty()) {
      auto& [index, next_parent] = stack.back();
      TimedNode& node = nodes[index];
      if (next_parent < node.parents.size()) {
        const uint32_t parent = node.parents[next_parent++];
        if (state[parent] == 0) {
          state[parent] = 1;
          stack.push_back({parent, 0});
        }
        continue;
      }
      if (node.instant) {
        int64_t ready = node.start_ns;
        bool any = false;
        for (const uint32_t parent : node.parents) {
          ready = any ? std::max(ready, nodes[parent].end_ns) : nodes[parent].end_ns;
          any = true;
        }
        node.start_ns = node.end_ns = ready;
      }
      state[index] = 2;
      stack.pop_back();
    }
  }
}

}  // namespace snr::et::critical_path
