#include "pathfind/age/budget.h"

#include <fmt/format.h>

#include <cmath>

#include "common/error.h"
#include "pathfind/age/builtin_inputs.h"
#include "pathfind/inputs/quantity.h"

namespace snr::pathfind::age {

double ResourceBudget::chip_perimeter_mm() const { return 4.0 * std::sqrt(chip_area_mm2); }

double ResourceBudget::fraction(const Breakdown& breakdown, std::string_view component) {
  for (const auto& [name, value] : breakdown) {
    if (name == component) return value;
  }
  return 0.0;
}

void ResourceBudget::validate() const {
  auto fail = [&](std::string_view field, const std::string& why) {
    throw Error(fmt::format("budget '{}': {}: {}", name, field, why));
  };
  if (!(chip_area_mm2 > 0 && std::isfinite(chip_area_mm2))) fail("area_breakdown.proc_chip_area_budget", "must be positive");
  if (!(node_area_mm2 >= chip_area_mm2 && std::isfinite(node_area_mm2))) {
    fail("area_breakdown.node_area_budget",
         fmt::format("{} mm2 is smaller than the compute chip ({} mm2)", node_area_mm2, chip_area_mm2));
  }
  if (!(tdp_w > 0 && std::isfinite(tdp_w))) fail("power_breakdown.TDP", "must be positive");
  for (const auto& [section, breakdown] :
       {std::pair{"area_breakdown", &area}, std::pair{"power_breakdown", &power},
        std::pair{"perimeter_breakdown", &perimeter}}) {
    double sum = 0;
    std::string terms;
    for (const auto& [component, value] : *breakdown) {
      if (!(value >= 0 && value <= 1)) fail(fmt::format("{}.{}", section, component), "must be a fraction in [0, 1]");
      sum += value;
      terms += fmt::format("{}{} {}", terms.empty() ? "" : " + ", component, value);
    }
    if (sum > 1 + 1e-9) fail(section, fmt::format("fractions sum to {:.4g} > 1 ({})", sum, terms));
  }
}

namespace {

[[noreturn]] void fail_at(std::string_view source, const YAML::Node& node, const std::string& path,
                          const std::string& why) {
  throw Error(fmt::format("{}:{}: {}: {}", source, node.Mark().line + 1, path, why));
}

double fraction_value(std::string_view source, const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) fail_at(source, node, path, "expected a fraction");
  const std::string& text = node.Scalar();
  double value = 0;
  try {
    size_t used = 0;
    value = std::stod(text, &used);
    if (used != text.size()) throw Error("");
  } catch (const std::exception&) {
    fail_at(source, node, path, fmt::format("'{}' is not a number", text));
  }
  if (!(value >= 0 && value <= 1)) fail_at(source, node, path, fmt::format("{} is not a fraction in [0, 1]", value));
  return value;
}

// One *_breakdown section: component fractions, a `network` map with the
// two tiers, and the section's own totals read by `total`.
template <typename Total>
Breakdown read_breakdown(std::string_view source, const YAML::Node& section, const std::string& path, Total total) {
  if (!section.IsMap()) fail_at(source, section, path, "expected a map of component fractions");
  Breakdown out;
  for (const auto& entry : section) {
    if (!entry.first.IsScalar()) fail_at(source, entry.first, path, "keys must be plain names");
    std::string key = entry.first.Scalar();
    std::string key_path = path + "." + key;
    if (total(key, entry.second, key_path)) continue;
    if (key == "network") {
      if (!entry.second.IsMap()) fail_at(source, entry.second, key_path, "expected intra_package and inter_package");
      for (const auto& tier : entry.second) {
        std::string tier_name = tier.first.IsScalar() ? tier.first.Scalar() : "";
        if (tier_name != "intra_package" && tier_name != "inter_package") {
          fail_at(source, tier.first, key_path + "." + tier_name, "unknown key (this section reads: intra_package, inter_package)");
        }
        out.emplace_back(tier_name, fraction_value(source, tier.second, key_path + "." + tier_name));
      }
      continue;
    }
    out.emplace_back(key, fraction_value(source, entry.second, key_path));
  }
  return out;
}

}  // namespace

ResourceBudget parse_budget_yaml(std::string_view text, std::string_view source) {
  YAML::Node root = load_yaml_text(text, source);
  StrictMap top(root, std::string(source), "");
  ResourceBudget b;
  b.name = top.string_or("name", std::string(source));
  bool have_node = false, have_chip = false, have_tdp = false;
  auto area_total = [&](const std::string& key, const YAML::Node& value, const std::string& path) {
    if (key != "node_area_budget" && key != "proc_chip_area_budget") return false;
    double mm2 = 0;
    try {
      if (!value.IsScalar()) throw Error("expected an area such as 815mm2");
      mm2 = parse_area_mm2(value.Scalar());
    } catch (const Error& e) {
      fail_at(source, value, path, e.what());
    }
    if (!(mm2 > 0 && mm2 <= 1e6)) fail_at(source, value, path, fmt::format("{} mm2 is out of range (0, 1e6]", mm2));
    (key == "node_area_budget" ? b.node_area_mm2 : b.chip_area_mm2) = mm2;
    (key == "node_area_budget" ? have_node : have_chip) = true;
    return true;
  };
  auto power_total = [&](const std::string& key, const YAML::Node& value, const std::string& path) {
    if (key != "TDP") return false;
    try {
      if (!value.IsScalar()) throw Error("expected a power such as 300W");
      b.tdp_w = parse_power_w(value.Scalar());
    } catch (const Error& e) {
      fail_at(source, value, path, e.what());
    }
    if (!(b.tdp_w > 0 && b.tdp_w <= 1e6)) fail_at(source, value, path, fmt::format("{} W is out of range (0, 1e6]", b.tdp_w));
    have_tdp = true;
    return true;
  };
  auto no_total = [](const std::string&, const YAML::Node&, const std::string&) { return false; };
  (void)top.has("area_breakdown");
  (void)top.has("power_breakdown");
  (void)top.has("perimeter_breakdown");
  top.finish();
  auto section = [&](const char* key) {
    YAML::Node node = root[key];
    if (!node) throw Error(fmt::format("{}: {}: missing required section", source, key));
    return node;
  };
  b.area = read_breakdown(source, section("area_breakdown"), "area_breakdown", area_total);
  b.power = read_breakdown(source, section("power_breakdown"), "power_breakdown", power_total);
  b.perimeter = root["perimeter_breakdown"]
                    ? read_breakdown(source, root["perimeter_breakdown"], "perimeter_breakdown", no_total)
                    : Breakdown{};
  if (!have_node) throw Error(fmt::format("{}: area_breakdown.node_area_budget: missing required key", source));
  if (!have_chip) throw Error(fmt::format("{}: area_breakdown.proc_chip_area_budget: missing required key", source));
  if (!have_tdp) throw Error(fmt::format("{}: power_breakdown.TDP: missing required key", source));
  with_error_context(std::string(source), [&] { b.validate(); });
  return b;
}

ResourceBudget load_budget(const std::string& name_or_path) {
  return load_builtin_or_file(name_or_path, builtin_budget_names(), "budget", builtin_budget,
                              [](std::string_view text, const std::string& path) { return parse_budget_yaml(text, path); });
}

}  // namespace snr::pathfind::age
