// Physical quantities with their units in the type, parsed from the strings
// users write in configs ("1.2TB/s", "500ns", "16MiB", "940MHz").
//
// Storage is chosen so simulations stay integer and deterministic:
// sizes in bytes, durations in picoseconds, bandwidth in bytes per second,
// frequency in hertz. SI prefixes are powers of 1000, IEC (Ki, Mi, Gi, Ti)
// powers of 1024; a lower-case `b` in a bandwidth means bits.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace snr {

struct Bytes {
  uint64_t count = 0;
  friend auto operator<=>(const Bytes&, const Bytes&) = default;
};

struct Duration {
  int64_t picoseconds = 0;
  [[nodiscard]] double nanoseconds() const { return static_cast<double>(picoseconds) / 1e3; }
  friend auto operator<=>(const Duration&, const Duration&) = default;
};

struct Bandwidth {
  double bytes_per_second = 0;
  friend auto operator<=>(const Bandwidth&, const Bandwidth&) = default;
};

struct Frequency {
  double hertz = 0;
  friend auto operator<=>(const Frequency&, const Frequency&) = default;
};

// Parsers accept optional whitespace between number and unit. A bare number
// is accepted for Bytes (bytes) only; other quantities need a unit so that a
// forgotten "ns" is an error rather than a silent guess.
Result<Bytes> parse_bytes(std::string_view text);
Result<Duration> parse_duration(std::string_view text);
Result<Bandwidth> parse_bandwidth(std::string_view text);
Result<Frequency> parse_frequency(std::string_view text);

// Canonical, round-trippable renderings ("16MiB", "500ns", "1.2TB/s", "940MHz").
std::string format_bytes(Bytes bytes);
std::string format_duration(Duration duration);
std::string format_bandwidth(Bandwidth bandwidth);
std::string format_frequency(Frequency frequency);

}  // namespace snr
