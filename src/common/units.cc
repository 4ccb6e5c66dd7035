#include "common/units.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <span>

#include "common/text.h"

namespace snr {
namespace {

struct NumberAndUnit {
  double value = 0;
  std::string_view number;  // as written, for decimal_scaled
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
  const auto length = static_cast<size_t>(ptr - s.data());
  std::string_view unit = trim_space(s.substr(length));
  return NumberAndUnit{value, s.substr(0, length), unit};
}

// The written number times 10^exponent, rounded to a double once:
// "1050.7609009707525MHz" is the double nearest 1050760900.9707525 Hz. Rounding
// 1050.7609009707525 first and then multiplying by 1e6 can land an ulp away
// from every double a writer wants to express, so some clocks had no exact
// form in MHz or GHz at all.
double decimal_scaled(const NumberAndUnit& parsed, int exponent) {
  std::string_view number = parsed.number;
  const size_t e = number.find_first_of("eE");
  int written = 0;
  if (e != std::string_view::npos) {
    std::string_view tail = number.substr(e + 1);
    if (!tail.empty() && tail.front() == '+') tail.remove_prefix(1);
    std::from_chars(tail.data(), tail.data() + tail.size(), written);
    number = number.substr(0, e);
  }
  const std::string text = fmt::format("{}e{}", number, written + exponent);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  // Past the double range the product says what it is (inf, 0) for the
  // callers' range checks, as it did before.
  if (ec != std::errc()) return parsed.value * std::pow(10.0, exponent);
  return value;
}

struct Prefix {
  std::string_view name;
  double scale;
  int exponent = -1;  // scale = 10^exponent; -1 for a binary prefix
};

constexpr std::array<Prefix, 11> kBytePrefixes{{{"", 1.0, 0},
                                                {"K", 1e3, 3},
                                                {"M", 1e6, 6},
                                                {"G", 1e9, 9},
                                                {"T", 1e12, 12},
                                                {"P", 1e15, 15},
                                                {"Ki", 1024.0},
                                                {"Mi", 1024.0 * 1024},
                                                {"Gi", 1024.0 * 1024 * 1024},
                                                {"Ti", 1024.0 * 1024 * 1024 * 1024},
                                                {"Pi", 1024.0 * 1024 * 1024 * 1024 * 1024}}};

// Matches "<prefix><base>" against kBytePrefixes; nullptr when none does.
const Prefix* byte_prefix(std::string_view unit, std::string_view base) {
  if (unit.size() < base.size() || unit.substr(unit.size() - base.size()) != base) return nullptr;
  std::string_view prefix = unit.substr(0, unit.size() - base.size());
  if (prefix == "k") prefix = "K";
  for (const Prefix& p : kBytePrefixes) {
    if (p.name == prefix) return &p;
  }
  return nullptr;
}

}  // namespace

Result<Bytes> parse_bytes(std::string_view text) {
  auto parsed = split(text, "size");
  if (!parsed) return parsed.error();
  const Prefix* prefix = parsed->unit.empty() ? &kBytePrefixes[0] : byte_prefix(parsed->unit, "B");
  if (prefix == nullptr) {
    return Error(fmt::format("'{}': unknown size unit '{}' (use B, KB, MB, GB, KiB, MiB, GiB, ...)",
                             text, parsed->unit));
  }
  double bytes = parsed->value * prefix->scale;
  if (bytes != std::floor(bytes) || bytes < 0 || bytes > 1.8e19) {
    return Error(fmt::format("'{}' is not a whole number of bytes below 1.8e19", text));
  }
  return Bytes{static_cast<uint64_t>(bytes)};
}

Result<Duration> parse_duration(std::string_view text) {
  auto parsed = split(text, "duration");
  if (!parsed) return parsed.error();
  static constexpr std::array<Prefix, 6> kUnits{
      {{"ps", 1.0, 0}, {"ns", 1e3, 3}, {"us", 1e6, 6}, {"ms", 1e9, 9}, {"s", 1e12, 12}, {"cycles", -1}}};
  for (const Prefix& u : kUnits) {
    if (u.name == parsed->unit && u.scale > 0) {
      const double exact = decimal_scaled(*parsed, u.exponent);
      double ps = std::round(exact);
      // int64 picoseconds end at about 106 days; beyond that the cast is undefined.
      if (!(std::fabs(ps) < 9.2e18)) {
        return Error(fmt::format("'{}' is out of range (at most about 9.2e6 s in picoseconds)", text));
      }
      if (std::fabs(ps - exact) > 1e-6 * std::max(1.0, ps)) {
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
  const Prefix* prefix = byte_prefix(unit, base);
  if (prefix == nullptr) {
    return Error(fmt::format("'{}': unknown bandwidth unit '{}' (use B/s, GB/s, TB/s, GiB/s, Gb/s, ...)",
                             text, unit));
  }
  const double bytes_or_bits = prefix->exponent >= 0 ? decimal_scaled(*parsed, prefix->exponent)
                                                     : parsed->value * prefix->scale;
  return Bandwidth{bytes_or_bits * bits_factor};
}

namespace {
constexpr std::array<Prefix, 4> kFrequencyUnits{{{"Hz", 1.0, 0}, {"kHz", 1e3, 3}, {"MHz", 1e6, 6}, {"GHz", 1e9, 9}}};
}  // namespace

Result<Frequency> parse_frequency(std::string_view text) {
  auto parsed = split(text, "frequency");
  if (!parsed) return parsed.error();
  for (const Prefix& u : kFrequencyUnits) {
    if (u.name == parsed->unit) return Frequency{decimal_scaled(*parsed, u.exponent)};
  }
  return Error(fmt::format("'{}': unknown frequency unit '{}' (use Hz, kHz, MHz, GHz)", text,
                           parsed->unit));
}

namespace {
// The shortest digits that read back as `value` (to_chars' guarantee), with
// the decimal point moved to the largest unit that keeps the number >= 1.
// Parsers scale the written digits by the unit's power of ten before they
// round (decimal_scaled), so the moved point reads back as exactly this
// value: configs written out (a run's hw_config) are read again to replay on
// the same hardware, and "close" would be another clock or bandwidth.
std::string scaled(double value, std::span<const Prefix> units, std::string_view suffix) {
  std::array<char, 64> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::scientific);
  const std::string_view sci(buffer.data(), static_cast<size_t>(end - buffer.data()));
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  std::string_view exponent_text = sci.substr(e + 1);
  if (exponent_text.front() == '+') exponent_text.remove_prefix(1);
  int exponent = 0;  // of the first digit
  std::from_chars(exponent_text.data(), exponent_text.data() + exponent_text.size(), exponent);
  size_t unit = 0;
  for (size_t i = units.size(); i-- > 0;) {
    if (exponent >= units[i].exponent) {
      unit = i;
      break;
    }
  }
  const int point = exponent - units[unit].exponent + 1;  // digits before the point
  std::string text;
  if (point <= 0) {
    text = "0." + std::string(static_cast<size_t>(-point), '0') + digits;
  } else if (static_cast<size_t>(point) >= digits.size()) {
    text = digits + std::string(static_cast<size_t>(point) - digits.size(), '0');
  } else {
    text = digits.substr(0, static_cast<size_t>(point)) + "." + digits.substr(static_cast<size_t>(point));
  }
  return text + std::string(units[unit].name) + std::string(suffix);
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
      {{"ps", 1.0, 0}, {"ns", 1e3, 3}, {"us", 1e6, 6}, {"ms", 1e9, 9}, {"s", 1e12, 12}}};
  if (duration.picoseconds == 0) return "0ns";
  return scaled(static_cast<double>(duration.picoseconds), kUnits, "");
}

std::string format_bandwidth(Bandwidth bandwidth) {
  if (bandwidth.bytes_per_second == 0) return "0B/s";
  return scaled(bandwidth.bytes_per_second, std::span<const Prefix>(kBytePrefixes).first(6), "B/s");
}

std::string format_frequency(Frequency frequency) {
  if (frequency.hertz == 0) return "0Hz";
  return scaled(frequency.hertz, kFrequencyUnits, "");
}

}  // namespace snr
