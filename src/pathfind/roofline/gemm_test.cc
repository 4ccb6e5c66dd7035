#include "pathfind/roofline/gemm.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace snr::pathfind {
namespace {

// 4x4 MCU at 1 GHz (32 Gflop/s), 256 B of registers at 100 GB/s, DRAM at 10 GB/s.
DeviceSpec toy() {
  DeviceSpec d;
  d.name = "toy";
  d.mcu_rows = 4;
  d.mcu_cols = 4;
  d.frequency_hz = 1e9;
  d.vector_flops_per_s = 1e12;
  d.levels = {{"reg", Scope::kMcu, 256, 100e9, 1.0, true}, {"dram", Scope::kGlobal, 1e9, 10e9, 1.0, true}};
  d.validate();
  return d;
}

TEST(PathfindGemm, TileTrafficByHand) {
  GemmShape s{8, 8, 8};
  // k innermost ("mnk"): A 64 x 2 column tiles, B 64 x 2 row tiles, C once: (128 + 128) * 2 + 64 * 2
  EXPECT_DOUBLE_EQ(tile_traffic_bytes(s, {4, 4, 4}, 0, 2, 2), 640);
  // n innermost ("mkn"), tile 8x4x4: A once (64), B once (mt = 1), C 64 written + 2 partial passes of 32-bit
  EXPECT_DOUBLE_EQ(tile_traffic_bytes(s, {8, 4, 4}, 1, 2, 2), (64 + 64) * 2 + 64 * 2 + 64 * 2 * 4);
  // m innermost ("nkm"), tile 4x8x8: A x nt = 1, B once, kt = 1 so no partials
  EXPECT_DOUBLE_EQ(tile_traffic_bytes(s, {4, 8, 8}, 3, 2, 2), (64 + 64) * 2 + 64 * 2);
}

// Enumeration on a small case: 8x8x8 on the toy device. Candidate dims are
// {4, 8} each; with 2-byte inputs and 4-byte accumulators only 4x4x4,
// 8x4x4, 4x8x4 and 4x4x8 fit 256 B, each with 6 loop orders.
TEST(PathfindGemm, SmallCaseEnumerationAndChoice) {
  const DeviceSpec device = toy();  // the prediction's names are views of it
  GemmPrediction p = predict_gemm(device, {8, 8, 8}, DType::kFp16);
  EXPECT_EQ(p.tilings_enumerated, 24u);
  // Best DRAM traffic is 512 B (8x4x4 or 4x8x4, k innermost) = 51.2 ns at
  // 10 GB/s; compute is 1024 flop / 32 Gflop/s = 32 ns. Ties go to the
  // larger m, so 8x4x4 with weight-stationary (K = 8/4 = 2: 0.5 accesses per
  // flop = 512 elements = 1024 B of register traffic, 10.24 ns).
  EXPECT_EQ(p.levels[0].tile.m, 8u);
  EXPECT_EQ(p.levels[0].tile.n, 4u);
  EXPECT_EQ(p.levels[0].tile.k, 4u);
  EXPECT_EQ(kLoopOrderNames[p.levels[0].loop_order], "mnk");
  EXPECT_EQ(p.dataflow, Dataflow::kWeightStationary);
  EXPECT_DOUBLE_EQ(p.levels[1].accessed_bytes, 512);
  EXPECT_DOUBLE_EQ(p.levels[0].accessed_bytes, 1024);
  EXPECT_NEAR(p.compute_s, 32e-9, 1e-15);
  EXPECT_NEAR(p.time_s, 51.2e-9, 1e-15);
  EXPECT_EQ(p.bound, "dram");
}

TEST(PathfindGemm, PartialWavesCostTime) {
  DeviceSpec d = device_preset("a100-80gb");
  d.kernel_overhead_s = 0;
  // 108 bundles: a problem of exactly 108 output tiles vs one tile more.
  GemmPrediction even = predict_gemm(d, {8192, 8192, 8192}, DType::kFp16);
  EXPECT_EQ(even.bound, "compute");
  EXPECT_NEAR(even.parallel_efficiency, 1.0, 0.02);
  EXPECT_NEAR(even.time_s, even.flops / (d.peak_flops_per_s(DType::kFp16) * d.max_utilization),
              even.time_s * 0.02);
  GemmPrediction small = predict_gemm(d, {64, 64, 8192}, DType::kFp16);
  EXPECT_LT(small.parallel_efficiency, 0.1);  // one tile cannot fill 432 MCUs
}

TEST(PathfindGemm, DeterministicAndOrderedByCost) {
  DeviceSpec d = device_preset("h100-sxm");
  GemmPrediction a = predict_gemm(d, {4096, 1000, 777}, DType::kBf16);
  GemmPrediction b = predict_gemm(d, {4096, 1000, 777}, DType::kBf16);
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.levels[1].tile.m, b.levels[1].tile.m);
  // A GEMM with twice the work never takes less time.
  EXPECT_GE(predict_gemm(d, {8192, 1000, 777}, DType::kBf16).time_s, a.time_s);
  // fp32 is slower than bf16 on the same shape.
  EXPECT_GT(predict_gemm(d, {4096, 4096, 4096}, DType::kFp32).time_s,
            predict_gemm(d, {4096, 4096, 4096}, DType::kBf16).time_s);
}

TEST(PathfindGemm, RejectsBadShapes) {
  const DeviceSpec device = toy(), tpu = device_preset("tpu-v4-like");
  EXPECT_THROW((void)predict_gemm(device, {0, 8, 8}, DType::kFp16), Error);
  EXPECT_THROW((void)predict_gemm(device, {8, 8, 1ull << 41}, DType::kFp16), Error);
  EXPECT_THROW((void)predict_gemm(tpu, {8, 8, 8}, DType::kFp32), Error);
}

// Every dimension within 2^40, but an operand of 2^80 elements: the tile
// counts wrapped, and the A100 was predicted to finish 2^121 flops at
// 4.3e21 s with a compute time of 0 (the peak alone needs 9.5e21 s).
TEST(PathfindGemm, RejectsOperandsBeyondSixtyFourBitCounts) {
  const DeviceSpec d = device_preset("a100-80gb");
  const uint64_t big = uint64_t{1} << 40;
  EXPECT_THROW((void)predict_gemm(d, {big, big, big}, DType::kFp16), Error);
  EXPECT_THROW((void)predict_gemm(d, {big, uint64_t{1} << 20, 16}, DType::kFp16), Error);
  EXPECT_THROW((void)predict_gemm(d, {16, big, uint64_t{1} << 20}, DType::kFp16), Error);
  // Just inside the bound the prediction is at least the peak's time.
  const GemmPrediction p = predict_gemm(d, {big, (uint64_t{1} << 20) - 1, 16}, DType::kFp16);
  EXPECT_GT(p.compute_s, 0);
  EXPECT_GE(p.time_s, p.flops / d.peak_flops_per_s(DType::kFp16));
}

TEST(PathfindGemm, EveryPresetPredicts) {
  for (auto name : device_preset_names()) {
    DeviceSpec d = device_preset(name);
    GemmPrediction p = predict_gemm(d, {2048, 2048, 2048}, d.supports_bf16 ? DType::kBf16 : DType::kFp16);
    EXPECT_GT(p.time_s, p.flops / d.peak_flops_per_s(DType::kFp16)) << name;
    EXPECT_LT(p.time_s, 1.0) << name;
  }
}

}  // namespace
}  // namespace snr::pathfind
