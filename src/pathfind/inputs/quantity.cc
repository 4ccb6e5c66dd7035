#include "pathfind/inputs/quantity.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "common/text.h"
#include "common/units.h"
#include "common/yaml_input.h"

namespace snr::pathfind {
namespace {

struct SiPrefix {
  std::string_view name;
  double scale;
};
constexpr std::array<SiPrefix, 10> kPrefixes{{{"", 1.0},
                                             {"p", 1e-12},
                                             {"n", 1e-9},
                                             {"u", 1e-6},
                                             {"m", 1e-3},
                                             {"k", 1e3},
                                             {"M", 1e6},
                                             {"G", 1e9},
                                             {"T", 1e12},
                                             {"P", 1e15}}};

// "<number><prefix><one of bases>" -> number * prefix scale (in the base unit).
double parse_si(std::string_view text, std::initializer_list<std::string_view> bases, std::string_view what) {
  std::string_view s = trim_space(text);
  double value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || ptr == s.data()) {
    throw Error(fmt::format("'{}' is not a {}: expected a number followed by a unit", text, what));
  }
  if (!std::isfinite(value) || value < 0) {
    throw Error(fmt::format("'{}' is not a {}: must be finite and non-negative", text, what));
  }
  std::string_view unit = trim_space(s.substr(static_cast<size_t>(ptr - s.data())));
  for (std::string_view base : bases) {
    if (unit.size() < base.size() || unit.substr(unit.size() - base.size()) != base) continue;
    std::string_view prefix = unit.substr(0, unit.size() - base.size());
    for (const SiPrefix& p : kPrefixes) {
      if (p.name == prefix) return value * p.scale;
    }
  }
  std::string expected;
  for (std::string_view base : bases) expected += (expected.empty() ? "" : ", ") + std::string(base);
  throw Error(fmt::format("'{}': unknown {} unit '{}' (expected an SI prefix and {})", text, what, unit, expected));
}

}  // namespace

double parse_power_w(std::string_view text) { return parse_si(text, {"W"}, "power"); }
double parse_voltage_v(std::string_view text) { return parse_si(text, {"V"}, "voltage"); }
double parse_energy_j(std::string_view text) { return parse_si(text, {"J"}, "energy"); }
double parse_flops_per_s(std::string_view text) {
  return parse_si(text, {"FLOP/s", "FLOPS", "flop/s"}, "compute rate");
}
double parse_length_mm(std::string_view text) { return parse_si(text, {"m"}, "length") * 1e3; }
double parse_area_mm2(std::string_view text) {
  std::string_view s = trim_space(text);
  if (s.size() >= 3 && s.substr(s.size() - 3) == "mm2") return parse_si(s.substr(0, s.size() - 3), {""}, "area");
  if (s.size() >= 3 && s.substr(s.size() - 3) == "um2") {
    return parse_si(s.substr(0, s.size() - 3), {""}, "area") * 1e-6;
  }
  throw Error(fmt::format("'{}' is not an area: write it in mm2 or um2 (e.g. 826mm2, 0.027um2)", text));
}

double parse_bytes_count(std::string_view text) { return static_cast<double>(parse_bytes(text).value().count); }
double parse_bandwidth_bytes_per_s(std::string_view text) {
  return parse_bandwidth(text).value().bytes_per_second;
}
double parse_frequency_hz(std::string_view text) { return parse_frequency(text).value().hertz; }
double parse_duration_s(std::string_view text) {
  return static_cast<double>(parse_duration(text).value().picoseconds) * 1e-12;
}

void throw_with_where(const std::string& where, const std::string& message) {
  throw Error(fmt::format("{}: {}", where, message));
}

YAML::Node load_yaml_text(std::string_view text, std::string_view source) {
  return load_yaml_document(text, source, "a pathfinding input");
}

StrictMap::StrictMap(const YAML::Node& node, std::string source, std::string path)
    : node_(node), source_(std::move(source)), path_(std::move(path)) {
  if (!node_.IsMap()) {
    int line = node_.Mark().line + 1;
    throw Error(fmt::format("{}:{}: {}: expected a map of keys", source_, line, path_.empty() ? "document" : path_));
  }
}

std::string StrictMap::where(std::string_view key) const {
  YAML::Node value = node_[std::string(key)];
  int line = (value ? value.Mark().line : node_.Mark().line) + 1;
  return fmt::format("{}:{}: {}{}", source_, line, path_.empty() ? "" : path_ + ".", key);
}

bool StrictMap::has(std::string_view key) const {
  used_.emplace_back(key);  // asking for a key makes it a known one
  return static_cast<bool>(node_[std::string(key)]);
}

YAML::Node StrictMap::scalar(std::string_view key) const {
  used_.emplace_back(key);
  YAML::Node value = node_[std::string(key)];
  if (!value) throw_with_where(where(key), "missing required key");
  if (!value.IsScalar()) throw_with_where(where(key), "expected a single value");
  return value;
}

std::string StrictMap::string(std::string_view key) const { return scalar(key).Scalar(); }

std::string StrictMap::string_or(std::string_view key, std::string fallback) const {
  return has(key) ? string(key) : std::move(fallback);
}

bool StrictMap::boolean_or(std::string_view key, bool fallback) const {
  if (!has(key)) return fallback;
  const std::string text = string(key);
  const std::optional<bool> value = strict_yaml_bool(std::string_view(text));
  if (!value) throw_with_where(where(key), fmt::format("'{}' is not a boolean: expected true or false", text));
  return *value;
}

double StrictMap::checked(std::string_view key, double value, double min, double max) const {
  if (!(value >= min && value <= max)) {
    throw_with_where(where(key), fmt::format("{} is out of range [{}, {}]", value, min, max));
  }
  return value;
}

double StrictMap::number(std::string_view key, double min, double max) const {
  const std::string text = scalar(key).Scalar();
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) {
    throw_with_where(where(key), fmt::format("'{}' is not a number", text));
  }
  return checked(key, value, min, max);
}

double StrictMap::number_or(std::string_view key, double fallback, double min, double max) const {
  return has(key) ? number(key, min, max) : fallback;
}

uint64_t StrictMap::count(std::string_view key, uint64_t min, uint64_t max) const {
  const std::string text = scalar(key).Scalar();
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    throw_with_where(where(key), fmt::format("'{}' is not a non-negative integer", text));
  }
  if (value < min || value > max) {
    throw_with_where(where(key), fmt::format("{} is out of range [{}, {}]", value, min, max));
  }
  return value;
}

StrictMap StrictMap::map(std::string_view key) const {
  YAML::Node value = node_[std::string(key)];
  if (!value) throw_with_where(where(key), "missing required section");
  used_.emplace_back(key);
  return StrictMap(value, source_, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

std::vector<StrictMap> StrictMap::list_of_maps(std::string_view key) const {
  YAML::Node value = node_[std::string(key)];
  if (!value) throw_with_where(where(key), "missing required list");
  used_.emplace_back(key);
  if (!value.IsSequence()) throw_with_where(where(key), "expected a list");
  std::vector<StrictMap> out;
  for (size_t i = 0; i < value.size(); ++i) {
    std::string item_path = fmt::format("{}{}[{}]", path_.empty() ? "" : path_ + ".", key, i);
    out.emplace_back(value[i], source_, item_path);
  }
  return out;
}

void StrictMap::finish() const {
  for (const auto& entry : node_) {
    if (!entry.first.IsScalar()) throw_with_where(where(""), "keys must be plain names");
    const std::string key = entry.first.Scalar();
    bool known = false;
    for (const std::string& u : used_) known = known || u == key;
    if (!known) {
      // Each key once, in the order first asked for (a reader may ask twice:
      // whether a key is there, then its value).
      std::vector<std::string_view> names;
      for (const std::string& u : used_) {
        if (std::find(names.begin(), names.end(), u) == names.end()) names.push_back(u);
      }
      const std::string accepted = fmt::format("{}", fmt::join(names, ", "));
      throw_with_where(where(key), fmt::format("unknown key (this section reads: {})", accepted));
    }
  }
}

}  // namespace snr::pathfind
