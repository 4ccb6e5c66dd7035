// Quantities of the pathfinding inputs that src/common/units does not cover
// (power, area, voltage, energy, length, compute rate) and a strict view of
// one YAML map: every key must be consumed, unknown keys are errors that name
// the file, line and the keys this section accepts.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

namespace snr::pathfind {

// "400W", "1.2kW"; "826mm2", "0.027um2"; "0.75V", "750mV"; "1.1pJ"; "2.5mm";
// "312TFLOP/s" (also "TFLOPS"). SI prefixes p n u m k M G T P.
// Throws snr::Error naming the text and the expected unit.
double parse_power_w(std::string_view text);
double parse_area_mm2(std::string_view text);
double parse_voltage_v(std::string_view text);
double parse_energy_j(std::string_view text);
double parse_length_mm(std::string_view text);
double parse_flops_per_s(std::string_view text);
// The units of src/common/units (bytes "64KiB", bandwidth "2TB/s",
// frequency "1.41GHz", duration "30us") as plain doubles in base units.
double parse_bytes_count(std::string_view text);
double parse_bandwidth_bytes_per_s(std::string_view text);
double parse_frequency_hz(std::string_view text);
double parse_duration_s(std::string_view text);

[[noreturn]] void throw_with_where(const std::string& where, const std::string& message);

// One YAML map read strictly. Accessors mark keys used; finish() throws on
// any key that no accessor asked for. Errors read "<source>:<line>: <path>.<key>: why".
class StrictMap {
 public:
  StrictMap(const YAML::Node& node, std::string source, std::string path);

  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] std::string string(std::string_view key) const;
  [[nodiscard]] std::string string_or(std::string_view key, std::string fallback) const;
  // `true` or `false`, as every snr YAML boolean; anything else is an error.
  [[nodiscard]] bool boolean_or(std::string_view key, bool fallback) const;
  // A plain number in [min, max].
  [[nodiscard]] double number(std::string_view key, double min, double max) const;
  [[nodiscard]] double number_or(std::string_view key, double fallback, double min, double max) const;
  [[nodiscard]] uint64_t count(std::string_view key, uint64_t min, uint64_t max) const;
  // A value with a unit, converted by `parse`, then checked against [min, max].
  template <typename Parse>
  double quantity(std::string_view key, Parse parse, double min, double max) const {
    return checked(key, convert(key, parse), min, max);
  }
  [[nodiscard]] StrictMap map(std::string_view key) const;
  [[nodiscard]] std::vector<StrictMap> list_of_maps(std::string_view key) const;
  // Throws on keys no accessor read.
  void finish() const;
  [[nodiscard]] std::string where(std::string_view key) const;
  [[nodiscard]] const std::string& source() const { return source_; }

 private:
  [[nodiscard]] YAML::Node scalar(std::string_view key) const;
  [[nodiscard]] double checked(std::string_view key, double value, double min, double max) const;
  template <typename Parse>
  double convert(std::string_view key, Parse parse) const;

  YAML::Node node_;
  std::string source_;
  std::string path_;
  mutable std::vector<std::string> used_;
};

template <typename Parse>
double StrictMap::convert(std::string_view key, Parse parse) const {
  YAML::Node value = scalar(key);
  try {
    return parse(value.Scalar());
  } catch (const std::exception& e) {
    throw_with_where(where(key), e.what());
  }
}

// Parses YAML text (common/yaml_input: syntax errors, duplicate keys and empty
// documents are errors with the line).
YAML::Node load_yaml_text(std::string_view text, std::string_view source);

}  // namespace snr::pathfind
