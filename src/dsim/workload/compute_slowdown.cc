#include "dsim/workload/compute_slowdown.h"

#include <fmt/format.h>

#include <cmath>

#include "common/error.h"

namespace snr::dsim {

void apply_compute_slowdown(std::vector<RankGraph>& graphs, const std::vector<double>& factors) {
  if (factors.empty()) return;
  if (factors.size() != graphs.size()) {
    throw Error(fmt::format("{} compute slow-down factors for {} NPUs", factors.size(), graphs.size()));
  }
  for (size_t npu = 0; npu < graphs.size(); ++npu) {
    const double factor = factors[npu];
    if (factor == 1.0) continue;
    for (WorkNode& node : graphs[npu].nodes) {
      if (node.action != NodeAction::kCompute) continue;
      const double slowed = std::round(static_cast<double>(node.duration_ns) * factor);
      // 2^63: leaves room for the event loop to add it to the current time.
      if (!(slowed < 9223372036854775808.0)) {
        throw Error(fmt::format("NPU {}: node {} ('{}') slowed {:g}x lasts {:g} ns, more than the simulator's clock "
                                "holds",
                                npu, node.chakra_id, node.name, factor, slowed));
      }
      node.duration_ns = static_cast<TimeNs>(slowed);
    }
  }
}

}  // namespace snr::dsim
