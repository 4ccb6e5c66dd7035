// The NPU assembler: GNU-as-style source to an ELF executable image.
//
//   auto image = snr::assembler::assemble(text, {.source_name = "prog.s"});
//   if (!image.ok()) print(image.error().what());   // "prog.s:12:9: unknown mnemonic 'ad'"
//   std::vector<uint8_t> bytes = snr::elf::write_elf(image.value());
//
// Supported: labels (dots allowed: `layer3.attn.qkv_matmul:`), '#' comments,
// .text/.data/.rodata/.bss/.section, .globl/.global/.local, .align/.p2align/
// .balign, .byte/.half/.2byte/.short/.word/.4byte/.long/.dword/.8byte/.quad,
// .zero/.space, .ascii/.asciz/.string, .equ/.set, .type, .size, .option
// (accepted and ignored: no compressed code, no relaxation), expressions
// with '.', %hi/%lo/%pcrel_hi/%pcrel_lo, every table mnemonic and the
// pseudo-instructions listed in docs/isa.md.
//
// Layout: .text at text_base, then every other section in order of first
// use, each at the next 4 KiB boundary. Every label becomes a symbol:
// FUNC in executable sections, OBJECT elsewhere, NOTYPE for ".L" names,
// sized up to the next label (or the section end) unless .type/.size say
// otherwise; .globl makes it GLOBAL. The entry point is `_start` if
// defined, else the start of .text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "elf/elf.h"
#include "isa/address_map.h"

namespace snr::assembler {

struct AssembleOptions {
  std::string source_name = "<input>";
  uint64_t text_base = isa::kDefaultTextBase;
};

// All problems found (up to 20), one "name:line:column: message" per line.
Result<elf::Image> assemble(std::string_view source, const AssembleOptions& options = {});

// assemble() followed by elf::write_elf().
Result<std::vector<uint8_t>> assemble_to_elf(std::string_view source, const AssembleOptions& options = {});

}  // namespace snr::assembler
