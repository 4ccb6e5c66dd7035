// The RISC-V C extension (compressed 16-bit instructions) as foreign RV64
// programs use it: each compressed instruction expands to the base
// instruction it stands for, which the ISA table then decodes, so
// semantics, access descriptors and disassembly come from the one table.
// The snr NPU's own programs are 32-bit only; only re-execution of a
// foreign process (a flat address space) decodes with these.
#pragma once

#include <cstdint>

#include "isa/isa.h"

namespace snr::isa {

// Bytes of the instruction whose first 16 bits are `word`'s low half: 4
// when its two low bits are 11, else 2.
constexpr uint64_t instruction_bytes(uint32_t word) { return (word & 3) == 3 ? 4 : 2; }

// The 32-bit base encoding of the compressed instruction `half` (RV64C), or
// 0 when it is reserved, illegal, or a floating-point load or store (the
// table has no F/D instructions).
uint32_t expand_compressed(uint16_t half);

// Decodes a 32-bit instruction, or a compressed one in the low 16 bits
// (the upper bits are ignored) through its expansion; the result's `word`
// is then the 16-bit encoding, so instruction_bytes(d.word) is its length.
DecodedInstruction decode_with_compressed(uint32_t word);

}  // namespace snr::isa
