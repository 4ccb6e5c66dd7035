#include "pathfind/search/parameters.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace snr::pathfind::search {
namespace {

constexpr Resource kResources[] = {Resource::kArea, Resource::kPower, Resource::kPerimeter};

bool is_network_tier(std::string_view component) {
  return component == "intra_package" || component == "inter_package";
}

std::string_view section_name(Resource resource) {
  switch (resource) {
    case Resource::kArea: return "area_breakdown";
    case Resource::kPower: return "power_breakdown";
    case Resource::kPerimeter: return "perimeter_breakdown";
  }
  return "";
}

// Budget is ResourceBudget or const ResourceBudget.
template <class Budget>
auto& breakdown_of(Budget& budget, Resource resource) {
  return resource == Resource::kArea ? budget.area : resource == Resource::kPower ? budget.power : budget.perimeter;
}

}  // namespace

std::string_view resource_name(Resource resource) {
  switch (resource) {
    case Resource::kArea: return "area";
    case Resource::kPower: return "power";
    case Resource::kPerimeter: return "perimeter";
  }
  return "";
}

ParameterSpace::ParameterSpace(const age::ArchitectureTemplate& arch, age::ResourceBudget base)
    : base_(std::move(base)) {
  std::vector<std::string> components = arch.component_names();
  if (arch.intra_package) components.emplace_back("intra_package");
  if (arch.inter_package) components.emplace_back("inter_package");
  for (Resource resource : kResources) {
    for (const auto& [component, fraction] : breakdown_of(base_, resource)) {
      if (std::find(components.begin(), components.end(), component) == components.end()) {
        throw Error(fmt::format("budget '{}': {}.{}: template '{}' has no such component", base_.name,
                                section_name(resource), component, arch.name));
      }
    }
    SimplexBlock block{parameters_.size(), 0};
    for (const std::string& component : components) {
      if (resource == Resource::kPerimeter && component != arch.main_memory.name && !is_network_tier(component)) {
        continue;
      }
      parameters_.push_back({resource, component});
      ++block.count;
    }
    blocks_.push_back(block);
  }
}

std::string ParameterSpace::name(size_t index) const {
  const Parameter& p = parameters_.at(index);
  return fmt::format("{}.{}", resource_name(p.resource), p.component);
}

std::vector<double> ParameterSpace::from_budget(const age::ResourceBudget& budget) const {
  std::vector<double> w(parameters_.size());
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = age::ResourceBudget::fraction(breakdown_of(budget, parameters_[i].resource), parameters_[i].component);
  }
  return w;
}

age::ResourceBudget ParameterSpace::to_budget(std::span<const double> w) const {
  age::ResourceBudget out = base_;
  out.name = base_.name + "-searched";
  for (Resource resource : kResources) breakdown_of(out, resource).clear();
  for (const Parameter& p : parameters_) breakdown_of(out, p.resource).emplace_back(p.component, 0.0);
  fill_budget(w, out);
  return out;
}

void ParameterSpace::fill_budget(std::span<const double> w, age::ResourceBudget& out) const {
  if (w.size() != parameters_.size()) {
    throw Error(fmt::format("search parameters: {} values for {} parameters", w.size(), parameters_.size()));
  }
  // to_budget laid the breakdowns out in parameter order, class by class.
  size_t i = 0;
  for (Resource resource : kResources) {
    for (auto& entry : breakdown_of(out, resource)) entry.second = w[i++];
  }
}

std::string format_budget_yaml(const age::ResourceBudget& budget) {
  // A JSON string is a YAML double-quoted scalar: any name survives.
  std::string out = fmt::format("name: {}\n", nlohmann::json(budget.name).dump());
  for (Resource resource : kResources) {
    const age::Breakdown& breakdown = breakdown_of(budget, resource);
    if (resource == Resource::kPerimeter && breakdown.empty()) continue;
    out += fmt::format("{}:\n", section_name(resource));
    if (resource == Resource::kArea) {
      out += fmt::format("  node_area_budget: {}mm2\n  proc_chip_area_budget: {}mm2\n", budget.node_area_mm2,
                         budget.chip_area_mm2);
    }
    if (resource == Resource::kPower) out += fmt::format("  TDP: {}W\n", budget.tdp_w);
    std::string network;
    for (const auto& [component, fraction] : breakdown) {
      if (is_network_tier(component)) {
        network += fmt::format("{}{}: {}", network.empty() ? "" : ", ", component, fraction);
      } else {
        out += fmt::format("  {}: {}\n", component, fraction);
      }
    }
    if (!network.empty()) out += fmt::format("  network: {{{}}}\n", network);
  }
  return out;
}

}  // namespace snr::pathfind::search
