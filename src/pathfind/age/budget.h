// Hardware resource allocation of seed 004 §4.3 (Figure 4): the node's and
// the compute chip's area, the chip's power, and the fractions of each that
// every component (core, each memory level, main memory, network tiers)
// may spend. The perimeter is inferred from the chip area (a square die).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace snr::pathfind::age {

// Fractions by component name; the network tiers are "intra_package" and
// "inter_package".
using Breakdown = std::vector<std::pair<std::string, double>>;

struct ResourceBudget {
  std::string name;
  double node_area_mm2 = 0;  // package: compute die + off-chip memory devices
  double chip_area_mm2 = 0;  // compute die
  double tdp_w = 0;          // compute die
  Breakdown area;
  Breakdown power;
  Breakdown perimeter;

  [[nodiscard]] double chip_perimeter_mm() const;
  // The fraction of `breakdown` given to `component`, 0 when absent.
  [[nodiscard]] static double fraction(const Breakdown& breakdown, std::string_view component);
  // Ranges, fractions in [0, 1], each breakdown summing to at most 1, the
  // chip inside the node; throws naming the field.
  void validate() const;
};

ResourceBudget parse_budget_yaml(std::string_view text, std::string_view source);
std::vector<std::string_view> builtin_budget_names();
ResourceBudget builtin_budget(std::string_view name);
ResourceBudget load_budget(const std::string& name_or_path);

}  // namespace snr::pathfind::age
