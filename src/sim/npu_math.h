// Bit-exact numerics of the accelerator. Every result is defined by IEEE-754
// basic operations (add, mul, div, sqrt, fma are correctly rounded) plus
// fixed algorithms written here, never by the host's libm, so a program
// produces the same bits on every machine.
#pragma once

#include <bit>
#include <cstdint>

namespace snr::sim {

inline float f32_from_bits(uint32_t bits) { return std::bit_cast<float>(bits); }
inline uint32_t bits_from_f32(float value) { return std::bit_cast<uint32_t>(value); }

// f32 -> bf16 with round-to-nearest-even; NaNs stay NaN (quiet, sign kept).
inline uint16_t bf16_from_f32(float value) {
  uint32_t bits = bits_from_f32(value);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0) {
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  }
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}
inline float f32_from_bf16(uint16_t value) { return f32_from_bits(static_cast<uint32_t>(value) << 16); }

// e^x: range reduction x = k ln2 + r with |r| <= ln2/2 in double, a degree-12
// Taylor polynomial (error < 1e-16 relative), scaled by 2^k, rounded once to
// f32. Overflow gives +inf, deep underflow +0, NaN stays NaN.
float exp_f32(float x);
// 1/sqrt(x) = correctly rounded double sqrt and divide, rounded to f32.
float rsqrt_f32(float x);
// 1/x, correctly rounded f32 division.
inline float reciprocal_f32(float x) { return 1.0f / x; }

// The sum of `count` values by pairwise halving (element i added to
// i + count/2 until one remains), the order an adder tree would use; count
// must be a power of two.
float tree_sum_f32(const float* values, int count);
float tree_max_f32(const float* values, int count);

// max/min treating NaN like the hardware: a NaN operand gives NaN.
inline float max_f32(float a, float b) {
  if (a != a || b != b) return a + b;
  return a > b ? a : b;
}
inline float min_f32(float a, float b) {
  if (a != a || b != b) return a + b;
  return a < b ? a : b;
}

}  // namespace snr::sim
