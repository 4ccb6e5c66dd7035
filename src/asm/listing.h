// objdump-style listing of an executable image: every executable section,
// symbols as labels, `addr: word  mnemonic operands` lines, branch targets
// annotated with the nearest preceding symbol.
#pragma once

#include <optional>
#include <string>

#include "elf/elf.h"

namespace snr::assembler {

struct ListingOptions {
  bool aliases = true;                 // see isa/disasm.h
  std::optional<std::string> symbol;   // list only this symbol's bytes
};

// Throws snr::Error when `symbol` is given but not defined in an executable
// section.
std::string disassembly_listing(const elf::Image& image, const ListingOptions& options);

}  // namespace snr::assembler
