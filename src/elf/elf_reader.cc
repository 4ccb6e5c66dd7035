// ELF64 reader: every field is bounds- and consistency-checked before use.
#include <algorithm>
#include <fmt/format.h>
#include <limits>

#include "common/file_io.h"
#include "elf/elf.h"
#include "elf/elf_constants.h"

namespace snr::elf {
namespace {

// Little-endian field access within a validated byte range.
class ByteView {
 public:
  ByteView(std::span<const uint8_t> bytes, std::string origin) : bytes_(bytes), origin_(std::move(origin)) {}

  [[nodiscard]] uint64_t size() const { return bytes_.size(); }

  template <typename T>
  T read(uint64_t offset, std::string_view what) const {
    check_range(offset, sizeof(T), what);
    T value = 0;
    for (size_t i = 0; i < sizeof(T); ++i) value |= static_cast<T>(static_cast<T>(bytes_[offset + i]) << (8 * i));
    return value;
  }

  void check_range(uint64_t offset, uint64_t length, std::string_view what) const {
    if (offset > bytes_.size() || length > bytes_.size() - offset) {
      throw fail(offset, fmt::format("{} ({} bytes at offset {:#x}) extends past the end of the "
                                     "file ({} bytes)",
                                     what, length, offset, bytes_.size()));
    }
  }

  [[nodiscard]] std::vector<uint8_t> copy(uint64_t offset, uint64_t length, std::string_view what) const {
    check_range(offset, length, what);
    return {bytes_.begin() + static_cast<std::ptrdiff_t>(offset),
            bytes_.begin() + static_cast<std::ptrdiff_t>(offset + length)};
  }

  // A NUL-terminated string inside [table_offset, table_offset + table_size).
  [[nodiscard]] std::string string_at(uint64_t table_offset, uint64_t table_size, uint64_t index,
                                      std::string_view what) const {
    if (index >= table_size) {
      throw fail(table_offset, fmt::format("{}: name offset {} outside its string table ({} bytes)",
                                           what, index, table_size));
    }
    const auto* begin = bytes_.data() + table_offset + index;
    const auto* end = bytes_.data() + table_offset + table_size;
    const auto* nul = std::find(begin, end, uint8_t{0});
    if (nul == end) throw fail(table_offset + index, fmt::format("{}: name is not NUL-terminated", what));
    return {reinterpret_cast<const char*>(begin), static_cast<size_t>(nul - begin)};
  }

  [[nodiscard]] Error fail(uint64_t offset, const std::string& message) const {
    return Error(fmt::format("{}: byte offset {:#x}: {}", origin_, offset, message));
  }

 private:
  std::span<const uint8_t> bytes_;
  std::string origin_;
};

struct RawSection {
  uint32_t name_index, type;
  uint64_t flags, address, offset, size, align, entry_size;
  uint32_t link, info;
  uint64_t header_offset;
};

void check_identification(const ByteView& v) {
  v.check_range(0, kElfHeaderBytes, "ELF header");
  if (v.read<uint32_t>(0, "magic") != 0x464C457F) throw v.fail(0, "not an ELF file (bad magic)");
  if (v.read<uint8_t>(4, "class") != kElfClass64) throw v.fail(4, "not ELF64 (EI_CLASS != ELFCLASS64)");
  if (v.read<uint8_t>(5, "data") != kElfDataLittle) throw v.fail(5, "not little-endian (EI_DATA != ELFDATA2LSB)");
  if (v.read<uint8_t>(6, "version") != 1) throw v.fail(6, "unsupported EI_VERSION");
  const auto type = v.read<uint16_t>(16, "e_type");
  if (type == kElfTypeDyn) throw v.fail(16, "ET_DYN (position-independent) is not supported; link with -static -no-pie");
  if (type != kElfTypeExec) throw v.fail(16, fmt::format("e_type {} is not ET_EXEC", type));
  const auto machine = v.read<uint16_t>(18, "e_machine");
  if (machine != kMachineRiscv) throw v.fail(18, fmt::format("e_machine {} is not EM_RISCV (243)", machine));
  if (v.read<uint16_t>(52, "e_ehsize") != kElfHeaderBytes) throw v.fail(52, "e_ehsize is not 64");
}

std::vector<Segment> read_segments(const ByteView& v) {
  const auto ph_offset = v.read<uint64_t>(32, "e_phoff");
  const auto ph_entry = v.read<uint16_t>(54, "e_phentsize");
  const auto ph_count = v.read<uint16_t>(56, "e_phnum");
  std::vector<Segment> segments;
  if (ph_count == 0) return segments;
  if (ph_entry != kProgramHeaderBytes) throw v.fail(54, fmt::format("e_phentsize {} is not 56", ph_entry));
  v.check_range(ph_offset, uint64_t{ph_count} * kProgramHeaderBytes, "program header table");
  for (uint16_t i = 0; i < ph_count; ++i) {
    const uint64_t h = ph_offset + uint64_t{i} * kProgramHeaderBytes;
    const auto type = v.read<uint32_t>(h, "p_type");
    const auto flags = v.read<uint32_t>(h + 4, "p_flags");
    const auto offset = v.read<uint64_t>(h + 8, "p_offset");
    const auto vaddr = v.read<uint64_t>(h + 16, "p_vaddr");
    const auto file_size = v.read<uint64_t>(h + 32, "p_filesz");
    const auto mem_size = v.read<uint64_t>(h + 40, "p_memsz");
    const std::string what = fmt::format("program header {}", i);
    if (type != kProgramTypeLoad) {
      if (file_size != 0) v.check_range(offset, file_size, what + " contents");
      continue;
    }
    if (file_size > mem_size) throw v.fail(h, fmt::format("{}: p_filesz {} > p_memsz {}", what, file_size, mem_size));
    if (mem_size > std::numeric_limits<uint64_t>::max() - vaddr) throw v.fail(h, what + ": p_vaddr + p_memsz overflows");
    if (mem_size == 0) continue;
    Segment s;
    s.vaddr = vaddr;
    s.mem_bytes = mem_size;
    s.flags = flags & 7u;
    s.data = v.copy(offset, file_size, what + " contents");
    for (const auto& other : segments) {
      if (s.vaddr < other.vaddr + other.mem_bytes && other.vaddr < s.vaddr + s.mem_bytes) {
        throw v.fail(h, fmt::format("{}: PT_LOAD [{:#x}, {:#x}) overlaps [{:#x}, {:#x})", what, s.vaddr,
                                    s.vaddr + s.mem_bytes, other.vaddr, other.vaddr + other.mem_bytes));
      }
    }
    segments.push_back(std::move(s));
  }
  return segments;
}

std::vector<RawSection> read_section_headers(const ByteView& v) {
  const auto sh_offset = v.read<uint64_t>(40, "e_shoff");
  const auto sh_entry = v.read<uint16_t>(58, "e_shentsize");
  const auto sh_count = v.read<uint16_t>(60, "e_shnum");
  std::vector<RawSection> raw;
  if (sh_count == 0) return raw;
  if (sh_entry != kSectionHeaderBytes) throw v.fail(58, fmt::format("e_shentsize {} is not 64", sh_entry));
  v.check_range(sh_offset, uint64_t{sh_count} * kSectionHeaderBytes, "section header table");
  for (uint16_t i = 0; i < sh_count; ++i) {
    const uint64_t h = sh_offset + uint64_t{i} * kSectionHeaderBytes;
    RawSection s{};
    s.header_offset = h;
    s.name_index = v.read<uint32_t>(h, "sh_name");
    s.type = v.read<uint32_t>(h + 4, "sh_type");
    s.flags = v.read<uint64_t>(h + 8, "sh_flags");
    s.address = v.read<uint64_t>(h + 16, "sh_addr");
    s.offset = v.read<uint64_t>(h + 24, "sh_offset");
    s.size = v.read<uint64_t>(h + 32, "sh_size");
    s.link = v.read<uint32_t>(h + 40, "sh_link");
    s.info = v.read<uint32_t>(h + 44, "sh_info");
    s.align = v.read<uint64_t>(h + 48, "sh_addralign");
    s.entry_size = v.read<uint64_t>(h + 56, "sh_entsize");
    if (s.type != kSectionTypeNoBits && s.type != kSectionTypeNull) {
      v.check_range(s.offset, s.size, fmt::format("section {} contents", i));
    }
    raw.push_back(s);
  }
  return raw;
}

void read_symbols(const ByteView& v, const std::vector<RawSection>& raw, size_t symtab_index,
                  const std::vector<int>& section_map, Image& image) {
  const RawSection& symtab = raw[symtab_index];
  const std::string what = fmt::format("section {} (.symtab)", symtab_index);
  if (symtab.entry_size != kSymbolBytes) throw v.fail(symtab.header_offset, what + ": sh_entsize is not 24");
  if (symtab.size % kSymbolBytes != 0) throw v.fail(symtab.header_offset, what + ": size is not a multiple of 24");
  if (symtab.link == 0 || symtab.link >= raw.size() || raw[symtab.link].type != kSectionTypeStrTab) {
    throw v.fail(symtab.header_offset, fmt::format("{}: sh_link {} is not a string table", what, symtab.link));
  }
  const RawSection& strtab = raw[symtab.link];
  const uint64_t count = symtab.size / kSymbolBytes;
  for (uint64_t i = 1; i < count; ++i) {
    const uint64_t e = symtab.offset + i * kSymbolBytes;
    const std::string sym_what = fmt::format("symbol {}", i);
    Symbol s;
    s.name = v.string_at(strtab.offset, strtab.size, v.read<uint32_t>(e, "st_name"), sym_what);
    const auto info = v.read<uint8_t>(e + 4, "st_info");
    const auto shndx = v.read<uint16_t>(e + 6, "st_shndx");
    s.value = v.read<uint64_t>(e + 8, "st_value");
    s.size_bytes = v.read<uint64_t>(e + 16, "st_size");
    const unsigned type = info & 0xF, binding = info >> 4;
    if (type > 6 && type != 10) {
      throw v.fail(e, fmt::format("{} '{}': unsupported symbol type {}", sym_what, s.name, type));
    }
    if (binding > 2 && binding != 10) {
      throw v.fail(e, fmt::format("{} '{}': unsupported binding {}", sym_what, s.name, binding));
    }
    s.type = static_cast<SymbolType>(type);
    s.binding = static_cast<SymbolBinding>(binding);
    if (shndx != 0 && shndx < 0xFF00) {
      if (shndx >= raw.size()) {
        throw v.fail(e, fmt::format("{} '{}': section index {} out of range ({} sections)", sym_what, s.name,
                                    shndx, raw.size()));
      }
      s.section = section_map[shndx];
    }
    image.symbols.push_back(std::move(s));
  }
}

Image parse(const ByteView& v) {
  check_identification(v);
  Image image;
  image.entry = v.read<uint64_t>(24, "e_entry");
  image.segments = read_segments(v);
  const std::vector<RawSection> raw = read_section_headers(v);
  if (raw.empty()) return image;
  const auto shstrndx = v.read<uint16_t>(62, "e_shstrndx");
  if (shstrndx == 0 || shstrndx >= raw.size() || raw[shstrndx].type != kSectionTypeStrTab) {
    throw v.fail(62, fmt::format("e_shstrndx {} is not a string table section", shstrndx));
  }
  const RawSection& names = raw[shstrndx];
  // Symbol and string tables are represented by Image::symbols, not sections.
  std::vector<int> section_map(raw.size(), -1);
  size_t symtab_index = 0;
  uint64_t copied_bytes = 0;
  for (size_t i = 1; i < raw.size(); ++i) {
    const RawSection& r = raw[i];
    std::string name = v.string_at(names.offset, names.size, r.name_index, fmt::format("section {}", i));
    if (r.type == kSectionTypeSymTab) {
      if (symtab_index != 0) throw v.fail(r.header_offset, "more than one .symtab");
      symtab_index = i;
      continue;
    }
    if (r.type == kSectionTypeStrTab) continue;
    if (r.type == kSectionTypeNull) throw v.fail(r.header_offset, fmt::format("section {} is SHT_NULL", i));
    Section s;
    s.name = std::move(name);
    s.kind = r.type == kSectionTypeProgBits ? SectionKind::kProgBits
             : r.type == kSectionTypeNoBits ? SectionKind::kNoBits
                                            : SectionKind::kOther;
    s.address = r.address;
    s.size_bytes = r.size;
    s.align_bytes = r.align == 0 ? 1 : r.align;
    s.alloc = (r.flags & kSectionFlagAlloc) != 0;
    s.write = (r.flags & kSectionFlagWrite) != 0;
    s.execute = (r.flags & kSectionFlagExec) != 0;
    if (s.kind != SectionKind::kNoBits) {
      // Section contents may legitimately share file bytes, but a crafted
      // file must not turn a small input into gigabytes of copies.
      copied_bytes += r.size;
      if (copied_bytes > 4 * v.size() + 65536) {
        throw v.fail(r.header_offset, fmt::format("section {} ({}): section contents total more than "
                                                  "4x the file size", i, s.name));
      }
      s.data = v.copy(r.offset, r.size, fmt::format("section {} ({})", i, s.name));
    }
    section_map[i] = static_cast<int>(image.sections.size());
    image.sections.push_back(std::move(s));
  }
  if (symtab_index != 0) read_symbols(v, raw, symtab_index, section_map, image);
  return image;
}

}  // namespace

const Symbol* Image::find_symbol(std::string_view name) const {
  for (const auto& s : symbols) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Result<Image> read_elf(std::span<const uint8_t> bytes, std::string_view origin) {
  try {
    return parse(ByteView(bytes, std::string(origin)));
  } catch (const Error& e) {
    return e;
  }
}

Result<Image> read_elf_file(const std::string& path) {
  std::vector<uint8_t> bytes;
  try {
    bytes = read_file_bytes(path);
  } catch (const Error& e) {
    return e;
  }
  return read_elf(bytes, path);
}

}  // namespace snr::elf
