// Voltage-frequency-power scaling of a circuit (seed 004 §4.4.1, §4.4.3,
// §4.4.4): the AGE runs every power-limited component — MCUs, main-memory
// links, network links — at the voltage that spends its power budget,
// within the technology's [minimum, maximum] voltage.
//
// The model is the alpha-power law with alpha = 2 (velocity-saturated
// short-channel devices): frequency ~ (V - Vth)^2 / V, and dynamic energy
// per operation ~ V^2, so power at a voltage relative to nominal is
//   s(V) = (V/Vn)^2 * f(V)/f(Vn) = V (V - Vth)^2 / (Vn (Vn - Vth)^2),
// strictly increasing above the threshold, so one voltage spends a budget.
#pragma once

#include <string>
#include <string_view>

namespace snr::pathfind::age {

struct VoltageRange {
  double nominal_v = 0;
  double threshold_v = 0;
  double min_v = 0;
  double max_v = 0;
  double nominal_hz = 0;
  // Throws naming `where` unless threshold < min <= nominal <= max and nominal_hz > 0.
  void validate(std::string_view where) const;
};

// Frequency at voltage `v` (>= threshold), equation of the alpha-power law.
double frequency_at_hz(const VoltageRange& range, double v);
// Power at `v` over power at nominal voltage and frequency, same activity.
double power_ratio_at(const VoltageRange& range, double v);

enum class VoltageClamp {
  kNone,        // the budget is spent exactly at a voltage inside the range
  kMaxVoltage,  // the budget would allow more than the maximum voltage
  kMinVoltage,  // even the minimum voltage exceeds the budget
};
std::string_view voltage_clamp_name(VoltageClamp clamp);

struct OperatingPoint {
  double voltage_v = 0;
  double frequency_hz = 0;
  double power_w = 0;  // at this point, for the units it was asked for
  VoltageClamp clamp = VoltageClamp::kNone;
};

// The voltage at which `units` units, each drawing `unit_nominal_power_w`
// at nominal voltage and frequency, draw `budget_w`, clamped to the range.
// Deterministic bisection to 1e-12 relative; no allocation.
OperatingPoint operating_point(const VoltageRange& range, double unit_nominal_power_w, double units,
                               double budget_w);

}  // namespace snr::pathfind::age
