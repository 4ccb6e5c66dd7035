#include "pathfind/emit/npu_config.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/error_of.h"
#include "pathfind/age/generate.h"

namespace snr::pathfind {
namespace {

using snr::testing::error_of;

// The NPU the generator designs from the built-ins is the tpu-v4-like
// hardware preset again, key by key where the generator decides.
TEST(PathfindNpuConfig, GeneratedNpuIsTheHardwarePreset) {
  age::GeneratedArchitecture g = age::generate_architecture(
      age::builtin_technology("n7"), age::builtin_template("npu-128x128"), age::builtin_budget("npu-v4-like"));
  hw::HwConfig c = npu_config(g.device, 4);
  hw::HwConfig preset = hw::preset("tpu-v4-like");
  EXPECT_EQ(c.chip_count, 4u);
  EXPECT_EQ(c.mxu_count, preset.mxu_count);
  EXPECT_NEAR(c.clock.hertz / preset.clock.hertz, 1.0, 0.005);
  EXPECT_EQ(c.vmem_bytes(), preset.vmem_bytes());
  EXPECT_NEAR(c.vmem_bandwidth.bytes_per_second / preset.vmem_bandwidth.bytes_per_second, 1.0, 1e-9);
  EXPECT_EQ(c.hbm_bytes.count, preset.hbm_bytes.count);
  EXPECT_NEAR(c.hbm_bandwidth.bytes_per_second / preset.hbm_bandwidth.bytes_per_second, 1.0, 0.03);
  EXPECT_NEAR(c.ici_link_bandwidth.bytes_per_second, preset.ici_link_bandwidth.bytes_per_second, 1);
  EXPECT_EQ(c.ici_hop_latency.picoseconds, preset.ici_hop_latency.picoseconds);
  // The text form reads back (what `snr compile --set hardware=` loads).
  const std::string yaml = c.to_yaml();
  hw::HwConfig back = hw::parse_config_yaml("preset: tpu-v4-like\n" + yaml, "npu.yaml");
  EXPECT_EQ(back.mxu_count, c.mxu_count);
  // The generated clock, in GHz rather than 1050760900.9707525Hz, and still exact.
  const size_t clock = yaml.find("clock: ");
  ASSERT_NE(clock, std::string::npos);
  EXPECT_EQ(yaml.substr(clock, yaml.find('\n', clock) - clock), "clock: 1.0507609009707525GHz");
  EXPECT_EQ(back.clock.hertz, c.clock.hertz);
  EXPECT_EQ(back.hbm_bytes.count, c.hbm_bytes.count);
}

TEST(PathfindNpuConfig, OnlyAnNpuBecomesAnNpuConfig) {
  EXPECT_NE(error_of([] { (void)npu_config(device_preset("a100-80gb"), 4); }).find("128x128"), std::string::npos);
  age::GeneratedArchitecture g = age::generate_architecture(
      age::builtin_technology("n7"), age::builtin_template("npu-128x128"), age::builtin_budget("npu-v4-like"));
  EXPECT_NE(error_of([&] { (void)npu_config(g.device, 300); }).find("chips"), std::string::npos);
}

}  // namespace
}  // namespace snr::pathfind
