// `random`: uniform random feasible designs, the baseline the gradient
// search has to beat. The `samples` draws are shared out over the starts
// (each draws its share from its own seed), so the starts can run on
// different ranks and the total does not depend on how many there are.
#include <cmath>
#include <memory>

#include "pathfind/search/registry.h"

namespace snr::pathfind::search {
namespace {

class RandomEngine final : public SearchEngine {
 public:
  explicit RandomEngine(uint64_t samples) : samples_(samples) {}

  StartResult run(Objective& objective, const StartContext& context) const override {
    Random random(context.seed);
    const uint64_t mine =
        samples_ / context.starts + (context.start < samples_ % context.starts ? uint64_t{1} : uint64_t{0});
    StartResult r;
    std::vector<double> w(context.size, 0.0);
    for (uint64_t s = 0; s < mine; ++s) {
      sample_uniform(w, context.blocks, random);
      const double value = objective.evaluate(w);
      ++r.steps;
      if (value < r.value) {
        r.feasible = true;
        r.value = value;
        r.w = w;
        r.trajectory.push_back({s, value, w});
      }
    }
    if (!r.feasible) r.w = w;
    return r;
  }

 private:
  uint64_t samples_;
};

}  // namespace

EngineInfo random_engine_info() {
  return {
      "random",
      "uniform random designs over each class's simplex; the best feasible one",
      {
          {"samples", "designs drawn in all, spread over the starts", 1000, 1, 1e9, true},
          {"starts", "independent streams of draws (tasks)", 10, 1, 10000, true},
      },
      [](const EngineConfig& config) -> std::unique_ptr<SearchEngine> {
        return std::make_unique<RandomEngine>(static_cast<uint64_t>(config.at("samples")));
      },
      [](const EngineConfig& config, size_t) { return std::ceil(config.at("samples") / config.at("starts")); },
  };
}

}  // namespace snr::pathfind::search
