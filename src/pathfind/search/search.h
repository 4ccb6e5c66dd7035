// The design-space search of seed 004 (§3.2 SOE, §3.3, §7) as a library
// call: the micro-architecture parameters W (area, power and perimeter
// fractions) searched by a named engine for each parallelism strategy,
// every (strategy, start) pair an independent task on the task farm, and
// the best design, the trajectory of the start that found it, and the
// Pareto set of (time, power, area). No files: the CLI and the Python
// module call it.
//
// Determinism: start s of every strategy uses the seed derived from (seed,
// s), so a seed gives the same starting points to every strategy; results
// are merged by task id, so the outcome does not depend on how many ranks
// ran the tasks or in which order they finished.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pathfind/age/generate.h"
#include "pathfind/predict/predict.h"
#include "pathfind/search/engine.h"
#include "pathfind/search/objective.h"

namespace snr::taskfarm {
class Session;
}

namespace snr::pathfind::search {

// The most designs one search may evaluate by default: strategies x starts
// x the engine's worst case per start. About 5 minutes of GEMM designs and
// 40 of GPT-3 designs on one core (30 and 250 us each); without a bound the
// keys' own ranges allowed days (a billion random samples). A search that
// means to go further (over many MPI ranks) raises SearchInputs::
// max_evaluations, up to kMaxSearchEvaluationsAllowed.
inline constexpr double kMaxSearchEvaluations = 1e7;
inline constexpr double kMaxSearchEvaluationsAllowed = 1e12;
// An LSTM design's cost grows with its layers x time steps, where the
// other workloads' does not: the event schedule simulates 5 kernels per
// cell, 0.25-0.34 us each on one core (1.3-1.8 s for the 5.2 M kernels of
// 1,024 layers x 1,024 steps). Such a design counts toward the bound as
// kernels / kScheduledKernelsPerDesign designs when that is more than one:
// 1,000 kernels cost about what one GPT-3 design does (250 us).
inline constexpr double kScheduledKernelsPerDesign = 1000;
inline constexpr double kSecondsPerScheduledKernel = 0.3e-6;

struct SearchInputs {
  age::TechnologyLibrary tech;
  age::ArchitectureTemplate arch;
  age::ResourceBudget budget;        // the totals, and the first starting point of gd
  Workload workload;
  std::vector<Strategy> strategies;  // one given, or enumerate_strategies()
  std::string engine = "gd";
  std::map<std::string, double> config;  // engine keys given; the others keep their defaults
  uint64_t seed = 1;
  double max_evaluations = kMaxSearchEvaluations;  // the worst case refused above it (1 .. 1e12)
};

struct StrategyResult {
  Strategy strategy;
  bool feasible = false;   // some start found a feasible design
  double time_s = 0;       // its best design, mapped with the best of all orderings
  std::string ordering;    // that mapping
  std::vector<double> w;
  uint64_t start = 0;      // the start that found it
  uint64_t steps = 0;      // steps (gd) or samples (random) of that start
  bool converged = false;
  EvaluationCounts counts;  // over all its starts
};

struct BestDesign {
  uint64_t strategy = 0;  // index into SearchInputs::strategies and SearchResult::strategies
  std::vector<double> w;
  age::ResourceBudget budget;
  age::GeneratedArchitecture generated;
  PredictInputs inputs;   // the generated device, template, workload and strategy
  Prediction prediction;  // with the best of all orderings
  double power_used_w = 0;
  double area_used_mm2 = 0;
  std::optional<double> baseline_time_s;  // the given budget under the same strategy
  // The start that found it, step by step, with the ordering fixed at its
  // first design (so the last time can differ slightly from time_s).
  std::vector<TrajectoryPoint> trajectory;
};

struct SearchResult {
  std::string engine;
  EngineConfig config;
  uint64_t seed = 0;
  std::string workload;
  uint64_t devices = 0;
  std::vector<std::string> parameters;  // names of the entries of every w ("area.core", ...)
  std::vector<StrategyResult> strategies;
  std::optional<BestDesign> best;       // none when no design was feasible
  std::vector<DesignPoint> pareto;      // by time, then power, then area
  EvaluationCounts counts;
  uint64_t tasks = 0;
  // False on MPI ranks other than 0: they ran tasks, rank 0 holds the result.
  bool complete = true;
};

// Throws snr::Error for bad inputs (no strategy, unknown engine, bad config
// key, a strategy using other than one device count, a budget naming a
// component the template lacks, more than max_evaluations designs at
// worst); infeasible designs are counted instead.
// Without a session (or outside mpirun) every task runs here.
SearchResult search(const SearchInputs& inputs, const taskfarm::Session* session = nullptr);

// The JSON of `snr pathfind search --json` and search.json
// (docs/pathfind-search.md lists the keys).
nlohmann::ordered_json search_result_json(const SearchResult& result);

}  // namespace snr::pathfind::search
