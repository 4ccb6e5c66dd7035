#include "pathfind/age/technology_node.h"

#include <gtest/gtest.h>

#include "common/error_of.h"
#include "pathfind/age/arch_template.h"
#include "pathfind/age/budget.h"
#include "pathfind/age/builtin_inputs.h"
#include "pathfind/age/generate.h"

namespace snr::pathfind::age {
namespace {

using snr::testing::error_of;

TEST(TechnologyNode, StepsAlongTheLadder) {
  EXPECT_EQ(node_steps("N7", "N5"), 1);
  EXPECT_EQ(node_steps("N12", "N1"), 6);
  EXPECT_EQ(node_steps("N5", "N7"), -1);
  EXPECT_NE(error_of([] { node_steps("N7", "N4"); }).find("unknown logic node 'N4'"), std::string::npos);
}

TEST(TechnologyNode, ScalesLogicAndLeavesMemoryAndLinks) {
  const TechnologyLibrary n7 = builtin_technology("n7");
  const TechnologyLibrary n3 = scale_to_node(n7, "N7", "N3", "n3");
  const double area = 1.8 * 1.8, power = 1.3 * 1.3;  // two steps
  ASSERT_EQ(n3.compute.size(), n7.compute.size());
  EXPECT_EQ(n3.compute[0].node, "N3");
  EXPECT_DOUBLE_EQ(n3.compute[0].area_per_mac_mm2 * area, n7.compute[0].area_per_mac_mm2);
  EXPECT_DOUBLE_EQ(n3.compute[0].energy_per_flop_j * power, n7.compute[0].energy_per_flop_j);
  EXPECT_DOUBLE_EQ(n3.on_chip_memory[1].area_per_bit_mm2 * area, n7.on_chip_memory[1].area_per_bit_mm2);
  EXPECT_DOUBLE_EQ(n3.on_chip_memory[1].dynamic_energy_per_bit_j * power, n7.on_chip_memory[1].dynamic_energy_per_bit_j);
  EXPECT_EQ(n3.off_chip_memory[0].device_area_mm2, n7.off_chip_memory[0].device_area_mm2);
  EXPECT_EQ(n3.network[0].energy_per_bit_j, n7.network[0].energy_per_bit_j);
  // An older node grows.
  const TechnologyLibrary n12 = builtin_technology("n12");
  EXPECT_DOUBLE_EQ(n12.compute[0].area_per_mac_mm2, n7.compute[0].area_per_mac_mm2 * 1.8 * 1.8);
  EXPECT_NE(error_of([&] { scale_to_node(n7, "N5", "N3", "x"); }).find("is at node 'N7', not N5"),
            std::string::npos);
}

TEST(TechnologyNode, TheWrittenYamlReadsBackToTheSameLibrary) {
  for (std::string_view name : builtin_technology_names()) {
    const TechnologyLibrary library = builtin_technology(name);
    const TechnologyLibrary again = parse_technology_yaml(format_technology_yaml(library), name);
    EXPECT_EQ(format_technology_yaml(again), format_technology_yaml(library)) << name;
    EXPECT_EQ(again.compute[0].area_per_mac_mm2, library.compute[0].area_per_mac_mm2) << name;
    EXPECT_EQ(again.off_chip_memory[0].voltage.nominal_hz, library.off_chip_memory[0].voltage.nominal_hz) << name;
    for (size_t i = 0; i < library.network.size(); ++i) {
      EXPECT_EQ(again.network[i].latency_s, library.network[i].latency_s) << name;
      EXPECT_EQ(again.network[i].operation_latency_s, library.network[i].operation_latency_s) << name;
    }
  }
  EXPECT_NE(builtin_input_yaml("n5").find("name: n5"), std::string::npos);
}

TEST(TechnologyNode, ANewerNodeBuysMoreComputeOnTheSameBudget) {
  const ArchitectureTemplate arch = builtin_template("gpu-16x16");
  const ResourceBudget budget = builtin_budget("a100-like");
  double previous_flops = 0;
  for (std::string_view name : {"n12", "n10", "n7", "n5", "n3"}) {
    const GeneratedArchitecture g = generate_architecture(builtin_technology(name), arch, budget);
    EXPECT_GT(g.peak_flops_per_s, previous_flops) << name;
    previous_flops = g.peak_flops_per_s;
  }
}

}  // namespace
}  // namespace snr::pathfind::age
