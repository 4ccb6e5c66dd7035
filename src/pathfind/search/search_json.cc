// search_result_json: the keys docs/pathfind-search.md documents. Nothing
// here depends on how many ranks ran the search or how long it took, so the
// same inputs give the same text.
#include "pathfind/predict/prediction_json.h"
#include "pathfind/search/search.h"

namespace snr::pathfind::search {
namespace {

using Json = nlohmann::ordered_json;

Json counts_json(const EvaluationCounts& c) {
  return {{"total", c.evaluations},
          {"feasible", c.feasible},
          {"refused_by_generator", c.refused_by_generator},
          {"refused_by_model", c.refused_by_model},
          {"out_of_memory", c.out_of_memory},
          {"reused", c.reused},
          {"first_generator_error", c.first_generator_error},
          {"first_model_error", c.first_model_error}};
}

Json breakdown_json(const age::Breakdown& breakdown) {
  Json j = Json::object();
  for (const auto& [component, fraction] : breakdown) j[component] = fraction;
  return j;
}

Json budget_json(const age::ResourceBudget& b) {
  return {{"name", b.name},
          {"node_area_mm2", b.node_area_mm2},
          {"chip_area_mm2", b.chip_area_mm2},
          {"tdp_w", b.tdp_w},
          {"area", breakdown_json(b.area)},
          {"power", breakdown_json(b.power)},
          {"perimeter", breakdown_json(b.perimeter)}};
}

// What each component got and made of it; the full explanation of every
// bound is `snr pathfind generate --budget best_budget.yaml`.
Json components_json(const age::GeneratedArchitecture& g) {
  Json list = Json::array();
  for (const age::ComponentReport& c : g.components) {
    list.push_back({{"name", c.name},
                    {"kind", c.kind},
                    {"units", c.units},
                    {"bound", c.bound},
                    {"area_used_mm2", c.area_used_mm2},
                    {"area_budget_mm2", c.area_budget_mm2},
                    {"power_used_w", c.power_used_w},
                    {"power_budget_w", c.power_budget_w},
                    {"perimeter_used_mm", c.perimeter_used_mm},
                    {"perimeter_budget_mm", c.perimeter_budget_mm},
                    {"capacity_bytes", c.capacity_bytes},
                    {"bandwidth_bytes_per_s", c.bandwidth_bytes_per_s},
                    {"frequency_hz", c.frequency_hz}});
  }
  return list;
}

Json best_json(const SearchResult& r) {
  if (!r.best) return nullptr;
  const BestDesign& b = *r.best;
  const Prediction& p = b.prediction;
  Json j;
  j["parallelism"] = b.inputs.strategy.to_string();
  j["time_s"] = p.time_s;
  j["time_name"] = p.time_name;
  j["ordering"] = order_name(p.mapping.order);
  j["bottleneck"] = p.bottleneck;
  j["baseline_time_s"] = b.baseline_time_s ? Json(*b.baseline_time_s) : Json(nullptr);
  j["speedup"] = b.baseline_time_s ? Json(*b.baseline_time_s / p.time_s) : Json(nullptr);
  j["power_used_w"] = b.power_used_w;
  j["area_used_mm2"] = b.area_used_mm2;
  j["w"] = b.w;
  j["budget"] = budget_json(b.budget);
  j["peak_flops_per_s"] = b.generated.peak_flops_per_s;
  j["components"] = components_json(b.generated);
  j["prediction"] = prediction_json(b.inputs, p);
  return j;
}

}  // namespace

nlohmann::ordered_json search_result_json(const SearchResult& r) {
  Json j;
  j["engine"] = r.engine;
  j["config"] = r.config;
  j["seed"] = r.seed;
  j["workload"] = r.workload;
  j["devices"] = r.devices;
  j["tasks"] = r.tasks;
  j["parameters"] = r.parameters;
  j["evaluations"] = counts_json(r.counts);
  Json strategies = Json::array();
  for (const StrategyResult& s : r.strategies) {
    Json e = {{"parallelism", s.strategy.to_string()}, {"feasible", s.feasible}};
    if (s.feasible) {
      e["time_s"] = s.time_s;
      e["ordering"] = s.ordering;
      e["start"] = s.start;
      e["steps"] = s.steps;
      e["converged"] = s.converged;
      e["w"] = s.w;
    }
    e["evaluations"] = counts_json(s.counts);
    strategies.push_back(std::move(e));
  }
  j["strategies"] = std::move(strategies);
  j["best"] = best_json(r);
  Json trajectory = Json::array();
  if (r.best) {
    for (const TrajectoryPoint& p : r.best->trajectory) {
      trajectory.push_back({{"step", p.step}, {"time_s", p.value}, {"w", p.w}});
    }
  }
  j["trajectory"] = std::move(trajectory);
  Json pareto = Json::array();
  for (const DesignPoint& p : r.pareto) {
    pareto.push_back({{"time_s", p.time_s},
                      {"power_used_w", p.power_w},
                      {"area_used_mm2", p.area_mm2},
                      {"parallelism", r.strategies.at(p.strategy).strategy.to_string()},
                      {"w", p.w}});
  }
  j["pareto"] = std::move(pareto);
  return j;
}

}  // namespace snr::pathfind::search
