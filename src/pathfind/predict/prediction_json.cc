#include "pathfind/predict/prediction_json.h"

#include "pathfind/llm/report_json.h"

namespace snr::pathfind {

nlohmann::ordered_json prediction_json(const PredictInputs& in, const Prediction& r) {
  const DeviceSpec& device = in.device;
  const Workload& w = in.workload;
  const Strategy& s = in.strategy;
  nlohmann::ordered_json j;
  j["time_s"] = r.time_s;
  j["time_name"] = r.time_name;
  j["bottleneck"] = r.bottleneck;
  j["workload"] = w.name;
  j["phase"] = w.kind == WorkloadKind::kGemm ? "gemm" : std::string(workload_phase_name(w.phase));
  if (w.kind != WorkloadKind::kGemm) j["parameters"] = workload_parameters(w);
  j["parallelism"] = s.to_string();
  j["devices"] = r.devices;
  j["device"] = {{"name", device.name},
                 {"peak_flops_per_s", device.peak_flops_per_s(w.dtype)},
                 {"main_memory_bytes", device.main_memory().capacity_bytes},
                 {"main_memory_bytes_per_s", device.main_memory().bandwidth_bytes_per_s}};
  if (r.inference) j["tokens_per_s"] = r.tokens_per_s;
  if (r.training) j["mfu"] = r.mfu;
  nlohmann::ordered_json causes = nlohmann::ordered_json::array();
  for (const TimeCause& c : r.causes) causes.push_back({{"cause", c.cause}, {"seconds", c.seconds}});
  j["causes"] = causes;
  j["notes"] = r.notes;
  nlohmann::ordered_json dims = nlohmann::ordered_json::array();
  for (const MappedDimension& d : r.dims) {
    dims.push_back({{"dimension", std::string(parallel_dim_name(d.dim))},
                    {"size", d.size},
                    {"tier", d.tier.name},
                    {"edges", d.traffic.edges},
                    {"max_hops", d.traffic.max_hops},
                    {"max_sharing", d.traffic.max_sharing},
                    {"effective_bandwidth_bytes_per_s", d.traffic.effective_bandwidth_bytes_per_s},
                    {"bytes_per_edge", d.bytes_per_edge}});
  }
  nlohmann::ordered_json orderings = nlohmann::ordered_json::array();
  for (const auto& [name, score] : r.orderings) orderings.push_back({{"order", name}, {"score_s", score}});
  j["mapping"] = {{"order", order_name(r.mapping.order)}, {"dimensions", dims}, {"orderings", orderings}};
  j["kernels"] = kernel_times_json(r.kernels);
  j["head_kernels"] = kernel_times_json(r.head_kernels);
  j["memory"] = memory_json(r.memory);
  return j;
}

}  // namespace snr::pathfind
