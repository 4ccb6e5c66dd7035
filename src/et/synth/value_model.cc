#include "et/synth/value_model.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/error.h"

namespace snr::et::synth {

uint64_t ValueModel::sample(Random& random) const {
  if (!atoms.empty()) {
    std::vector<double> weights;
    weights.reserve(atoms.size());
    for (const auto& a : atoms) weights.push_back(a.probability);
    return atoms[random.pick(weights)].value;
  }
  const double log_value = mixture.sample(random);
  const double value = std::exp2(std::min(log_value, 62.0)) - offset;
  const double low = static_cast<double>(min_value) / 2;
  const double high = static_cast<double>(max_value) * 2;
  return static_cast<uint64_t>(std::llround(std::clamp(value, low, high)));
}

ValueModel fit_value_model(std::span<const uint64_t> values, double offset, bool allow_atoms) {
  if (values.empty()) throw Error("cannot fit a value distribution to no values");
  ValueModel model;
  model.offset = offset;
  model.samples = values.size();
  model.min_value = *std::min_element(values.begin(), values.end());
  model.max_value = *std::max_element(values.begin(), values.end());
  std::map<uint64_t, uint64_t> counts;
  std::vector<double> logs;
  logs.reserve(values.size());
  for (uint64_t v : values) {
    ++counts[v];
    logs.push_back(std::log2(offset + static_cast<double>(v)));
  }
  model.mixture = fit_gaussian_mixture(logs);
  if (allow_atoms && counts.size() <= ValueModel::kMaxAtoms) {
    for (const auto& [value, count] : counts) {
      model.atoms.push_back(Atom{value, static_cast<double>(count) / static_cast<double>(values.size())});
    }
  }
  return model;
}

}  // namespace snr::et::synth
