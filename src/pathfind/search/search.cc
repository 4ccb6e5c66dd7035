#include "pathfind/search/search.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <tuple>

#include "common/error.h"
#include "common/hash.h"
#include "pathfind/search/registry.h"
#include "taskfarm/farm.h"

namespace snr::pathfind::search {
namespace {

using Json = nlohmann::json;

// Start s of every strategy draws from the same seed, so strategies are
// compared from the same starting points.
uint64_t start_seed(uint64_t seed, uint64_t start) { return fnv1a64_u64(start, fnv1a64_u64(seed)); }

// What one (strategy, start) task sends to rank 0.
struct TaskResult {
  uint64_t id = 0;
  StartResult run;
  double time_s = 0;     // run.w with the best of all orderings
  std::string ordering;
  EvaluationCounts counts;
  std::vector<DesignPoint> pareto;
};

// JSON has no infinity: an infeasible value travels as null.
Json number(double v) { return v == kInfeasible ? Json(nullptr) : Json(v); }
double number_of(const Json& j) { return j.is_null() ? kInfeasible : j.get<double>(); }

// Doubles survive the text exactly: nlohmann writes the shortest digits
// that read back to the same double.
std::string task_text(const TaskResult& t) {
  Json trajectory = Json::array();
  for (const TrajectoryPoint& p : t.run.trajectory) trajectory.push_back({p.step, number(p.value), p.w});
  Json pareto = Json::array();
  for (const DesignPoint& p : t.pareto) pareto.push_back({p.time_s, p.power_w, p.area_mm2, p.w});
  const EvaluationCounts& c = t.counts;
  Json j = {{"id", t.id},
            {"feasible", t.run.feasible},
            {"value", number(t.run.value)},
            {"w", t.run.w},
            {"steps", t.run.steps},
            {"converged", t.run.converged},
            {"trajectory", trajectory},
            {"time_s", t.time_s},
            {"ordering", t.ordering},
            {"counts",
             {c.evaluations, c.feasible, c.refused_by_generator, c.refused_by_model, c.out_of_memory, c.reused,
              c.first_generator_error, c.first_model_error}},
            {"pareto", pareto}};
  return j.dump();
}

TaskResult task_of(const std::string& text, uint64_t strategy) {
  const Json j = Json::parse(text);
  TaskResult t;
  t.id = j.at("id").get<uint64_t>();
  t.run.feasible = j.at("feasible").get<bool>();
  t.run.value = number_of(j.at("value"));
  t.run.w = j.at("w").get<std::vector<double>>();
  t.run.steps = j.at("steps").get<uint64_t>();
  t.run.converged = j.at("converged").get<bool>();
  for (const Json& p : j.at("trajectory")) {
    t.run.trajectory.push_back({p[0].get<uint64_t>(), number_of(p[1]), p[2].get<std::vector<double>>()});
  }
  t.time_s = j.at("time_s").get<double>();
  t.ordering = j.at("ordering").get<std::string>();
  const Json& c = j.at("counts");
  t.counts = {c[0].get<uint64_t>(), c[1].get<uint64_t>(), c[2].get<uint64_t>(),    c[3].get<uint64_t>(),
              c[4].get<uint64_t>(), c[5].get<uint64_t>(), c[6].get<std::string>(), c[7].get<std::string>()};
  for (const Json& p : j.at("pareto")) {
    t.pareto.push_back({p[0].get<double>(), p[1].get<double>(), p[2].get<double>(), p[3].get<std::vector<double>>(),
                        strategy});
  }
  return t;
}

// Every engine declares how many independent starts (tasks) it runs.
uint64_t starts_of(const EngineInfo& engine, const EngineConfig& config) {
  auto it = config.find("starts");
  if (it == config.end()) throw Error(fmt::format("search strategy '{}' declares no 'starts' key", engine.name));
  return static_cast<uint64_t>(it->second);
}

// Everything every rank derives from the inputs alone, identically.
struct Plan {
  const SearchInputs& in;
  ParameterSpace space;
  std::vector<double> base_w;
  const EngineInfo& engine;
  EngineConfig config;
  std::unique_ptr<SearchEngine> runner;
  uint64_t starts = 1;

  explicit Plan(const SearchInputs& inputs)
      : in(inputs), space(inputs.arch, inputs.budget), engine(find_engine(inputs.engine)),
        config(resolve_config(engine, inputs.config)), runner(engine.make(config)),
        starts(starts_of(engine, config)) {
    base_w = space.from_budget(in.budget);
    project(base_w, space.blocks());
  }

  [[nodiscard]] std::string run_task(uint64_t id) const {
    const uint64_t strategy = id / starts;
    const uint64_t start = id % starts;
    const Strategy& s = in.strategies[strategy];
    ModelObjective objective(in.tech, in.arch, space, in.workload, s, strategy);
    StartContext context{space.blocks(), space.size(), base_w, start, starts, start_seed(in.seed, start)};
    TaskResult t;
    t.id = id;
    t.run = runner->run(objective, context);
    if (t.run.feasible) {
      // What `snr pathfind predict` gives for this design: all orderings.
      const FullEvaluation full = evaluate_design(in.tech, in.arch, space.to_budget(t.run.w), in.workload, s);
      if (full.prediction && full.prediction->memory.fits) {
        t.time_s = full.prediction->time_s;
        t.ordering = order_name(full.prediction->mapping.order);
      } else {
        t.time_s = t.run.value;
        t.ordering = objective.order() ? order_name(*objective.order()) : "";
      }
    }
    t.counts = objective.counts();
    t.pareto = objective.pareto().points();
    return task_text(t);
  }
};

void check_inputs(const SearchInputs& in) {
  if (in.strategies.empty()) throw Error("search: no parallelism strategy to search");
  const uint64_t devices = in.strategies.front().devices();
  for (const Strategy& s : in.strategies) {
    s.notation.validate();
    if (s.devices() != devices) {
      throw Error(fmt::format("search: strategy {} uses {} devices, {} uses {}: one search is one system",
                              s.to_string(), s.devices(), in.strategies.front().to_string(), devices));
    }
  }
  in.tech.validate();
  in.arch.validate();
  in.budget.validate();
}

// What one evaluation of `strategy`'s designs costs, in designs: 1, or for
// an LSTM one per kScheduledKernelsPerDesign kernels its schedule simulates
// when that is more (the event simulation walks every layer x time step; the
// transformer and GEMM models price one block or one GEMM whatever the
// layer count).
double design_cost(const Workload& w, const Strategy& strategy) {
  if (w.kind != WorkloadKind::kLstm) return 1;
  const double kernels =
      static_cast<double>(lstm_graph_kernels(w.lstm, strategy.notation.lp, strategy.notation.dp > 1));
  return std::max(1.0, kernels / kScheduledKernelsPerDesign);
}

// Refused before any task runs: the worst case, not what convergence
// usually leaves of it, so the answer does not depend on the workload.
void check_size(const Plan& plan, double max_evaluations) {
  if (!(max_evaluations >= 1 && max_evaluations <= kMaxSearchEvaluationsAllowed)) {
    throw Error(fmt::format("search: a bound of {} designs is outside [1, {:.0f}]", max_evaluations,
                            kMaxSearchEvaluationsAllowed));
  }
  const std::vector<Strategy>& strategies = plan.in.strategies;
  const double per_start = plan.engine.max_evaluations_per_start(plan.config, plan.space.size());
  const double designs = static_cast<double>(strategies.size()) * static_cast<double>(plan.starts) * per_start;
  double worst = 0, largest_cost = 0;
  for (const Strategy& s : strategies) {
    const double cost = design_cost(plan.in.workload, s);
    worst += static_cast<double>(plan.starts) * per_start * cost;
    largest_cost = std::max(largest_cost, cost);
  }
  if (worst <= max_evaluations) return;
  const std::string what = fmt::format("up to {:.0f} designs to evaluate ({} strategies x {} starts x {:.0f} per start "
                                       "with strategy '{}')",
                                       designs, strategies.size(), plan.starts, per_start, plan.engine.name);
  if (largest_cost > 1) {
    throw Error(fmt::format(
        "search: {}; an evaluation of '{}' schedules up to {:.0f} kernels ({} layers x {} time steps x {}), which "
        "counts as {:.0f} designs (one per {:.0f} kernels, about {:.3g} s each), so {:.3g} designs' worth in all, "
        "about {:.3g} hours on one core: more than the {:.0f} one search may take; give fewer steps, starts, layers "
        "or time steps, or raise the bound (--max-designs) for a search spread over many ranks",
        what, plan.in.workload.name, largest_cost * kScheduledKernelsPerDesign, plan.in.workload.lstm.layers,
        plan.in.workload.lstm.sequence, kLstmKernelsPerCell, largest_cost, kScheduledKernelsPerDesign,
        kSecondsPerScheduledKernel * largest_cost * kScheduledKernelsPerDesign, worst,
        worst * kScheduledKernelsPerDesign * kSecondsPerScheduledKernel / 3600,
        max_evaluations));
  }
  throw Error(fmt::format(
      "search: {}, more than the {:.0f} one search may take: ask for fewer samples, steps or starts, or fewer "
      "strategies (fewer --devices), or raise the bound (--max-designs) for a search spread over many ranks",
      what, max_evaluations));
}

// Orders tasks of one strategy: the faster design, then the lower task id.
bool better(const TaskResult& a, const TaskResult& b) {
  return std::tie(a.time_s, a.id) < std::tie(b.time_s, b.id);
}

}  // namespace

SearchResult search(const SearchInputs& in, const taskfarm::Session* session) {
  check_inputs(in);
  const Plan plan(in);
  check_size(plan, in.max_evaluations);
  SearchResult result;
  result.engine = plan.engine.name;
  result.config = plan.config;
  result.seed = in.seed;
  result.workload = in.workload.name;
  result.devices = in.strategies.front().devices();
  for (size_t i = 0; i < plan.space.size(); ++i) result.parameters.push_back(plan.space.name(i));
  result.tasks = in.strategies.size() * plan.starts;

  // Rank 0 keeps every task's result but drops the trajectories of all but
  // the best start of each strategy as they come; everything else is folded
  // in task-id order afterwards, so completion order cannot matter.
  std::vector<TaskResult> tasks(result.tasks);
  std::vector<std::optional<uint64_t>> best_task(in.strategies.size());
  auto sink = [&](uint64_t id, std::string text) {
    const uint64_t strategy = id / plan.starts;
    TaskResult t = task_of(text, strategy);
    std::optional<uint64_t>& best = best_task[strategy];
    if (t.run.feasible && (!best || better(t, tasks[*best]))) {
      if (best) tasks[*best].run.trajectory.clear();
      best = id;
    } else {
      t.run.trajectory.clear();
    }
    tasks[id] = std::move(t);
  };
  auto task = [&](uint64_t id) { return plan.run_task(id); };
  std::vector<uint64_t> ids(result.tasks);
  for (uint64_t id = 0; id < result.tasks; ++id) ids[id] = id;
  if (session != nullptr) {
    taskfarm::run(*session, ids, task, sink);
    if (!session->is_writer()) {
      result.complete = false;
      return result;
    }
  } else {
    for (uint64_t id : ids) sink(id, task(id));
  }

  ParetoFront front;
  for (size_t s = 0; s < in.strategies.size(); ++s) {
    StrategyResult r;
    r.strategy = in.strategies[s];
    for (uint64_t start = 0; start < plan.starts; ++start) {
      const TaskResult& t = tasks[s * plan.starts + start];
      r.counts.add(t.counts);
      for (const DesignPoint& p : t.pareto) front.add(p);
    }
    if (best_task[s]) {
      const TaskResult& t = tasks[*best_task[s]];
      r.feasible = true;
      r.time_s = t.time_s;
      r.ordering = t.ordering;
      r.w = t.run.w;
      r.start = t.id % plan.starts;
      r.steps = t.run.steps;
      r.converged = t.run.converged;
    }
    result.counts.add(r.counts);
    result.strategies.push_back(std::move(r));
  }
  result.pareto = front.points();
  std::sort(result.pareto.begin(), result.pareto.end(), [](const DesignPoint& a, const DesignPoint& b) {
    return std::tie(a.time_s, a.power_w, a.area_mm2, a.strategy) <
           std::tie(b.time_s, b.power_w, b.area_mm2, b.strategy);
  });

  std::optional<uint64_t> winner;
  for (size_t s = 0; s < in.strategies.size(); ++s) {
    if (!best_task[s]) continue;
    if (!winner || better(tasks[*best_task[s]], tasks[*best_task[*winner]])) winner = s;
  }
  if (!winner) return result;
  const StrategyResult& w = result.strategies[*winner];
  FullEvaluation full = evaluate_design(in.tech, in.arch, plan.space.to_budget(w.w), in.workload, w.strategy);
  if (!full.generated || !full.prediction) {
    throw Error(fmt::format("search: the best design no longer evaluates: {}", full.error));
  }
  BestDesign best;
  best.strategy = *winner;
  best.w = w.w;
  best.budget = full.budget;
  best.power_used_w = power_used_w(*full.generated);
  best.area_used_mm2 = area_used_mm2(*full.generated);
  best.generated = std::move(*full.generated);
  best.inputs = std::move(full.inputs);
  best.prediction = std::move(*full.prediction);
  const FullEvaluation baseline = evaluate_design(in.tech, in.arch, in.budget, in.workload, w.strategy);
  if (baseline.prediction && baseline.prediction->memory.fits) best.baseline_time_s = baseline.prediction->time_s;
  best.trajectory = std::move(tasks[*best_task[*winner]].run.trajectory);
  result.best = std::move(best);
  return result;
}

}  // namespace snr::pathfind::search
