#include "sweep/quantity.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>

#include "common/error.h"
#include "common/text.h"
#include "common/units.h"
#include "pathfind/inputs/quantity.h"

namespace snr::sweep {
namespace {

double plain_number(std::string_view text) {
  const std::string_view s = trim_space(text);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(value)) {
    throw Error(fmt::format("'{}' is not a number", text));
  }
  return value;
}

// The quantities of src/common/units, as doubles in their base unit.
double bytes(std::string_view t) { return static_cast<double>(parse_bytes(t).value().count); }
double seconds(std::string_view t) { return static_cast<double>(parse_duration(t).value().picoseconds) * 1e-12; }
double bytes_per_s(std::string_view t) { return parse_bandwidth(t).value().bytes_per_second; }
double hertz(std::string_view t) { return parse_frequency(t).value().hertz; }

// Tried in order; the parsers are strict about their units, so at most one
// reads a given text ("10ms" is a duration, "5mm" a length, "5mm2" an area).
constexpr std::array<QuantityKind, 10> kKinds{{
    {"bandwidth", "B/s", bytes_per_s},
    {"size", "B", bytes},
    {"duration", "s", seconds},
    {"frequency", "Hz", hertz},
    {"compute rate", "FLOP/s", pathfind::parse_flops_per_s},
    {"power", "W", pathfind::parse_power_w},
    {"energy", "J", pathfind::parse_energy_j},
    {"voltage", "V", pathfind::parse_voltage_v},
    {"area", "mm2", pathfind::parse_area_mm2},
    {"length", "mm", pathfind::parse_length_mm},
}};
constexpr QuantityKind kNumber{"number", "", plain_number};

}  // namespace

std::optional<Quantity> parse_quantity(std::string_view text) {
  const std::string_view s = trim_space(text);
  double number = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (s.empty() || ec != std::errc() || ptr == s.data() || !std::isfinite(number)) return std::nullopt;
  const std::string_view digits = s.substr(0, static_cast<size_t>(ptr - s.data()));
  const std::string_view unit = trim_space(s.substr(digits.size()));
  Quantity q;
  q.number = number;
  if (unit.empty()) {
    q.kind = &kNumber;
    q.base = number;
    q.integer = digits.find_first_of(".eE") == std::string_view::npos;
    return q;
  }
  for (const QuantityKind& kind : kKinds) {
    try {
      q.base = kind.parse(s);
    } catch (const Error&) {
      continue;
    }
    q.kind = &kind;
    q.unit = std::string(unit);
    return q;
  }
  return std::nullopt;
}

std::string format_quantity(double number, std::string_view unit, bool whole, int digits) {
  // Every digit of the whole number, which may be beyond int64_t (a range
  // up to 1e24 is plain integers too); + 0.0 turns -0 into 0.
  if (whole) return fmt::format("{:.0f}{}", std::round(number) + 0.0, unit);
  std::string text = fmt::format("{:.{}g}", number, digits);
  if (text == "-0") text = "0";
  return text + std::string(unit);
}

}  // namespace snr::sweep
