#include "pathfind/llm/report_json.h"

namespace snr::pathfind {

nlohmann::ordered_json kernel_times_json(const std::vector<KernelTime>& kernels) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const KernelTime& k : kernels) {
    out.push_back({{"name", k.name},
                   {"kind", std::string(kernel_kind_name(k.kind))},
                   {"bound", k.bound},
                   {"forward_s", k.forward_s},
                   {"backward_s", k.backward_s},
                   {"recompute_s", k.recompute_s},
                   {"overhead_s", k.overhead_s}});
  }
  return out;
}

nlohmann::ordered_json memory_json(const MemoryFootprint& m) {
  return {{"weights_bytes", m.weights_bytes},     {"gradients_bytes", m.gradients_bytes},
          {"optimizer_bytes", m.optimizer_bytes}, {"activations_bytes", m.activations_bytes},
          {"total_bytes", m.total_bytes},         {"capacity_bytes", m.capacity_bytes},
          {"fits", m.fits}};
}

}  // namespace snr::pathfind
