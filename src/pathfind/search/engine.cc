#include "pathfind/search/engine.h"

namespace snr::pathfind::search {

bool feasible_start(Objective& objective, const StartContext& context, Random& random, uint32_t tries,
                    std::vector<double>& w, double& value) {
  w = context.initial;
  w.resize(context.size, 0.0);
  value = kInfeasible;
  if (context.start == 0) {
    project(w, context.blocks);
    value = objective.evaluate(w);
  }
  for (uint32_t i = 0; i < tries && value == kInfeasible; ++i) {
    sample_uniform(w, context.blocks, random);
    value = objective.evaluate(w);
  }
  return value != kInfeasible;
}

}  // namespace snr::pathfind::search
