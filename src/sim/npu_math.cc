#include "sim/npu_math.h"

#include <cmath>
#include <limits>

namespace snr::sim {

float exp_f32(float x) {
  if (x != x) return x;
  if (x > 88.8f) return std::numeric_limits<float>::infinity();
  if (x < -104.0f) return 0.0f;
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 0.6931471803691238;     // high bits of ln 2
  constexpr double kLn2Lo = 1.9082149292705877e-10;  // ln 2 - kLn2Hi
  const double xd = x;
  const double k = std::nearbyint(xd * kLog2e);
  const double r = (xd - k * kLn2Hi) - k * kLn2Lo;
  // Horner form of sum r^n/n!, n = 0..12.
  double p = 1.0 / 479001600.0;
  constexpr double kInvFactorial[12] = {1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
                                        1.0 / 5040.0,     1.0 / 720.0,     1.0 / 120.0,    1.0 / 24.0,
                                        1.0 / 6.0,        0.5,             1.0,            1.0};
  for (double c : kInvFactorial) p = p * r + c;
  return static_cast<float>(std::ldexp(p, static_cast<int>(k)));
}

float rsqrt_f32(float x) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(x))); }

float tree_sum_f32(const float* values, int count) {
  float scratch[1024];
  for (int i = 0; i < count; ++i) scratch[i] = values[i];
  for (int width = count / 2; width >= 1; width /= 2) {
    for (int i = 0; i < width; ++i) scratch[i] = scratch[i] + scratch[i + width];
  }
  return scratch[0];
}

float tree_max_f32(const float* values, int count) {
  float scratch[1024];
  for (int i = 0; i < count; ++i) scratch[i] = values[i];
  for (int width = count / 2; width >= 1; width /= 2) {
    for (int i = 0; i < width; ++i) scratch[i] = max_f32(scratch[i], scratch[i + width]);
  }
  return scratch[0];
}

}  // namespace snr::sim
