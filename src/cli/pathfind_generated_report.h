// How `snr pathfind generate` and `predict` show a generated device: one
// line of totals, a row per component with its budget use and bound, and
// the sentence that explains each bound.
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "pathfind/age/generate.h"

namespace snr::cli {

inline std::string si(double value, std::string_view unit) {
  static constexpr std::pair<double, std::string_view> kPrefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"},
                                                                      {1e6, "M"},  {1e3, "k"}};
  for (auto [scale, prefix] : kPrefixes) {
    if (value >= scale) return fmt::format("{:.4g} {}{}", value / scale, prefix, unit);
  }
  return fmt::format("{:.4g} {}", value, unit);
}

inline std::string bytes(double value) {
  static constexpr std::pair<double, std::string_view> kPrefixes[] = {
      {1024.0 * 1024 * 1024 * 1024, "TiB"}, {1024.0 * 1024 * 1024, "GiB"}, {1024.0 * 1024, "MiB"}, {1024.0, "KiB"}};
  for (auto [scale, prefix] : kPrefixes) {
    if (value >= scale) return fmt::format("{:.4g} {}", value / scale, prefix);
  }
  return fmt::format("{:.4g} B", value);
}

inline nlohmann::ordered_json component_json(const snr::pathfind::age::ComponentReport& c) {
  return {{"name", c.name},
          {"kind", c.kind},
          {"units", c.units},
          {"bound", c.bound},
          {"why", c.why},
          {"area_budget_mm2", c.area_budget_mm2},
          {"area_used_mm2", c.area_used_mm2},
          {"power_budget_w", c.power_budget_w},
          {"power_used_w", c.power_used_w},
          {"perimeter_budget_mm", c.perimeter_budget_mm},
          {"perimeter_used_mm", c.perimeter_used_mm},
          {"voltage_v", c.voltage_v},
          {"frequency_hz", c.frequency_hz},
          {"capacity_bytes", c.capacity_bytes},
          {"bandwidth_bytes_per_s", c.bandwidth_bytes_per_s}};
}

inline void print_generated(const snr::pathfind::age::GeneratedArchitecture& g) {
  const snr::pathfind::DeviceSpec& d = g.device;
  fmt::print("{}: {} bundles x {} MCUs of {}x{} at {} = {} (16-bit, equation 1)\n", d.name, d.bundles,
             d.mcus_per_bundle, d.mcu_rows, d.mcu_cols, si(d.frequency_hz, "Hz"), si(g.peak_flops_per_s, "FLOP/s"));
  fmt::print("  {:<14} {:>8} {:>19} {:>19} {:>17}  {:<26} {}\n", "component", "units", "area mm2 (budget)",
             "power W (budget)", "edge mm (budget)", "result", "bound");
  for (const auto& c : g.components) {
    std::string result;
    if (c.kind == "core") {
      result = fmt::format("{} at {:.3f} V", si(c.frequency_hz, "Hz"), c.voltage_v);
    } else if (c.kind == "network") {
      result = fmt::format("{} each way", si(c.bandwidth_bytes_per_s, "B/s"));
    } else {
      result = fmt::format("{}, {}", bytes(c.capacity_bytes), si(c.bandwidth_bytes_per_s, "B/s"));
    }
    std::string edge = c.perimeter_budget_mm > 0
                           ? fmt::format("{:.1f} ({:.1f})", c.perimeter_used_mm, c.perimeter_budget_mm)
                           : std::string("-");
    fmt::print("  {:<14} {:>8} {:>19} {:>19} {:>17}  {:<26} {}\n", c.name, c.units,
               fmt::format("{:.2f} ({:.2f})", c.area_used_mm2, c.area_budget_mm2),
               fmt::format("{:.2f} ({:.2f})", c.power_used_w, c.power_budget_w), edge, result, c.bound);
  }
  fmt::print("why:\n");
  for (const auto& c : g.components) fmt::print("  {}: {}\n", c.name, c.why);
}

}  // namespace snr::cli
