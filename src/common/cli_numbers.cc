#include "common/cli_numbers.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

namespace snr {

Result<uint64_t> parse_unsigned(std::string_view text, uint64_t min, uint64_t max) {
  const std::string range = max == UINT64_MAX ? fmt::format(">= {}", min) : fmt::format("in [{}, {}]", min, max);
  std::string_view digits = text;
  while (!digits.empty() && std::isspace(static_cast<unsigned char>(digits.front()))) digits.remove_prefix(1);
  while (!digits.empty() && std::isspace(static_cast<unsigned char>(digits.back()))) digits.remove_suffix(1);
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) {
    return Error(fmt::format("'{}': expected an integer {} without a sign", text, range));
  }
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits.remove_prefix(2);
    base = 16;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (ec == std::errc::result_out_of_range) {
    return Error(fmt::format("'{}' is too large: expected an integer {}", text, range));
  }
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    return Error(fmt::format("'{}' is not an integer: expected an integer {}", text, range));
  }
  if (value < min || value > max) return Error(fmt::format("{} is out of range: expected an integer {}", value, range));
  return value;
}

}  // namespace snr
