// Assembler expressions: integers (decimal, 0x, 0b, 'c'), symbols, unary
// - ~ +, binary * / % + - << >> & ^ |, parentheses, and the RISC-V
// relocation operators %hi %lo %pcrel_hi %pcrel_lo.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace snr::assembler {

struct ExprContext {
  // Value of a symbol, or nullopt when it is not (yet) defined.
  std::function<std::optional<int64_t>(std::string_view)> lookup;
  // Address of the instruction being assembled (for %pcrel_hi).
  uint64_t pc = 0;
  // %pcrel_lo(label): the pc-relative offset computed by the %pcrel_hi at
  // `label`; nullopt when label has none.
  std::function<std::optional<int64_t>(std::string_view)> pcrel_hi_offset_at;
};

// Evaluates `text` completely. Errors name the offending token; the
// message has no location (the caller adds file:line:column).
Result<int64_t> evaluate(std::string_view text, const ExprContext& context);

// True when `text` can start a symbol name (letters, '_', '.', '$').
bool is_symbol_start(char c);
bool is_symbol_char(char c);

// RISC-V hi/lo split: hi20 = (v + 0x800) >> 12, lo12 = v - (hi20 << 12).
constexpr int64_t hi20_of(int64_t value) { return ((value + 0x800) >> 12) & 0xFFFFF; }
constexpr int64_t lo12_of(int64_t value) {
  const int64_t lo = value & 0xFFF;
  return lo >= 0x800 ? lo - 0x1000 : lo;
}

}  // namespace snr::assembler
