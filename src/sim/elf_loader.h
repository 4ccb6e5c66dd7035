// Glue between the ELF reader and the simulator: PT_LOAD segments become a
// ProgramImage (executable segments are instruction memory).
#pragma once

#include <string>

#include "elf/elf.h"
#include "sim/program.h"

namespace snr::sim {

ProgramImage program_from_elf(const elf::Image& image, std::string name);
// Reads and validates an ELF file; throws snr::Error naming the file.
ProgramImage load_elf_program(const std::string& path);

}  // namespace snr::sim
