// Vector and matrix results against a double-precision reference on fresh
// random inputs. The seed comes from std::random_device and is printed on
// failure (SCOPED_TRACE) so a failing case can be replayed.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "isa/address_map.h"
#include "sim/npu_math.h"
#include "asm/program_builder.h"
#include "sim/elf_loader.h"
#include "sim/timing.h"

namespace snr::sim {

using assembler::ProgramBuilder;
namespace {

using Op = isa::Opcode;
constexpr double kF32Epsilon = 1.0 / (1 << 23);  // 2^-23, one ulp at 1.0
constexpr uint64_t kRegionBytes = isa::kVectorRegisterBytes;

struct Fixture {
  explicit Fixture(uint32_t seed) : rng(seed), system(hw::preset("tpu-v4-like")) {}
  std::vector<float> random_floats(size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> out(n);
    for (float& f : out) f = dist(rng);
    return out;
  }
  void put(uint64_t vmem_offset, const void* data, size_t bytes) {
    system.chip(0).vmem.write(vmem_offset, std::span<const uint8_t>(static_cast<const uint8_t*>(data), bytes));
  }
  std::vector<float> get(uint64_t vmem_offset, size_t count) {
    std::vector<float> out(count);
    system.chip(0).vmem.read(vmem_offset, std::span<uint8_t>(reinterpret_cast<uint8_t*>(out.data()), count * 4));
    return out;
  }
  std::mt19937 rng;
  System system;
};

uint32_t fresh_seed() { return std::random_device{}(); }

TEST(AcceleratorNumerics, VectorOpsMatchDoubleReference) {
  const uint32_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  Fixture f(seed);
  auto a = f.random_floats(kVectorElements, -8.0f, 8.0f);
  auto b = f.random_floats(kVectorElements, -8.0f, 8.0f);
  auto c = f.random_floats(kVectorElements, -8.0f, 8.0f);
  auto p = f.random_floats(kVectorElements, 0.01f, 100.0f);
  f.put(0 * kRegionBytes, a.data(), kRegionBytes);
  f.put(1 * kRegionBytes, b.data(), kRegionBytes);
  f.put(2 * kRegionBytes, c.data(), kRegionBytes);
  f.put(3 * kRegionBytes, p.data(), kRegionBytes);

  ProgramBuilder prog;
  prog.li(5, static_cast<int64_t>(isa::kVmemBase));
  for (uint8_t r = 0; r < 4; ++r) {
    prog.li(6, static_cast<int64_t>(isa::kVmemBase + r * kRegionBytes));
    prog.vld(static_cast<uint8_t>(1 + r), 6, 0);
  }
  // v1=a v2=b v3=c v4=p
  prog.vector(Op::kVaddF32, 10, 1, 2);
  prog.vector(Op::kVmulF32, 11, 1, 2);
  prog.vector(Op::kVfmaF32, 12, 1, 2, 3);
  prog.vector(Op::kVexpF32, 13, 1);
  prog.vector(Op::kVrsqrtF32, 14, 4);
  prog.vector(Op::kVrcpF32, 15, 4);
  prog.vector(Op::kVredsumLaneF32, 16, 1);
  prog.vector(Op::kVredsumSubF32, 17, 1);
  prog.vector(Op::kVredmaxLaneF32, 18, 1);
  prog.vector(Op::kVsubF32, 19, 1, 2);
  prog.vector(Op::kVcmpLtF32, 20, 1, 2);
  prog.vector(Op::kVsel, 21, 20, 1, 2);  // min(a, b) via compare + select
  for (uint8_t r = 10; r <= 21; ++r) {
    prog.li(6, static_cast<int64_t>(isa::kVmemBase + (r + 10) * kRegionBytes));
    prog.vst(r, 6, 0);
  }
  prog.exit(0);
  f.system.load(sim::program_from_builder(prog, "vector"));
  run_functional(f.system, 100'000);

  auto result = [&](int reg) { return f.get(static_cast<uint64_t>(reg + 10) * kRegionBytes, kVectorElements); };
  auto add = result(10), mul = result(11), fma = result(12), ex = result(13), rs = result(14), rc = result(15);
  auto lane_sum = result(16), sub_sum = result(17), lane_max = result(18), diff = result(19), sel = result(21);
  for (int i = 0; i < kVectorElements; ++i) {
    const double da = a[i], db = b[i], dc = c[i], dp = p[i];
    // Basic f32 operations are correctly rounded: within half an ulp.
    EXPECT_NEAR(add[i], da + db, 0.5 * kF32Epsilon * std::fabs(da + db) * 2 + 1e-30) << i;
    EXPECT_NEAR(mul[i], da * db, kF32Epsilon * std::fabs(da * db) + 1e-30) << i;
    EXPECT_NEAR(fma[i], da * db + dc, kF32Epsilon * std::fabs(da * db + dc) + 1e-30) << i;
    EXPECT_NEAR(diff[i], da - db, kF32Epsilon * std::fabs(da - db) + 1e-30) << i;
    // exp, rsqrt, reciprocal: within 1 ulp.
    EXPECT_NEAR(ex[i], std::exp(da), 2 * kF32Epsilon * std::exp(da)) << i;
    EXPECT_NEAR(rs[i], 1.0 / std::sqrt(dp), 2 * kF32Epsilon / std::sqrt(dp)) << i;
    EXPECT_NEAR(rc[i], 1.0 / dp, 2 * kF32Epsilon / dp) << i;
    EXPECT_EQ(sel[i], std::min(a[i], b[i])) << i;
  }
  for (int s = 0; s < isa::kSublanes; ++s) {
    double sum = 0, magnitude = 0, mx = -1e30;
    for (int l = 0; l < isa::kLanes; ++l) {
      sum += a[s * 128 + l];
      magnitude += std::fabs(a[s * 128 + l]);
      mx = std::max(mx, static_cast<double>(a[s * 128 + l]));
    }
    // A 7-level adder tree in f32: error <= 7 * 2^-24 * sum |x|.
    for (int l = 0; l < isa::kLanes; ++l) {
      EXPECT_NEAR(lane_sum[s * 128 + l], sum, 7 * 0.5 * kF32Epsilon * magnitude) << s;
      EXPECT_EQ(lane_max[s * 128 + l], static_cast<float>(mx));
    }
  }
  for (int l = 0; l < isa::kLanes; ++l) {
    double sum = 0, magnitude = 0;
    for (int s = 0; s < isa::kSublanes; ++s) {
      sum += a[s * 128 + l];
      magnitude += std::fabs(a[s * 128 + l]);
    }
    EXPECT_NEAR(sub_sum[l], sum, 3 * 0.5 * kF32Epsilon * magnitude) << l;
  }
}

TEST(AcceleratorNumerics, MatrixUnitMatchesDoubleReference) {
  const uint32_t seed = fresh_seed();
  SCOPED_TRACE(::testing::Message() << "seed " << seed);
  Fixture f(seed);
  auto lhs = f.random_floats(kVectorElements, -2.0f, 2.0f);
  auto w = f.random_floats(128 * 128, -2.0f, 2.0f);
  std::vector<uint16_t> w_bf16(w.size());
  for (size_t i = 0; i < w.size(); ++i) w_bf16[i] = bf16_from_f32(w[i]);
  f.put(0, lhs.data(), kRegionBytes);
  f.put(0x10000, w_bf16.data(), w_bf16.size() * 2);

  ProgramBuilder prog;
  prog.li(5, static_cast<int64_t>(isa::kVmemBase));
  prog.li(6, static_cast<int64_t>(isa::kVmemBase + 0x10000));
  prog.li(7, static_cast<int64_t>(isa::kVmemBase + 0x20000));
  prog.vld(1, 5, 0);
  prog.mxu_ldw(0, 6, 0);
  prog.mxu_mul(0, 1);
  prog.mxu_mul(0, 1);  // accumulates: result = 2 x product
  prog.mxu_pop(2, 0);
  prog.vst(2, 7, 0);
  prog.mxu_pop(3, 0);  // cleared by the first pop
  prog.li(7, static_cast<int64_t>(isa::kVmemBase + 0x30000));
  prog.vst(3, 7, 0);
  prog.exit(0);
  f.system.load(sim::program_from_builder(prog, "matrix"));
  TimingSimulator(f.system).run(100'000);
  auto out = f.get(0x20000, kVectorElements);
  auto cleared = f.get(0x30000, kVectorElements);
  for (int r = 0; r < 8; ++r) {
    for (int n = 0; n < 128; ++n) {
      double exact_bf16 = 0, exact_f32_inputs = 0, magnitude = 0;
      for (int k = 0; k < 128; ++k) {
        const double left = f32_from_bf16(bf16_from_f32(lhs[r * 128 + k]));
        const double right = f32_from_bf16(w_bf16[k * 128 + n]);
        exact_bf16 += left * right;
        exact_f32_inputs += static_cast<double>(lhs[r * 128 + k]) * w[k * 128 + n];
        magnitude += std::fabs(left * right);
      }
      // f32 accumulation of 128 exact products, twice: <= 129 * 2^-24 * sum |terms| each.
      EXPECT_NEAR(out[r * 128 + n], 2 * exact_bf16, 2 * 129 * 0.5 * kF32Epsilon * magnitude) << r << "," << n;
      // Against unrounded inputs: bf16 keeps 8 bits, so <= 2 * 2^-9 relative per term.
      EXPECT_NEAR(out[r * 128 + n], 2 * exact_f32_inputs, 2 * (2.0 / 512 + 1e-5) * magnitude * 1.01) << r << "," << n;
      EXPECT_EQ(cleared[r * 128 + n], 0.0f);
    }
  }
}

TEST(AcceleratorNumerics, Bf16RoundsToNearestEven) {
  EXPECT_EQ(bf16_from_f32(f32_from_bits(0x3f808000u)), 0x3f80);  // tie, even stays
  EXPECT_EQ(bf16_from_f32(f32_from_bits(0x3f818000u)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(bf16_from_f32(f32_from_bits(0x3f808001u)), 0x3f81);  // above half
  EXPECT_EQ(bf16_from_f32(f32_from_bits(0x7f7fffffu)), 0x7f80);  // overflows to inf
  EXPECT_EQ(bf16_from_f32(f32_from_bits(0x7fc00001u)) & 0x7fc0, 0x7fc0);  // NaN stays NaN
  EXPECT_EQ(bf16_from_f32(-0.0f), 0x8000);
}

TEST(AcceleratorNumerics, ExpIsBitReproducibleAndAccurate) {
  // Fixed values whose bits are part of the contract: any change here is a
  // change of the numerics every recorded snapshot depends on.
  EXPECT_EQ(bits_from_f32(exp_f32(0.0f)), 0x3f800000u);
  EXPECT_EQ(bits_from_f32(exp_f32(1.0f)), bits_from_f32(2.71828182845904523536f));
  EXPECT_EQ(exp_f32(-200.0f), 0.0f);
  EXPECT_TRUE(std::isinf(exp_f32(100.0f)));
  EXPECT_TRUE(std::isnan(exp_f32(std::nanf(""))));
  for (float x = -80.0f; x < 80.0f; x += 0.37f) {
    EXPECT_NEAR(exp_f32(x), std::exp(static_cast<double>(x)), std::exp(static_cast<double>(x)) * kF32Epsilon) << x;
  }
}

}  // namespace
}  // namespace snr::sim
