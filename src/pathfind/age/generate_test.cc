#include "pathfind/age/generate.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "pathfind/age/builtin_inputs.h"
#include "pathfind/age/test_inputs.h"
#include "pathfind/inputs/device.h"
#include "pathfind/roofline/gemm.h"

namespace snr::pathfind::age {
namespace {

using testing::kTinyTech;
using testing::kTinyTemplate;
using testing::tiny_budget;

GeneratedArchitecture tiny(const std::string& core_power) {
  return generate_architecture(parse_technology_yaml(kTinyTech, "tech.yaml"),
                               parse_template_yaml(kTinyTemplate, "arch.yaml"),
                               parse_budget_yaml(tiny_budget(core_power), "budget.yaml"));
}

const ComponentReport& component(const GeneratedArchitecture& g, std::string_view name) {
  for (const ComponentReport& c : g.components) {
    if (c.name == name) return c;
  }
  throw Error("no component");
}

std::string error_of(const std::string& core_power) {
  try {
    (void)tiny(core_power);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Core: 10 mm2 / (16 MACs x 0.01 mm2) = 62.5 -> 31 bundles of 2 = 62 MCUs.
// One MCU at nominal: 16 x 2 flop x 1 GHz x 1 pJ = 0.032 W; 62 -> 1.984 W.
TEST(PathfindAgeGenerate, CorePowerBoundSetsVoltageByTheAlphaPowerLaw) {
  // 0.2976 W = 0.15 x 1.984 W: the power ratio of exactly 0.6 V.
  GeneratedArchitecture g = tiny("0.002976");
  const ComponentReport& core = component(g, "core");
  EXPECT_EQ(core.bound, "power");
  EXPECT_EQ(core.units, 62);
  EXPECT_NEAR(core.voltage_v, 0.6, 1e-9);
  EXPECT_NEAR(g.device.frequency_hz, 416.6667e6, 1e3);
  EXPECT_EQ(g.device.bundles, 31u);
  EXPECT_EQ(g.device.mcus_per_bundle, 2u);
  // Equation 1: 62 x 32 GFLOP/s x 416.667 / 1000.
  EXPECT_NEAR(g.peak_flops_per_s, 826.6667e9, 1e5);
  EXPECT_NEAR(g.device.peak_flops_per_s(DType::kFp16), g.peak_flops_per_s, 1e3);
  EXPECT_NEAR(g.device.vector_flops_per_s, 0.5 * g.peak_flops_per_s, 1e3);
}

TEST(PathfindAgeGenerate, AtMinimumVoltageFewerMcus) {
  // 0.1 W < 1.984 W x 0.0703125 (ratio at 0.5 V): one MCU at 0.5 V draws
  // 0.00225 W, so 44 MCUs (22 bundles) fit; the 1 mW left raises the
  // voltage until V (V - 0.2)^2 = 0.64 x 0.1 / (44 x 0.032): V = 0.5011617.
  GeneratedArchitecture g = tiny("0.001");
  const ComponentReport& core = component(g, "core");
  EXPECT_EQ(core.bound, "min_voltage");
  EXPECT_EQ(core.units, 44);
  EXPECT_EQ(g.device.bundles, 22u);
  EXPECT_NEAR(core.voltage_v, 0.5011617, 1e-6);
  EXPECT_NEAR(core.power_used_w, 0.1, 1e-9);
  EXPECT_NEAR(g.device.frequency_hz, 1e9 * (0.3011617 * 0.3011617 / 0.5011617) / 0.64, 1e3);
  EXPECT_NE(core.why.find("minimum voltage"), std::string::npos) << core.why;
}

TEST(PathfindAgeGenerate, AreaBoundAtMaximumVoltage) {
  // 10 W > 1.984 W x 1.875 (ratio at 1.2 V): all 62 MCUs at 1.2 V, 3.72 W used.
  GeneratedArchitecture g = tiny("0.1");
  const ComponentReport& core = component(g, "core");
  EXPECT_EQ(core.bound, "area");
  EXPECT_EQ(core.units, 62);
  EXPECT_DOUBLE_EQ(core.voltage_v, 1.2);
  EXPECT_NEAR(core.power_used_w, 3.72, 1e-9);
  EXPECT_NEAR(g.device.frequency_hz, 1e9 * (1.0 / 1.2) / 0.64, 1e3);
}

// Registers, one instance per MCU, one port: bank 8192 bits x 1 um2 x 1.25
// = 0.01024 mm2 + 0.00476 controller + 0.005 crossbar = 0.02 mm2;
// 10 mm2 / (62 x 0.02) = 8.06 -> 8 banks per MCU, 496 banks.
// Equation 2: 1 nW x 8192 x 496 + 0.1 mW x 496 = 0.053663232 W.
// Equation 3: (1 W - 0.053663232 W) / 0.1 pJ per bit = 1.18292096e12 B/s.
TEST(PathfindAgeGenerate, OnChipLevelByEquationsTwoAndThree) {
  GeneratedArchitecture g = tiny("0.002976");
  const ComponentReport& reg = component(g, "reg");
  EXPECT_EQ(reg.units, 496);
  EXPECT_EQ(reg.bound, "power");
  EXPECT_NEAR(reg.bandwidth_bytes_per_s, 1.18292096e12, 1e3);
  EXPECT_NEAR(reg.power_used_w, 1.0, 1e-9);
  EXPECT_NEAR(reg.area_used_mm2, 9.92, 1e-9);
  const MemoryLevel& level = g.device.levels[0];
  EXPECT_EQ(level.name, "reg");
  EXPECT_DOUBLE_EQ(level.capacity_bytes, 8 * 1024.0);
  EXPECT_NEAR(level.bandwidth_bytes_per_s, 1.18292096e12 / 62, 1e2);
}

// Shared memory, one per bundle serving 2 MCUs: 16384 bits x 1 um2 + 2 x
// 0.001 = 0.018384 mm2; 2 mm2 / (31 x 0.018384) = 3.5 -> 3 banks per
// bundle. Power would buy 5 W / 0.1 pJ = 6.25 TB/s but 93 banks x 1 GB/s
// is the limit.
TEST(PathfindAgeGenerate, BankPortsCapTheBandwidth) {
  GeneratedArchitecture g = tiny("0.002976");
  const ComponentReport& smem = component(g, "smem");
  EXPECT_EQ(smem.units, 93);
  EXPECT_EQ(smem.bound, "bank_ports");
  EXPECT_NEAR(smem.bandwidth_bytes_per_s, 93e9, 1);
  EXPECT_NEAR(smem.power_used_w, 0.0744, 1e-12);
  EXPECT_DOUBLE_EQ(g.device.levels[1].capacity_bytes, 6 * 1024.0);
  EXPECT_NEAR(g.device.levels[1].bandwidth_bytes_per_s, 3e9, 1);
}

// Equation 4: package (200 - 100) / 20 = 5, controllers 6 / 2 = 3,
// perimeter 4 x 10 mm x 0.2 x 16 pins/mm / 64 = 2 devices. Pins run at
// their maximum (= nominal) voltage: 128 x 2 Gb/s = 32 GB/s.
TEST(PathfindAgeGenerate, MainMemoryByEquationFour) {
  GeneratedArchitecture g = tiny("0.002976");
  const ComponentReport& dram = component(g, "dram");
  EXPECT_EQ(dram.units, 2);
  EXPECT_EQ(dram.bound, "perimeter");
  EXPECT_DOUBLE_EQ(dram.capacity_bytes, 2.0 * 1024 * 1024 * 1024);
  EXPECT_NEAR(dram.bandwidth_bytes_per_s, 32e9, 1);
  EXPECT_NEAR(dram.power_used_w, 0.512, 1e-9);
  EXPECT_EQ(g.device.main_memory().name, "dram");
}

// Lanes: area 5 mm2 / 0.5 = 10, perimeter 4 mm x 2 per mm = 8 -> 8 lanes,
// 4 each way at 10 Gb/s = 5 GB/s per direction.
TEST(PathfindAgeGenerate, NetworkLanesFromAreaAndPerimeter) {
  GeneratedArchitecture g = tiny("0.002976");
  const ComponentReport& net = component(g, "intra_package");
  EXPECT_EQ(net.units, 8);
  EXPECT_EQ(net.bound, "perimeter");
  ASSERT_EQ(g.device.network.size(), 1u);
  EXPECT_NEAR(g.device.network[0].bandwidth_bytes_per_s, 5e9, 1);
  EXPECT_EQ(g.device.network[0].size, 4u);
  EXPECT_NEAR(g.device.network[0].latency_s, 1e-6, 1e-15);
}

TEST(PathfindAgeGenerate, TheA100LikeNetworkChargesLatencyAsThePresetDoes) {
  // NVLink 10 us and InfiniBand 20 us once per collective (Calculon's A100
  // system, the a100-80gb preset), not per ring step: an 8-way all-reduce
  // pays 10 us, not 14 x 10 us.
  const GeneratedArchitecture g = generate_architecture(builtin_technology("n7"), builtin_template("gpu-16x16"),
                                                        builtin_budget("a100-like"));
  const DeviceSpec preset = device_preset("a100-80gb");
  ASSERT_EQ(g.device.network.size(), preset.network.size());
  for (size_t i = 0; i < preset.network.size(); ++i) {
    EXPECT_NEAR(g.device.network[i].latency_s, preset.network[i].latency_s, 1e-15) << i;
    EXPECT_NEAR(g.device.network[i].operation_latency_s, preset.network[i].operation_latency_s, 1e-15) << i;
  }
  EXPECT_NEAR(g.device.network[0].operation_latency_s, 10e-6, 1e-15);
  EXPECT_NEAR(g.device.network[1].operation_latency_s, 20e-6, 1e-15);
}

TEST(PathfindAgeGenerate, NothingToWorkWithNamesTheBudgetField) {
  EXPECT_NE(error_of("0.00001").find("power_breakdown.core"), std::string::npos) << error_of("0.00001");
  std::string budget = tiny_budget("0.1");
  budget.replace(budget.find("reg: 0.1\n"), 9, "reg: 0.001\n");
  try {
    (void)generate_architecture(parse_technology_yaml(kTinyTech, "t"), parse_template_yaml(kTinyTemplate, "a"),
                                parse_budget_yaml(budget, "b"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("area_breakdown.reg"), std::string::npos) << e.what();
  }
}

TEST(PathfindAgeGenerate, BudgetComponentsMustExistInTheTemplate) {
  std::string budget = tiny_budget("0.1");
  budget.replace(budget.find("  reg: 0.01\n"), 12, "  regs: 0.01\n");
  try {
    (void)generate_architecture(parse_technology_yaml(kTinyTech, "t"), parse_template_yaml(kTinyTemplate, "a"),
                                parse_budget_yaml(budget, "b"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("power_breakdown.regs"), std::string::npos) << e.what();
  }
}

// The built-in library, template and budget regenerate the A100's
// published organisation, and the generated device predicts GEMMs like the
// a100-80gb preset does.
TEST(PathfindAgeGenerate, BuiltinA100LikeRegeneratesTheA100) {
  GeneratedArchitecture g =
      generate_architecture(builtin_technology("n7"), builtin_template("gpu-16x16"), builtin_budget("a100-like"));
  const DeviceSpec preset = device_preset("a100-80gb");
  EXPECT_EQ(g.device.bundles, 108u);
  EXPECT_NEAR(g.device.frequency_hz / preset.frequency_hz, 1.0, 0.005);
  EXPECT_NEAR(g.peak_flops_per_s / 312e12, 1.0, 0.005);
  EXPECT_DOUBLE_EQ(g.device.levels[2].capacity_bytes, 40.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(g.device.main_memory().capacity_bytes, 80.0 * 1024 * 1024 * 1024);
  EXPECT_NEAR(g.device.main_memory().bandwidth_bytes_per_s / preset.main_memory().bandwidth_bytes_per_s, 1.0, 0.01);
  EXPECT_NEAR(g.device.network[0].bandwidth_bytes_per_s, 300e9, 1);
  EXPECT_NEAR(g.device.network[1].bandwidth_bytes_per_s, 25e9, 1);
  EXPECT_DOUBLE_EQ(g.device.max_utilization, preset.max_utilization);
  EXPECT_DOUBLE_EQ(g.device.kernel_overhead_s, preset.kernel_overhead_s);
  for (GemmShape shape : {GemmShape{8192, 8192, 8192}, GemmShape{8192, 256, 256}, GemmShape{64, 12288, 12288}}) {
    double generated = predict_gemm(g.device, shape, DType::kFp16).time_s;
    double reference = predict_gemm(preset, shape, DType::kFp16).time_s;
    EXPECT_NEAR(generated / reference, 1.0, 0.05) << shape.m << "x" << shape.n << "x" << shape.k;
  }
}

}  // namespace
}  // namespace snr::pathfind::age

namespace snr::pathfind::age {
namespace {

// The NPU template and budget regenerate the tpu-v4-like preset.
TEST(PathfindAgeGenerate, BuiltinNpuV4LikeRegeneratesTheNpuPreset) {
  GeneratedArchitecture g =
      generate_architecture(builtin_technology("n7"), builtin_template("npu-128x128"), builtin_budget("npu-v4-like"));
  const DeviceSpec preset = device_preset("tpu-v4-like");
  EXPECT_EQ(g.device.mcu_count(), preset.mcu_count());
  EXPECT_NEAR(g.device.frequency_hz / preset.frequency_hz, 1.0, 0.005);
  EXPECT_DOUBLE_EQ(g.device.levels[1].capacity_bytes, preset.levels[1].capacity_bytes);
  EXPECT_NEAR(g.device.levels[1].bandwidth_bytes_per_s / preset.levels[1].bandwidth_bytes_per_s, 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(g.device.main_memory().capacity_bytes, preset.main_memory().capacity_bytes);
  EXPECT_NEAR(g.device.main_memory().bandwidth_bytes_per_s / preset.main_memory().bandwidth_bytes_per_s, 1.0, 0.03);
  EXPECT_NEAR(g.device.network[0].bandwidth_bytes_per_s, preset.network[0].bandwidth_bytes_per_s, 1);
  for (GemmShape shape : {GemmShape{8192, 8192, 8192}, GemmShape{16, 4096, 4096}, GemmShape{2048, 1024, 4096}}) {
    double generated = predict_gemm(g.device, shape, DType::kBf16).time_s;
    double reference = predict_gemm(preset, shape, DType::kBf16).time_s;
    EXPECT_NEAR(generated / reference, 1.0, 0.05) << shape.m << "x" << shape.n << "x" << shape.k;
  }
}

}  // namespace
}  // namespace snr::pathfind::age
