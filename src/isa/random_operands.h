// Random in-range operand values for a table row: drives the generated
// round-trip tests (encode -> disassemble -> assemble) and the benchmarks.
#pragma once

#include <random>

#include "isa/isa.h"

namespace snr::isa {

DecodedInstruction random_operands(const InstructionRow& row, std::mt19937_64& rng);

}  // namespace snr::isa
