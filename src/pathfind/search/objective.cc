#include "pathfind/search/objective.h"

#include <algorithm>
#include <exception>

namespace snr::pathfind::search {

namespace {

// Every number of a device, as bytes: equal keys, equal predictions (the
// names and the template's choices are the same for one objective).
std::string device_key(const DeviceSpec& d) {
  std::string key;
  key.reserve(64 + 48 * d.levels.size() + 32 * d.network.size());
  auto put = [&key](auto v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(d.mcu_rows);
  put(d.mcu_cols);
  put(d.mcus_per_bundle);
  put(d.bundles);
  put(d.frequency_hz);
  put(d.fp32_rate_ratio);
  put(d.supports_bf16);
  put(d.vector_flops_per_s);
  put(d.dataflow);
  put(d.max_utilization);
  put(d.kernel_overhead_s);
  for (const MemoryLevel& l : d.levels) {
    put(l.scope);
    put(l.capacity_bytes);
    put(l.bandwidth_bytes_per_s);
    put(l.efficiency);
    put(l.partial_sums);
  }
  for (const NetworkTier& t : d.network) {
    put(t.size);
    put(t.bandwidth_bytes_per_s);
    put(t.latency_s);
    put(t.efficiency);
    put(t.operation_latency_s);
    for (const auto& [op, factor] : t.traffic.named()) {
      put(factor.scalar);
      put(factor.offset);
    }
  }
  return key;
}

}  // namespace

void EvaluationCounts::add(const EvaluationCounts& other) {
  evaluations += other.evaluations;
  feasible += other.feasible;
  refused_by_generator += other.refused_by_generator;
  refused_by_model += other.refused_by_model;
  out_of_memory += other.out_of_memory;
  reused += other.reused;
  if (first_generator_error.empty()) first_generator_error = other.first_generator_error;
  if (first_model_error.empty()) first_model_error = other.first_model_error;
}

void ParetoFront::add(DesignPoint point) {
  auto no_worse = [](const DesignPoint& a, const DesignPoint& b) {
    return a.time_s <= b.time_s && a.power_w <= b.power_w && a.area_mm2 <= b.area_mm2;
  };
  for (const DesignPoint& p : points_) {
    if (no_worse(p, point)) return;  // dominated, or equal to one kept
  }
  std::erase_if(points_, [&](const DesignPoint& p) { return no_worse(point, p); });
  points_.push_back(std::move(point));
}

double power_used_w(const age::GeneratedArchitecture& generated) {
  double sum = 0;
  for (const age::ComponentReport& c : generated.components) sum += c.power_used_w;
  return sum;
}

double area_used_mm2(const age::GeneratedArchitecture& generated) {
  double sum = 0;
  for (const age::ComponentReport& c : generated.components) sum += c.area_used_mm2;
  return sum;
}

ModelObjective::ModelObjective(const age::TechnologyLibrary& tech, const age::ArchitectureTemplate& arch,
                               const ParameterSpace& space, const Workload& workload, const Strategy& strategy,
                               uint64_t strategy_index)
    : tech_(tech), arch_(arch), space_(space), strategy_index_(strategy_index),
      budget_(space.to_budget(space.from_budget(space.base()))) {
  inputs_.arch = arch;
  inputs_.workload = workload;
  inputs_.strategy = strategy;
}

double ModelObjective::evaluate(std::span<const double> w) {
  ++counts_.evaluations;
  last_was_repeat_ = false;
  space_.fill_budget(w, budget_);
  // Model errors are verdicts on the design here, whatever their type: the
  // search goes on with the next design.
  age::GeneratedArchitecture generated;
  try {
    generated = age::generate_architecture(tech_, arch_, budget_);
  } catch (const std::exception& e) {
    if (counts_.first_generator_error.empty()) counts_.first_generator_error = e.what();
    ++counts_.refused_by_generator;
    return kInfeasible;
  }
  const double power_w = power_used_w(generated);
  const double area_mm2 = area_used_mm2(generated);
  auto feasible = [&](double time_s) {
    ++counts_.feasible;
    pareto_.add({time_s, power_w, area_mm2, std::vector<double>(w.begin(), w.end()), strategy_index_});
    return time_s;
  };
  std::string key = device_key(generated.device);
  if (auto it = seen_.find(key); it != seen_.end()) {
    ++counts_.reused;
    last_was_repeat_ = true;
    if (it->second.refused) {
      ++counts_.refused_by_model;
      return kInfeasible;
    }
    if (it->second.time_s == kInfeasible) {
      ++counts_.out_of_memory;
      return kInfeasible;
    }
    return feasible(it->second.time_s);
  }
  inputs_.device = std::move(generated.device);
  inputs_.order = order_;
  inputs_.routing_cache = &routing_;
  Prediction p;
  try {
    p = predict(inputs_);
  } catch (const std::exception& e) {
    if (counts_.first_model_error.empty()) counts_.first_model_error = e.what();
    ++counts_.refused_by_model;
    seen_.emplace(std::move(key), Verdict{kInfeasible, true});
    return kInfeasible;
  }
  if (!order_) order_ = p.mapping.order;
  if (!p.memory.fits) {
    ++counts_.out_of_memory;
    seen_.emplace(std::move(key), Verdict{kInfeasible, false});
    return kInfeasible;
  }
  seen_.emplace(std::move(key), Verdict{p.time_s, false});
  return feasible(p.time_s);
}

FullEvaluation evaluate_design(const age::TechnologyLibrary& tech, const age::ArchitectureTemplate& arch,
                               const age::ResourceBudget& budget, const Workload& workload,
                               const Strategy& strategy) {
  FullEvaluation out;
  out.budget = budget;
  out.inputs.arch = arch;
  out.inputs.workload = workload;
  out.inputs.strategy = strategy;
  try {
    out.generated = age::generate_architecture(tech, arch, budget);
    out.inputs.device = out.generated->device;
    out.prediction = predict(out.inputs);
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace snr::pathfind::search
