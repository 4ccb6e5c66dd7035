// ELF64 little-endian RISC-V executables: the program format of the NPU.
//
//   Image image = snr::elf::read_elf(bytes, "prog.elf").value();  // validates everything
//   for (const auto& seg : image.segments) load(seg.vaddr, seg.data, seg.mem_bytes);
//   std::vector<uint8_t> out = snr::elf::write_elf(image);         // deterministic bytes
//
// The reader accepts ET_EXEC files from `snr asm` and from
// riscv64-linux-gnu-gcc (-static -nostdlib); it checks every offset, size
// and count against the file before touching it and names the offending
// header, section or symbol in its error.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace snr::elf {

constexpr uint16_t kMachineRiscv = 243;  // EM_RISCV

// kTls values are offsets into a thread's TLS block, not addresses; glibc's
// static binaries carry kTls and kGnuIfunc (resolved at start-up) symbols
// and kGnuUnique bindings.
enum class SymbolType : uint8_t {
  kNoType = 0, kObject = 1, kFunc = 2, kSection = 3, kFile = 4, kCommon = 5, kTls = 6, kGnuIfunc = 10
};
enum class SymbolBinding : uint8_t { kLocal = 0, kGlobal = 1, kWeak = 2, kGnuUnique = 10 };

// Segment permission bits (PF_X, PF_W, PF_R).
constexpr uint32_t kSegmentExecute = 1, kSegmentWrite = 2, kSegmentRead = 4;

struct Segment {
  uint64_t vaddr = 0;
  uint64_t mem_bytes = 0;      // >= data.size(); the rest is zero-filled
  uint32_t flags = 0;          // kSegment* bits
  std::vector<uint8_t> data;   // file contents
};

// Section kinds the writer emits and the reader reports.
enum class SectionKind : uint8_t { kProgBits, kNoBits, kOther };

struct Section {
  std::string name;
  SectionKind kind = SectionKind::kProgBits;
  uint64_t address = 0;
  uint64_t size_bytes = 0;
  uint64_t align_bytes = 1;
  bool alloc = true, write = false, execute = false;
  std::vector<uint8_t> data;  // empty for kNoBits
};

struct Symbol {
  std::string name;
  uint64_t value = 0;
  uint64_t size_bytes = 0;
  SymbolType type = SymbolType::kNoType;
  SymbolBinding binding = SymbolBinding::kLocal;
  // Index into Image::sections of the defining section; -1 for absolute
  // (SHN_ABS) or undefined symbols.
  int section = -1;
};

struct Image {
  uint64_t entry = 0;
  std::vector<Segment> segments;   // PT_LOAD only, in file order
  std::vector<Section> sections;   // without the null section and the symbol/string tables
  std::vector<Symbol> symbols;     // without the null symbol

  // The symbol with exactly this name, or nullptr.
  [[nodiscard]] const Symbol* find_symbol(std::string_view name) const;
};

// `origin` names the input in error messages ("prog.elf: ...").
Result<Image> read_elf(std::span<const uint8_t> bytes, std::string_view origin);
Result<Image> read_elf_file(const std::string& path);

// Lays out every section with alloc=true into its own PT_LOAD segment
// (segments in `image` are ignored and recomputed), then .symtab, .strtab
// and .shstrtab. Local symbols precede global ones, as ELF requires; their
// relative order is kept. Throws snr::Error on inconsistent input
// (overlapping sections, a symbol naming a missing section).
std::vector<uint8_t> write_elf(const Image& image);

}  // namespace snr::elf
