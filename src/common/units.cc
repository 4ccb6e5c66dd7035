#include "common/units.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "common/text.h"

namespace snr {
namespace {

struct NumberAndUnit {
  double value = 0;
  std::string_view unit;
};

Result<NumberAndUnit> split(std::string_view text, std::string_view what) {
  std::string_view s = trim_space(text);
  if (s.empty()) return Error(fmt::format("empty {} value", what));
  double value = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr == s.data()) {
    return Error(fmt::format("'{}' is not a {}: expected a number followed by a unit", text, what));
  }
  if (!std::isfinite(value) || value < 0) {
    return Error(fmt::format("'{}' is not a {}: must be finite and non-negative", text, what));
  }
  std::string_view unit = trim_space(s.substr(static_cast<size_t>(ptr - s.data())));
  return NumberAndUnit{value, unit};
}

struct Prefix {
  std::string_view name;
  double scale;
};

constexpr std::array<Prefix, 11> kBytePrefixes{{{"", 1.0},
                                                {"K", 1e3},
                                                {"M", 1e6},
                                                {"G", 1e9},
                                                {"T", 1e12},
                                                {"P", 1e15},
                                                {"Ki", 1024.0},
                                                {"Mi", 1024.0 * 1024},
                                                {"Gi", 1024.0 * 1024 * 1024},
                                                {"Ti", 1024.0 * 1024 * 1024 * 1024},
                                                {"Pi", 1024.0 * 1024 * 1024 * 1024 * 1024}}};

// Matches "<prefix><base>" against kBytePrefixes; returns the scale or -1.
double byte_prefix_scale(std::string_view unit, std::string_view base) {
  if (unit.size() < base.size() || unit.substr(unit.size() - base.size()) != base) return -1;
  std::string_view prefix = unit.substr(0, unit.size() - base.size());
  if (prefix == "k") prefix = "K";
  for (const Prefix& p : kBytePrefixes) {
    if (p.name == prefix) return p.scale;
  }
  return -1;
}

}  // namespace

Result<Bytes> parse_bytes(std::string_view text) {
  auto parsed = split(text, "size");
  if (!parsed) return parsed.error();
  double scale = parsed->unit.empty() ? 1.0 : byte_prefix_scale(parsed->unit, "B");
  if (scale < 0) {
    return Error(fmt::format("'{}': unknown size unit '{}' (use B, KB, MB, GB, KiB, MiB, GiB, ...)",
                             text, parsed->unit));
  }
  double bytes = parsed->value * scale;
  if (bytes != std::floor(bytes) || bytes < 0 || bytes > 1.8e19) {
    return Error(fmt::format("'{}' is not a whole number of bytes below 1.8e19", text));
  }
  return Bytes{static_cast<uint64_t>(bytes)};
}

Result<Duration> parse_duration(std::string_view text) {
  auto parsed = split(text, "duration");
  if (!parsed) return parsed.error();
  static constexpr std::array<Prefix, 6> kUnits{
      {{"ps", 1.0}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}, {"cycles", -1}}};
  for (const Prefix& u : kUnits) {
    if (u.name == parsed->unit && u.scale > 0) {
      double ps = std::round(parsed->value * u.scale);
      // int64 picoseconds end at about 106 days; beyond that the cast is undefined.
      if (!(std::fabs(ps) < 9.2e18)) {
        return Error(fmt::format("'{}' is out of range (at most about 9.2e6 s in picoseconds)", text));
      }
      if (std::fabs(ps - parsed->value * u.scale) > 1e-6 * std::max(1.0, ps)) {
        return Error(fmt::format("'{}' is finer than a picosecond", text));
      }
      return Duration{static_cast<int64_t>(ps)};
    }
  }
  return Error(fmt::format("'{}': unknown duration unit '{}' (use ps, ns, us, ms, s)", text,
                           parsed->unit));
}

Result<Bandwidth> parse_bandwidth(std::string_view text) {
  auto parsed = split(text, "bandwidth");
  if (!parsed) return parsed.error();
  std::string_view unit = parsed->unit;
  double bits_factor = 1.0;
  std::string_view base = "B/s";
  if (unit.size() >= 3 && unit.substr(unit.size() - 3) == "b/s") {
    base = "b/s";
    bits_factor = 1.0 / 8.0;
  }
  double scale = byte_prefix_scale(unit, base);
  if (scale < 0) {
    return Error(fmt::format("'{}': unknown bandwidth unit '{}' (use B/s, GB/s, TB/s, GiB/s, Gb/s, ...)",
                             text, unit));
  }
  return Bandwidth{parsed->value * scale * bits_factor};
}

Result<Frequency> parse_frequency(std::string_view text) {
  auto parsed = split(text, "frequency");
  if (!parsed) return parsed.error();
  static constexpr std::array<Prefix, 4> kUnits{{{"Hz", 1.0}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}}};
  for (const Prefix& u : kUnits) {
    if (u.name == parsed->unit) return Frequency{parsed->value * u.scale};
  }
  return Error(fmt::format("'{}': unknown frequency unit '{}' (use Hz, kHz, MHz, GHz)", text,
                           parsed->unit));
}

namespace {
// Shortest decimal that round-trips, without exponent for readability.
std::string number(double v) {
  std::string s = fmt::format("{}", v);
  return s;
}

template <size_t N>
std::string scaled(double value, const std::array<Prefix, N>& units, std::string_view suffix) {
  // Pick the largest unit that keeps the value a number >= 1 that reads
  // back (number x unit, as the parsers compute it) as exactly this value:
  // configs written out (a run's hw_config) are read again to replay on
  // the same hardware, so "close" would be another clock or bandwidth.
  for (size_t i = N; i-- > 0;) {
    const double v = value / units[i].scale;
    if (v < 1.0) continue;
    // The fewest significant digits that read back exactly.
    for (int digits = 1; digits <= 17; ++digits) {
      const std::string text = fmt::format("{:.{}g}", v, digits);
      double read = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), read);
      if (ec != std::errc() || end != text.data() + text.size() || text.find('e') != std::string::npos) continue;
      if (read * units[i].scale == value) return text + std::string(units[i].name) + std::string(suffix);
    }
  }
  return number(value / units[0].scale) + std::string(units[0].name) + std::string(suffix);
}
}  // namespace

std::string format_bytes(Bytes bytes) {
  uint64_t b = bytes.count;
  static constexpr std::array<std::pair<uint64_t, std::string_view>, 4> kIec{
      {{1ULL << 40, "TiB"}, {1ULL << 30, "GiB"}, {1ULL << 20, "MiB"}, {1ULL << 10, "KiB"}}};
  for (const auto& [scale, name] : kIec) {
    if (b >= scale && b % scale == 0) return fmt::format("{}{}", b / scale, name);
  }
  return fmt::format("{}B", b);
}

std::string format_duration(Duration duration) {
  static constexpr std::array<Prefix, 5> kUnits{
      {{"ps", 1.0}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}}};
  if (duration.picoseconds == 0) return "0ns";
  return scaled(static_cast<double>(duration.picoseconds), kUnits, "");
}

std::string format_bandwidth(Bandwidth bandwidth) {
  static constexpr std::array<Prefix, 6> kUnits{
      {{"", 1.0}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}}};
  if (bandwidth.bytes_per_second == 0) return "0B/s";
  return scaled(bandwidth.bytes_per_second, kUnits, "B/s");
}

std::string format_frequency(Frequency frequency) {
  static constexpr std::array<Prefix, 4> kUnits{{{"Hz", 1.0}, {"kHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}}};
  if (frequency.hertz == 0) return "0Hz";
  return scaled(frequency.hertz, kUnits, "");
}

}  // namespace snr
