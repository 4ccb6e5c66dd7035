#include "pathfind/inputs/device_writer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace snr::pathfind {
namespace {

void expect_same(const DeviceSpec& a, const DeviceSpec& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.mcu_rows, b.mcu_rows);
  EXPECT_EQ(a.mcu_cols, b.mcu_cols);
  EXPECT_EQ(a.mcus_per_bundle, b.mcus_per_bundle);
  EXPECT_EQ(a.bundles, b.bundles);
  EXPECT_DOUBLE_EQ(a.frequency_hz, b.frequency_hz);
  EXPECT_DOUBLE_EQ(a.fp32_rate_ratio, b.fp32_rate_ratio);
  EXPECT_EQ(a.supports_bf16, b.supports_bf16);
  EXPECT_DOUBLE_EQ(a.vector_flops_per_s, b.vector_flops_per_s);
  EXPECT_EQ(a.dataflow, b.dataflow);
  EXPECT_DOUBLE_EQ(a.max_utilization, b.max_utilization);
  EXPECT_NEAR(a.kernel_overhead_s, b.kernel_overhead_s, 1e-12);
  ASSERT_EQ(a.levels.size(), b.levels.size());
  for (size_t i = 0; i < a.levels.size(); ++i) {
    EXPECT_EQ(a.levels[i].name, b.levels[i].name);
    EXPECT_EQ(a.levels[i].scope, b.levels[i].scope);
    EXPECT_DOUBLE_EQ(a.levels[i].capacity_bytes, b.levels[i].capacity_bytes);
    EXPECT_DOUBLE_EQ(a.levels[i].bandwidth_bytes_per_s, b.levels[i].bandwidth_bytes_per_s);
    EXPECT_DOUBLE_EQ(a.levels[i].efficiency, b.levels[i].efficiency);
    EXPECT_EQ(a.levels[i].partial_sums, b.levels[i].partial_sums);
  }
  ASSERT_EQ(a.network.size(), b.network.size());
  for (size_t i = 0; i < a.network.size(); ++i) {
    EXPECT_EQ(a.network[i].name, b.network[i].name);
    EXPECT_EQ(a.network[i].size, b.network[i].size);
    EXPECT_DOUBLE_EQ(a.network[i].bandwidth_bytes_per_s, b.network[i].bandwidth_bytes_per_s);
    EXPECT_NEAR(a.network[i].latency_s, b.network[i].latency_s, 1e-12);
    EXPECT_DOUBLE_EQ(a.network[i].efficiency, b.network[i].efficiency);
    EXPECT_NEAR(a.network[i].operation_latency_s, b.network[i].operation_latency_s, 1e-12);
    EXPECT_EQ(a.network[i].traffic, b.network[i].traffic);
  }
}

TEST(PathfindDeviceWriter, EveryPresetRoundTrips) {
  for (std::string_view name : device_preset_names()) {
    SCOPED_TRACE(std::string(name));
    DeviceSpec preset = device_preset(name);
    expect_same(preset, parse_device_yaml(format_device_yaml(preset), "written.yaml"));
  }
}

// The example device file is the preset written out: every field, the
// network tiers' once-per-operation latencies included, so that both
// predict the same.
TEST(PathfindDeviceWriter, ExampleYamlIsThePreset) {
  const char* src = std::getenv("SNR_SOURCE_DIR");
  ASSERT_NE(src, nullptr);
  DeviceSpec example = load_device(std::string(src) + "/examples/pathfind/a100-80gb.yaml");
  EXPECT_EQ(example.name, "a100-80gb-yaml");
  example.name = "a100-80gb";
  expect_same(device_preset("a100-80gb"), example);
}

// A tier read from Calculon's system file keeps its traffic factors and
// once-per-operation latency through a written device.yaml.
TEST(PathfindDeviceWriter, CalculonTierRoundTrips) {
  DeviceSpec d = device_preset("a100-80gb");
  d.network[0].traffic.reduce_scatter = {1.5, -1};
  d.network[0].traffic.all_gather = {1.5, -1};
  d.network[1].traffic.all_reduce = {1, 0};
  const std::string text = format_device_yaml(d);
  EXPECT_NE(text.find("operation_latency: 10000000ps, traffic: {all_reduce: {scalar: 2, offset: -1}, "
                      "reduce_scatter: {scalar: 1.5, offset: -1}"),
            std::string::npos)
      << text;
  expect_same(d, parse_device_yaml(text, "written.yaml"));
}

TEST(PathfindDeviceWriter, GoldenText) {
  DeviceSpec d = device_preset("v100");
  std::string text = format_device_yaml(d);
  EXPECT_NE(text.find("  bundles: 80\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  frequency: 1530000000Hz\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    - {name: \"hbm\", scope: global, capacity: 34359738368, bandwidth: 900000000000B/s, "
                      "efficiency: 0.9, partial_sums: true}\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace snr::pathfind
