#include "pathfind/age/voltage_frequency.h"

#include <fmt/format.h>

#include <cmath>

#include "common/error.h"

namespace snr::pathfind::age {

void VoltageRange::validate(std::string_view where) const {
  auto fail = [&](std::string_view why) { throw Error(fmt::format("{}: {}", where, why)); };
  if (!(std::isfinite(nominal_v) && std::isfinite(threshold_v) && std::isfinite(min_v) && std::isfinite(max_v))) {
    fail("voltages must be finite");
  }
  if (!(threshold_v >= 0)) fail(fmt::format("threshold_voltage {} V must be non-negative", threshold_v));
  if (!(min_v > threshold_v)) {
    fail(fmt::format("min_voltage {} V must be above threshold_voltage {} V (no switching at or below it)", min_v,
                     threshold_v));
  }
  if (!(nominal_v >= min_v && nominal_v <= max_v)) {
    fail(fmt::format("nominal_voltage {} V must lie in [min_voltage {} V, max_voltage {} V]", nominal_v, min_v, max_v));
  }
  if (!(nominal_hz > 0 && std::isfinite(nominal_hz))) fail("nominal_frequency must be positive");
}

namespace {
double speed(const VoltageRange& r, double v) {
  double overdrive = v - r.threshold_v;
  return overdrive * overdrive / v;
}
}  // namespace

double frequency_at_hz(const VoltageRange& range, double v) {
  return range.nominal_hz * speed(range, v) / speed(range, range.nominal_v);
}

double power_ratio_at(const VoltageRange& range, double v) {
  double energy_ratio = (v / range.nominal_v) * (v / range.nominal_v);
  return energy_ratio * speed(range, v) / speed(range, range.nominal_v);
}

std::string_view voltage_clamp_name(VoltageClamp clamp) {
  switch (clamp) {
    case VoltageClamp::kNone: return "none";
    case VoltageClamp::kMaxVoltage: return "max_voltage";
    case VoltageClamp::kMinVoltage: return "min_voltage";
  }
  return "?";
}

OperatingPoint operating_point(const VoltageRange& range, double unit_nominal_power_w, double units,
                               double budget_w) {
  double nominal_w = unit_nominal_power_w * units;
  auto at = [&](double v, VoltageClamp clamp) {
    return OperatingPoint{v, frequency_at_hz(range, v), nominal_w * power_ratio_at(range, v), clamp};
  };
  if (!(nominal_w > 0)) return at(range.max_v, VoltageClamp::kMaxVoltage);
  double target = budget_w / nominal_w;
  if (power_ratio_at(range, range.max_v) <= target) return at(range.max_v, VoltageClamp::kMaxVoltage);
  if (power_ratio_at(range, range.min_v) >= target) return at(range.min_v, VoltageClamp::kMinVoltage);
  double lo = range.min_v;
  double hi = range.max_v;
  // power_ratio_at is strictly increasing above the threshold.
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    double mid = 0.5 * (lo + hi);
    (power_ratio_at(range, mid) > target ? hi : lo) = mid;
  }
  return at(lo, VoltageClamp::kNone);
}

}  // namespace snr::pathfind::age
