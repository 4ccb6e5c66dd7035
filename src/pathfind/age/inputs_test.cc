#include <gtest/gtest.h>

#include <string>

#include "common/error.h"
#include "common/error_of.h"
#include "pathfind/age/arch_template.h"
#include "pathfind/age/budget.h"
#include "pathfind/age/builtin_inputs.h"
#include "pathfind/age/technology.h"
#include "pathfind/age/test_inputs.h"

namespace snr::pathfind::age {
namespace {

using snr::testing::error_of;

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(PathfindAgeInputs, TinyInputsRead) {
  TechnologyLibrary t = parse_technology_yaml(testing::kTinyTech, "t.yaml");
  EXPECT_DOUBLE_EQ(t.find_on_chip("rf").area_per_bit_mm2, 1e-6);
  EXPECT_DOUBLE_EQ(t.find_compute("mac").energy_per_flop_j, 1e-12);
  ArchitectureTemplate a = parse_template_yaml(testing::kTinyTemplate, "a.yaml");
  ASSERT_TRUE(a.intra_package.has_value());
  EXPECT_EQ(a.intra_package->shape, (std::vector<uint64_t>{2, 2}));
  EXPECT_FALSE(a.inter_package.has_value());
  ResourceBudget b = parse_budget_yaml(testing::tiny_budget("0.1"), "b.yaml");
  EXPECT_DOUBLE_EQ(ResourceBudget::fraction(b.area, "intra_package"), 0.05);
  EXPECT_DOUBLE_EQ(b.chip_perimeter_mm(), 40.0);
}

TEST(PathfindAgeInputs, TechnologyErrorsNameTheField) {
  auto tech = [](const std::string& text) { return error_of([&] { (void)parse_technology_yaml(text, "t.yaml"); }); };
  std::string unknown = tech(replaced(testing::kTinyTech, "area_per_mac:", "area_per_macs:"));
  EXPECT_NE(unknown.find("area_per_mac"), std::string::npos) << unknown;
  std::string volts = tech(replaced(testing::kTinyTech, "min_voltage: 0.5V", "min_voltage: 0.1V"));
  EXPECT_NE(volts.find("min_voltage"), std::string::npos) << volts;
  std::string unit = tech(replaced(testing::kTinyTech, "energy_per_flop: 1pJ", "energy_per_flop: 1pW"));
  EXPECT_NE(unit.find("energy_per_flop"), std::string::npos) << unit;
  std::string twice = tech(replaced(testing::kTinyTech, "name: sram", "name: rf"));
  EXPECT_NE(twice.find("appears twice"), std::string::npos) << twice;
  EXPECT_NE(error_of([] { (void)parse_technology_yaml(testing::kTinyTech, "t").find_link("nvlink"); })
                .find("known: lane"),
            std::string::npos);
}

TEST(PathfindAgeInputs, TemplateErrorsNameTheField) {
  auto arch = [](const std::string& text) { return error_of([&] { (void)parse_template_yaml(text, "a.yaml"); }); };
  EXPECT_NE(arch(replaced(testing::kTinyTemplate, "shape: 2x2", "shape: 3x2")).find("shape"), std::string::npos);
  EXPECT_NE(arch(replaced(testing::kTinyTemplate, "shape: 2x2", "shape: 2xx")).find("shape"), std::string::npos);
  EXPECT_NE(arch(replaced(testing::kTinyTemplate, "topology: torus", "topology: ring")).find("topology"),
            std::string::npos);
  EXPECT_NE(arch(replaced(testing::kTinyTemplate, "scope: mcu}", "scope: global}")).find("memory[0].scope"),
            std::string::npos);
  EXPECT_NE(arch(replaced(testing::kTinyTemplate, "name: smem", "name: reg")).find("used twice"), std::string::npos);
}

TEST(PathfindAgeInputs, BudgetErrorsNameTheField) {
  auto budget = [](const std::string& text) { return error_of([&] { (void)parse_budget_yaml(text, "b.yaml"); }); };
  std::string over = budget(replaced(testing::tiny_budget("0.1"), "core: 0.1\n", "core: 0.9\n"));
  EXPECT_NE(over.find("area_breakdown: fractions sum to 1.13"), std::string::npos) << over;
  std::string power_over = budget(testing::tiny_budget("0.9"));
  EXPECT_NE(power_over.find("power_breakdown: fractions sum to 1.07"), std::string::npos) << power_over;
  std::string node = budget(replaced(testing::tiny_budget("0.1"), "node_area_budget: 200mm2", "node_area_budget: 50mm2"));
  EXPECT_NE(node.find("node_area_budget"), std::string::npos) << node;
  std::string fraction = budget(replaced(testing::tiny_budget("0.1"), "dram: 0.2", "dram: 1.5"));
  EXPECT_NE(fraction.find("perimeter_breakdown.dram"), std::string::npos) << fraction;
  std::string tier = budget(replaced(testing::tiny_budget("0.1"), "{intra_package: 0.05}", "{intra: 0.05}"));
  EXPECT_NE(tier.find("area_breakdown.network.intra"), std::string::npos) << tier;
  std::string tdp = budget(replaced(testing::tiny_budget("0.1"), "TDP: 100W", "TDP: 100"));
  EXPECT_NE(tdp.find("power_breakdown.TDP"), std::string::npos) << tdp;
  std::string missing = budget(replaced(testing::tiny_budget("0.1"), "  TDP: 100W\n", ""));
  EXPECT_NE(missing.find("TDP: missing"), std::string::npos) << missing;
}

TEST(PathfindAgeInputs, BuiltinsReadThroughTheStrictReaders) {
  for (std::string_view n : builtin_technology_names()) EXPECT_NO_THROW((void)builtin_technology(n));
  for (std::string_view n : builtin_template_names()) EXPECT_NO_THROW((void)builtin_template(n));
  for (std::string_view n : builtin_budget_names()) EXPECT_NO_THROW((void)builtin_budget(n));
  EXPECT_NE(builtin_input_yaml("a100-like").find("area_breakdown"), std::string::npos);
  EXPECT_NE(error_of([] { (void)load_budget("no-such-budget"); }).find("a100-like"), std::string::npos);
}

}  // namespace
}  // namespace snr::pathfind::age
