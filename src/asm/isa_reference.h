// docs/isa.md, generated from the instruction table and the assembler's
// pseudo-instruction list. Regenerate with:
//   cmake --build build --target isa_docgen && build/src/asm/isa_docgen docs/isa.md
#pragma once

#include <string>

namespace snr::assembler {

std::string isa_reference_markdown();

}  // namespace snr::assembler
