// The search strategies of the design-space search (seed 004 §7) behind one
// interface: an engine minimises a black-box objective over a flat vector
// whose blocks are simplices with slack, from one starting point at a time.
// Engines know nothing about hardware; search.h binds them to the
// performance model. Each engine lives in its own file and declares its
// configuration keys with defaults and ranges (registry.h).
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "pathfind/search/simplex.h"

namespace snr::pathfind::search {

inline constexpr double kInfeasible = std::numeric_limits<double>::infinity();

class Objective {
 public:
  virtual ~Objective() = default;
  // The figure to minimise (positive), or kInfeasible for a design that
  // cannot be built or run. Never throws for a bad design.
  virtual double evaluate(std::span<const double> w) = 0;
  // Whether the last evaluate() met a design it had judged before under
  // another w (the performance model: the same generated device, since the
  // generator counts whole units). A finite-difference step that lands
  // there is too short to see anything. False where the objective cannot
  // tell.
  [[nodiscard]] virtual bool last_was_repeat() const { return false; }
};

// Every key an engine declares, with the value in force (given or default),
// by name; ordered so that its JSON is stable.
using EngineConfig = std::map<std::string, double>;

struct TrajectoryPoint {
  uint64_t step = 0;  // gd: 0 for the start, then each step; random: the sample
  double value = 0;
  std::vector<double> w;
};

// What one starting point gave.
struct StartResult {
  bool feasible = false;  // some evaluated design was feasible
  double value = kInfeasible;
  std::vector<double> w;  // the best design seen
  // gd: the start and every step's design; random: each new best.
  std::vector<TrajectoryPoint> trajectory;
  uint64_t steps = 0;       // gd steps or random samples taken
  bool converged = false;   // gd stopped before its step limit
};

struct StartContext {
  std::span<const SimplexBlock> blocks;
  size_t size = 0;              // entries of the flat vector
  std::vector<double> initial;  // inside every block; engines that sample ignore it
  uint64_t start = 0;           // index of this start, 0-based
  uint64_t starts = 1;          // starts in the whole search
  uint64_t seed = 0;            // this start's own seed
};

class SearchEngine {
 public:
  virtual ~SearchEngine() = default;
  // Deterministic for a given context; every design it evaluates and
  // returns satisfies the blocks exactly (simplex.h).
  virtual StartResult run(Objective& objective, const StartContext& context) const = 0;
};

// A feasible design to start from. Start 0 tries `context.initial` first
// (the given budget); every start then takes the first feasible of up to
// `tries` uniform draws from `random`. Returns false (and the last point tried) when none was.
bool feasible_start(Objective& objective, const StartContext& context, Random& random, uint32_t tries,
                    std::vector<double>& w, double& value);

}  // namespace snr::pathfind::search
