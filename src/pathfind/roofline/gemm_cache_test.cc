#include "pathfind/roofline/gemm_cache.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

namespace snr::pathfind {
namespace {

// Each test asks for its own shape: caches another test left on this
// thread must not answer it.
std::unique_ptr<DeviceSpec> device(std::string name) {
  auto d = std::make_unique<DeviceSpec>(device_preset("a100-80gb"));
  d->name = std::move(name);
  return d;
}

void expect_same(const GemmPrediction& a, const GemmPrediction& b) {
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.compute_s, b.compute_s);
  EXPECT_EQ(a.bound, b.bound);
  ASSERT_EQ(a.level_count, b.level_count);
  for (size_t i = 0; i < a.level_count; ++i) {
    EXPECT_EQ(a.levels[i].name, b.levels[i].name);
    EXPECT_EQ(a.levels[i].accessed_bytes, b.levels[i].accessed_bytes);
    EXPECT_EQ(a.levels[i].time_s, b.levels[i].time_s);
  }
}

TEST(GemmCache, AnswersWhatPredictGemmAnswers) {
  const GemmShape kShape{4096, 4096, 1024};
  auto d = device("cache-answers");
  GemmCache cache(*d, DType::kBf16);
  const GemmPrediction& first = cache.get(kShape);
  expect_same(first, predict_gemm(*d, kShape, DType::kBf16));
  EXPECT_EQ(&cache.get(kShape), &first);  // asked twice, predicted once
  EXPECT_EQ(cache.reused(), 0u);
}

// A design search's neighbour that differs only in network (and name) gets
// the first device's predictions, with names pointing into its own levels,
// valid after the first device is gone.
TEST(GemmCache, ReusesPredictionsOfADeviceThatDiffersOnlyInNetwork) {
  const GemmShape kShape{4096, 2048, 4096};
  auto first = device("cache-network-a");
  {
    GemmCache cache(*first, DType::kBf16);
    cache.get(kShape);
  }
  auto second = device("cache-network-b");
  ASSERT_FALSE(second->network.empty());
  second->network.front().bandwidth_bytes_per_s *= 3;
  const GemmPrediction expected = predict_gemm(*second, kShape, DType::kBf16);
  first.reset();

  GemmCache cache(*second, DType::kBf16);
  const GemmPrediction& got = cache.get(kShape);
  EXPECT_EQ(cache.reused(), 1u);
  expect_same(got, expected);
  for (size_t i = 0; i < got.level_count; ++i) EXPECT_EQ(got.levels[i].name.data(), second->levels[i].name.data());
  if (got.bound != "compute") {
    bool points_into_second = false;
    for (const MemoryLevel& level : second->levels) points_into_second |= got.bound.data() == level.name.data();
    EXPECT_TRUE(points_into_second);
  }
}

// Every field the GEMM model reads keeps devices apart.
TEST(GemmCache, AnyFieldTheModelReadsIsADifferentDevice) {
  const std::vector<std::function<void(DeviceSpec&)>> changes = {
      [](DeviceSpec& d) { d.mcu_rows *= 2; },
      [](DeviceSpec& d) { d.mcu_cols *= 2; },
      [](DeviceSpec& d) { d.mcus_per_bundle += 1; },
      [](DeviceSpec& d) { d.bundles += 1; },
      [](DeviceSpec& d) { d.frequency_hz *= 1.1; },
      [](DeviceSpec& d) { d.fp32_rate_ratio += 0.25; },
      [](DeviceSpec& d) { d.supports_bf16 = !d.supports_bf16; },
      [](DeviceSpec& d) { d.vector_flops_per_s *= 2; },
      [](DeviceSpec& d) { d.dataflow = Dataflow::kWeightStationary; },
      [](DeviceSpec& d) { d.max_utilization *= 0.9; },
      [](DeviceSpec& d) { d.kernel_overhead_s += 1e-6; },
      [](DeviceSpec& d) { d.levels.back().name += "'"; },
      [](DeviceSpec& d) { d.levels.back().scope = Scope::kBundle; },
      [](DeviceSpec& d) { d.levels.back().capacity_bytes *= 2; },
      [](DeviceSpec& d) { d.levels.back().bandwidth_bytes_per_s *= 2; },
      [](DeviceSpec& d) { d.levels.back().efficiency *= 0.5; },
      [](DeviceSpec& d) { d.levels.back().partial_sums = !d.levels.back().partial_sums; },
      [](DeviceSpec& d) { d.levels.pop_back(); },
  };
  const auto base = device("cache-fields");
  for (size_t i = 0; i < changes.size(); ++i) {
    DeviceSpec changed = *base;
    changes[i](changed);
    EXPECT_FALSE(same_gemm_device(*base, changed)) << "change " << i;
  }
  DeviceSpec network_only = *base;
  network_only.name = "other";
  network_only.network.clear();
  EXPECT_TRUE(same_gemm_device(*base, network_only));
}

TEST(GemmCache, DataTypesAreKeptApart) {
  const GemmShape kShape{2048, 4096, 4096};
  auto d = device("cache-dtype");
  GemmCache bf16(*d, DType::kBf16);
  bf16.get(kShape);
  GemmCache fp32(*d, DType::kFp32);
  expect_same(fp32.get(kShape), predict_gemm(*d, kShape, DType::kFp32));
  EXPECT_EQ(fp32.reused(), 0u);
}

}  // namespace
}  // namespace snr::pathfind
