// Disassembly in GNU objdump's syntax, derived from the table.
//
// Two modes:
//  - aliases (default): objdump's pseudo-instruction choices for li, mv,
//    nop, not, neg(w), sext.w, seqz/snez/sltz/sgtz, beqz/bnez/blez/bgez/
//    bltz/bgtz, j, jal, jr, jalr, ret, fence, rdcycle/rdinstret, csrr/csrw/
//    csrs/csrc. Immediate ALU forms keep their canonical names (addi, slli)
//    where binutils 2.40 prints "add a0,a1,5" / "sll a0,a1,0x3".
//  - no aliases: exactly `objdump -d -M no-aliases` (the comparison test
//    uses this mode).
// The scalar part matches objdump operand for operand; accelerator rows use
// the same conventions (registers comma-separated, no spaces).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "isa/isa.h"

namespace snr::isa {

struct DisasmOptions {
  bool aliases = true;
  // Branch/jump targets: objdump prints "10078 <sym+0x4>"; assembler
  // style prints "0x10078" so the text re-assembles at the same pc.
  bool assembler_targets = false;
  // Optional: name for an address ("main", "loop+0x8"); empty = none.
  std::function<std::string(uint64_t)> symbolize;
};

// "addi a0,a0,1" (mnemonic, one space, operands). Illegal words print as
// ".word 0x........" like objdump.
std::string disassemble(const DecodedInstruction& inst, uint64_t pc, const DisasmOptions& options = {});

}  // namespace snr::isa
