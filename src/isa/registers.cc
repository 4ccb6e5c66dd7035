#include "isa/registers.h"

#include <array>
#include <charconv>

namespace snr::isa {
namespace {

constexpr std::array<std::string_view, 32> kAbiNames = {
    "zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
    "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
    "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};

// Parses "<prefix><0..31>" exactly (no sign, no leading '+', no spaces).
std::optional<unsigned> parse_indexed(std::string_view text, std::string_view prefix) {
  if (text.size() <= prefix.size() || text.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view digits = text.substr(prefix.size());
  if (digits.size() > 2 || (digits.size() == 2 && digits[0] == '0')) return std::nullopt;
  unsigned value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value > 31) return std::nullopt;
  return value;
}

struct NamedCsr {
  uint16_t number;
  std::string_view name;
};
constexpr std::array<NamedCsr, 4> kCsrNames = {{
    {0xC00, "cycle"}, {0xC02, "instret"}, {0xF14, "mhartid"}, {0xFC0, "nchips"}}};

}  // namespace

std::string_view x_register_abi_name(unsigned index) {
  return index < kAbiNames.size() ? kAbiNames[index] : std::string_view("?");
}

std::optional<unsigned> parse_x_register(std::string_view text) {
  for (unsigned i = 0; i < kAbiNames.size(); ++i) {
    if (kAbiNames[i] == text) return i;
  }
  if (text == "fp") return 8u;
  return parse_indexed(text, "x");
}

std::optional<unsigned> parse_v_register(std::string_view text) { return parse_indexed(text, "v"); }

std::optional<unsigned> parse_semaphore(std::string_view text) {
  if (auto sem = parse_indexed(text, "sem")) return sem;
  return parse_indexed(text, "s");
}

std::optional<unsigned> parse_mxu(std::string_view text) { return parse_indexed(text, "mxu"); }

std::string_view csr_name(uint16_t csr) {
  for (const auto& named : kCsrNames) {
    if (named.number == csr) return named.name;
  }
  return {};
}

std::optional<uint16_t> parse_csr_name(std::string_view text) {
  for (const auto& named : kCsrNames) {
    if (named.name == text) return named.number;
  }
  return std::nullopt;
}

}  // namespace snr::isa
