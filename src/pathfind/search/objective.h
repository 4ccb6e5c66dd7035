// The objective of seed 004 §7 on the performance model: W -> budget ->
// age::generate_architecture -> predict() for one workload and parallelism
// strategy -> seconds. A design the generator refuses, that predict()
// refuses, or whose memory does not fit is infeasible: counted, never
// thrown. Every feasible design's time, power used and area used feed the
// Pareto set.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pathfind/age/generate.h"
#include "pathfind/predict/predict.h"
#include "pathfind/search/engine.h"
#include "pathfind/search/parameters.h"

namespace snr::pathfind::search {

struct EvaluationCounts {
  uint64_t evaluations = 0;
  uint64_t feasible = 0;
  uint64_t refused_by_generator = 0;  // generate_architecture threw
  uint64_t refused_by_model = 0;      // predict() threw
  uint64_t out_of_memory = 0;
  // Evaluations whose generated device was one predicted before (integer
  // counts absorb small fraction changes): answered without predict().
  uint64_t reused = 0;
  std::string first_generator_error;  // the first message of each kind, to show why
  std::string first_model_error;

  void add(const EvaluationCounts& other);
};

// One evaluated feasible design in the objective space.
struct DesignPoint {
  double time_s = 0;
  double power_w = 0;    // used, summed over the components (ComponentReport::power_used_w)
  double area_mm2 = 0;   // used on the die, summed likewise
  std::vector<double> w;
  uint64_t strategy = 0;  // index into SearchInputs::strategies
};

// The designs no other design beats in time, power and area at once (a
// design equal to an earlier one in all three is left out).
class ParetoFront {
 public:
  void add(DesignPoint point);
  [[nodiscard]] const std::vector<DesignPoint>& points() const { return points_; }

 private:
  std::vector<DesignPoint> points_;
};

// The sum of what the components used.
double power_used_w(const age::GeneratedArchitecture& generated);
double area_used_mm2(const age::GeneratedArchitecture& generated);

class ModelObjective final : public Objective {
 public:
  // Keeps references: every argument must outlive the objective.
  ModelObjective(const age::TechnologyLibrary& tech, const age::ArchitectureTemplate& arch,
                 const ParameterSpace& space, const Workload& workload, const Strategy& strategy,
                 uint64_t strategy_index);
  ModelObjective(const ModelObjective&) = delete;
  ModelObjective& operator=(const ModelObjective&) = delete;

  // Seconds of the workload (iteration, step or GEMM), or kInfeasible. The
  // first feasible evaluation maps with the best of all orderings and fixes
  // that ordering for every later one (a design step rarely changes which
  // ordering wins, and one ordering costs 1/24 of all). A design whose
  // generated device was seen before reuses that prediction: nothing else
  // of the inputs changes between evaluations. The routing of the shards
  // under the fixed ordering is computed once (RoutingCache): designs
  // change link bandwidths, not the system's shape.
  double evaluate(std::span<const double> w) override;
  [[nodiscard]] bool last_was_repeat() const override { return last_was_repeat_; }

  [[nodiscard]] const EvaluationCounts& counts() const { return counts_; }
  [[nodiscard]] const ParetoFront& pareto() const { return pareto_; }
  [[nodiscard]] const std::optional<DimOrder>& order() const { return order_; }

 private:
  const age::TechnologyLibrary& tech_;
  const age::ArchitectureTemplate& arch_;
  const ParameterSpace& space_;
  uint64_t strategy_index_;
  age::ResourceBudget budget_;  // reused: only the fractions change
  PredictInputs inputs_;
  RoutingCache routing_;
  std::optional<DimOrder> order_;
  // Device numbers -> time (kInfeasible: out of memory or refused; the
  // verdict is kept to count it again).
  struct Verdict {
    double time_s = 0;
    bool refused = false;
  };
  std::unordered_map<std::string, Verdict> seen_;
  bool last_was_repeat_ = false;
  EvaluationCounts counts_;
  ParetoFront pareto_;
};

// A design evaluated in full, with the best of all orderings: what
// `snr pathfind predict` prints for the same budget.
struct FullEvaluation {
  age::ResourceBudget budget;
  std::optional<age::GeneratedArchitecture> generated;  // none: the generator refused
  PredictInputs inputs;                                 // what was predicted
  std::optional<Prediction> prediction;                 // none: refused (see error)
  std::string error;
};
FullEvaluation evaluate_design(const age::TechnologyLibrary& tech, const age::ArchitectureTemplate& arch,
                               const age::ResourceBudget& budget, const Workload& workload,
                               const Strategy& strategy);

}  // namespace snr::pathfind::search
