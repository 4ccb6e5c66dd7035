// Glue between the ELF reader and the simulator: PT_LOAD segments become a
// ProgramImage (executable segments are instruction memory).
#pragma once

#include <string>

#include "asm/program_builder.h"
#include "elf/elf.h"
#include "sim/program.h"

namespace snr::sim {

// The program a builder holds (the built-in demo, hand-counted tests):
// its non-empty sections at their addresses. Throws snr::Error naming
// `name` with the builder's problems (undefined labels, operands that do
// not fit).
ProgramImage program_from_builder(const assembler::ProgramBuilder& builder, std::string name);

ProgramImage program_from_elf(const elf::Image& image, std::string name);
// Reads and validates an ELF file; throws snr::Error naming the file.
ProgramImage load_elf_program(const std::string& path);

}  // namespace snr::sim
