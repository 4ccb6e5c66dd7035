#include "asm/listing.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/error.h"
#include "isa/disasm.h"
#include "isa/isa.h"

namespace snr::assembler {
namespace {

// RISC-V psABI mapping symbols ("$x", "$d", "$xrv64i2p1_m2p0") mark code
// and data ranges for tools; objdump does not print them as labels.
bool is_mapping_symbol(const std::string& name) { return name.starts_with("$x") || name.starts_with("$d"); }

bool is_label_symbol(const elf::Symbol& s) {
  return s.section >= 0 && s.type != elf::SymbolType::kSection && s.type != elf::SymbolType::kFile &&
         !s.name.empty() && !is_mapping_symbol(s.name);
}

// Symbols of one section ordered by address, globals first at equal
// addresses, then by name: a deterministic order for labels.
std::vector<const elf::Symbol*> sorted_symbols(const elf::Image& image, int section) {
  std::vector<const elf::Symbol*> out;
  for (const auto& s : image.symbols) {
    if (s.section == section && is_label_symbol(s)) out.push_back(&s);
  }
  std::sort(out.begin(), out.end(), [](const elf::Symbol* a, const elf::Symbol* b) {
    if (a->value != b->value) return a->value < b->value;
    if (a->binding != b->binding) return a->binding == elf::SymbolBinding::kGlobal;
    return a->name < b->name;
  });
  return out;
}

uint32_t word_at(const std::vector<uint8_t>& data, uint64_t offset) {
  return static_cast<uint32_t>(data[offset]) | static_cast<uint32_t>(data[offset + 1]) << 8 |
         static_cast<uint32_t>(data[offset + 2]) << 16 | static_cast<uint32_t>(data[offset + 3]) << 24;
}

}  // namespace

std::string disassembly_listing(const elf::Image& image, const ListingOptions& options) {
  std::string out;
  bool symbol_found = false;
  for (size_t si = 0; si < image.sections.size(); ++si) {
    const elf::Section& section = image.sections[si];
    if (!section.execute || section.kind != elf::SectionKind::kProgBits) continue;
    const auto symbols = sorted_symbols(image, static_cast<int>(si));
    uint64_t begin = section.address, end = section.address + section.data.size();
    if (options.symbol) {
      auto it = std::find_if(symbols.begin(), symbols.end(), [&](const elf::Symbol* s) { return s->name == *options.symbol; });
      if (it == symbols.end()) continue;
      symbol_found = true;
      begin = (*it)->value;
      uint64_t stop = (*it)->size_bytes != 0 ? begin + (*it)->size_bytes : end;
      if ((*it)->size_bytes == 0) {
        for (const auto* s : symbols) {
          if (s->value > begin) { stop = s->value; break; }
        }
      }
      end = std::min(end, stop);
    }
    isa::DisasmOptions disasm;
    disasm.aliases = options.aliases;
    disasm.symbolize = [&symbols](uint64_t address) {
      const elf::Symbol* best = nullptr;
      for (const auto* s : symbols) {
        if (s->value <= address && (best == nullptr || s->value > best->value)) best = s;
      }
      if (best == nullptr) return std::string();
      return address == best->value ? best->name : fmt::format("{}+{:#x}", best->name, address - best->value);
    };
    out += fmt::format("\nDisassembly of section {}:\n", section.name);
    size_t next_symbol = 0;
    for (uint64_t pc = begin; pc + 4 <= end; pc += isa::kInstructionBytes) {
      bool first_label = true;
      while (next_symbol < symbols.size() && symbols[next_symbol]->value <= pc) {
        if (symbols[next_symbol]->value == pc) {
          out += fmt::format("{}{:016x} <{}>:\n", first_label ? "\n" : "", pc, symbols[next_symbol]->name);
          first_label = false;
        }
        ++next_symbol;
      }
      if (pc < section.address || (pc - section.address) % 4 != 0) continue;
      const uint32_t word = word_at(section.data, pc - section.address);
      const std::string text = isa::disassemble(isa::decode(word), pc, disasm);
      const size_t space = text.find(' ');
      const std::string mnemonic = text.substr(0, space);
      const std::string operands = space == std::string::npos ? std::string() : text.substr(space + 1);
      out += fmt::format("{:>8x}:\t{:08x}          \t{}{}{}\n", pc, word, mnemonic, operands.empty() ? "" : "\t", operands);
    }
  }
  if (options.symbol && !symbol_found) {
    throw Error(fmt::format("symbol '{}' is not defined in an executable section", *options.symbol));
  }
  return out;
}

}  // namespace snr::assembler
