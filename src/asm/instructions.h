// Turning one instruction statement (a table mnemonic or a pseudo-
// instruction) into machine words, and the constant-materialisation
// sequence used by `li`.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "asm/expr.h"
#include "asm/source_line.h"
#include "isa/isa.h"

namespace snr::assembler {

// Bytes the statement will occupy, decided in the first pass. `li` needs
// its value then, so `constant_lookup` resolves .equ constants defined
// earlier. Throws LocatedError for unknown mnemonics and bad `li` values.
uint64_t instruction_size_bytes(const Token& mnemonic, const std::vector<Token>& operands,
                                const ExprContext& constants);

// Encodes the statement at `pc` with every symbol known. Throws
// LocatedError naming the operand's column.
std::vector<uint32_t> encode_instruction(const Token& mnemonic, const std::vector<Token>& operands,
                                         const ExprContext& context);

// The instructions `li rd, value` expands to (lui/addi(w)/slli chain).
std::vector<isa::DecodedInstruction> li_sequence(uint8_t rd, int64_t value);

struct PseudoInstruction {
  std::string_view mnemonic;
  std::string_view syntax;
  std::string_view expansion;
};
// Every pseudo-instruction the assembler accepts (for docs/isa.md).
std::span<const PseudoInstruction> pseudo_instructions();

// True for mnemonics that are table rows or pseudo-instructions.
bool is_known_mnemonic(std::string_view mnemonic);

}  // namespace snr::assembler
