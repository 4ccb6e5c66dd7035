// The parameters of seed 004 §7, W = {A_i, P_i, R_i}: the share of the
// chip area, the chip power and the die perimeter each component of an
// architecture template gets, as one flat vector with one simplex block per
// class. The totals (node and chip area, TDP) stay those of a base budget.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pathfind/age/arch_template.h"
#include "pathfind/age/budget.h"
#include "pathfind/search/simplex.h"

namespace snr::pathfind::search {

enum class Resource { kArea, kPower, kPerimeter };
std::string_view resource_name(Resource resource);  // "area", "power", "perimeter"

struct Parameter {
  Resource resource = Resource::kArea;
  std::string component;
};

class ParameterSpace {
 public:
  // Area and power fractions for every component of the template in its
  // order (core, the memory levels innermost first, main memory, then the
  // network tiers it has); perimeter fractions for main memory and the
  // network tiers, the only parts the generator spends die edge on.
  // Throws snr::Error naming the budget field for a component of `base`
  // that the template does not have.
  ParameterSpace(const age::ArchitectureTemplate& arch, age::ResourceBudget base);

  [[nodiscard]] size_t size() const { return parameters_.size(); }
  [[nodiscard]] const std::vector<Parameter>& parameters() const { return parameters_; }
  // Area, power and perimeter, in that order.
  [[nodiscard]] const std::vector<SimplexBlock>& blocks() const { return blocks_; }
  [[nodiscard]] const age::ResourceBudget& base() const { return base_; }
  // "area.core", "perimeter.hbm".
  [[nodiscard]] std::string name(size_t index) const;

  // The fractions of `budget` (0 for a component it does not mention).
  [[nodiscard]] std::vector<double> from_budget(const age::ResourceBudget& budget) const;
  // The base budget with the fractions of `w` (size() entries), named
  // "<base name>-searched".
  [[nodiscard]] age::ResourceBudget to_budget(std::span<const double> w) const;
  // The same into a budget to_budget made before: only the numbers change,
  // so the search loop allocates nothing.
  void fill_budget(std::span<const double> w, age::ResourceBudget& out) const;

 private:
  age::ResourceBudget base_;
  std::vector<Parameter> parameters_;
  std::vector<SimplexBlock> blocks_;
};

// A budget as the YAML parse_budget_yaml reads, at full precision: the
// best design of a search can be saved and given back with --budget.
std::string format_budget_yaml(const age::ResourceBudget& budget);

}  // namespace snr::pathfind::search
