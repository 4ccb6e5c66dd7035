#include "pathfind/inputs/device.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "common/file_io.h"

namespace snr::pathfind {
namespace {

TEST(PathfindDevice, PresetPeaksMatchPublicFigures) {
  // Dense 16-bit matrix peaks from the vendors' data sheets.
  EXPECT_NEAR(device_preset("a100-80gb").peak_flops_per_s(DType::kBf16) / 1e12, 312, 0.5);
  EXPECT_NEAR(device_preset("v100").peak_flops_per_s(DType::kFp16) / 1e12, 125.3, 0.5);
  EXPECT_NEAR(device_preset("h100-sxm").peak_flops_per_s(DType::kBf16) / 1e12, 989.4, 1.0);
  EXPECT_NEAR(device_preset("tpu-v4-like").peak_flops_per_s(DType::kBf16) / 1e12, 275.3, 0.5);
  EXPECT_NEAR(device_preset("tpu-v5e-like").peak_flops_per_s(DType::kBf16) / 1e12, 196.6, 0.5);
  EXPECT_NEAR(device_preset("a100-80gb").peak_flops_per_s(DType::kFp32) / 1e12, 19.5, 0.1);
  EXPECT_THROW((void)device_preset("v100").peak_flops_per_s(DType::kBf16), Error);
  EXPECT_THROW((void)device_preset("tpu-v4-like").peak_flops_per_s(DType::kFp32), Error);
  EXPECT_THROW((void)device_preset("b200"), Error);
}

TEST(PathfindDevice, NpuPresetsFollowTheHardwareLayer) {
  DeviceSpec v5e = device_preset("tpu-v5e-like");
  EXPECT_EQ(v5e.mcu_count(), 4u);
  EXPECT_DOUBLE_EQ(v5e.main_memory().bandwidth_bytes_per_s, 819e9);
  EXPECT_DOUBLE_EQ(v5e.main_memory().capacity_bytes, 16.0 * 1024 * 1024 * 1024);
}

std::string error_of(std::string_view yaml) {
  try {
    (void)parse_device_yaml(yaml, "d.yaml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

constexpr std::string_view kMinimal = R"(device:
  name: toy
  mcu: {rows: 4, cols: 4, per_bundle: 1}
  bundles: 1
  frequency: 1GHz
  vector_rate: 1TFLOP/s
  memory:
    - {name: reg, scope: mcu, capacity: 1KiB, bandwidth: 100GB/s}
    - {name: dram, scope: global, capacity: 1GiB, bandwidth: 10GB/s}
)";

TEST(PathfindDevice, YamlErrorsNameTheField) {
  EXPECT_EQ(error_of(kMinimal), "");
  std::string s(kMinimal);
  EXPECT_NE(error_of(s + "  colour: red\n").find("device.colour: unknown key"), std::string::npos);
  std::string bad_freq = s;
  bad_freq.replace(bad_freq.find("1GHz"), 4, "1GW");
  EXPECT_NE(error_of(bad_freq).find("d.yaml:5: device.frequency"), std::string::npos) << error_of(bad_freq);
  std::string bad_scope = s;
  bad_scope.replace(bad_scope.find("scope: mcu"), 10, "scope: global");
  EXPECT_NE(error_of(bad_scope).find("memory[0].scope"), std::string::npos) << error_of(bad_scope);
  std::string bad_util = s;
  bad_util.replace(bad_util.find("per_bundle: 1}"), 14, "per_bundle: 1, max_utilization: 1.2}");
  EXPECT_NE(error_of(bad_util).find("device.mcu.max_utilization"), std::string::npos) << error_of(bad_util);
  // Results name levels and tiers by name ("memory:reg", "kernel_row:ib"):
  // two of one name would be reported as one.
  std::string same_level = s;
  same_level.replace(same_level.find("name: dram"), 10, "name: reg");
  EXPECT_NE(error_of(same_level).find("memory[1] (reg): the name is memory[0]'s too"), std::string::npos)
      << error_of(same_level);
  const std::string tiers = s + "  network:\n    - {name: ib, size: 8, bandwidth: 25GB/s}\n"
                                "    - {name: ib, size: 64, bandwidth: 25GB/s}\n";
  EXPECT_NE(error_of(tiers).find("network[1] (ib): the name is network[0]'s too"), std::string::npos)
      << error_of(tiers);
}

// bf16 used to be false for anything but "true" ("yes", "True", "1").
TEST(PathfindDevice, BooleansAreTrueOrFalse) {
  const std::string s(kMinimal);
  EXPECT_FALSE(parse_device_yaml(s + "  bf16: false\n", "d.yaml").supports_bf16);
  EXPECT_TRUE(parse_device_yaml(s + "  bf16: true\n", "d.yaml").supports_bf16);
  EXPECT_TRUE(parse_device_yaml(s, "d.yaml").supports_bf16);
  for (const std::string value : {"yes", "True", "1", "falsy", "\"\""}) {
    const std::string error = error_of(s + "  bf16: " + value + "\n");
    EXPECT_NE(error.find("d.yaml:10: device.bf16: "), std::string::npos) << value << ": " << error;
    EXPECT_NE(error.find("expected true or false"), std::string::npos) << value << ": " << error;
  }
  std::string partial = s;
  partial.replace(partial.find("bandwidth: 10GB/s}"), 18, "bandwidth: 10GB/s, partial_sums: no}");
  EXPECT_NE(error_of(partial).find("d.yaml:9: device.memory[1].partial_sums: 'no' is not a boolean"),
            std::string::npos)
      << error_of(partial);
}

}  // namespace
}  // namespace snr::pathfind
