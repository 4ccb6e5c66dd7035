// ELF64 writer: header, one PT_LOAD per allocated section, section
// contents, .symtab/.strtab/.shstrtab and the section header table.
#include <fmt/format.h>

#include "common/error.h"
#include "elf/elf.h"
#include "elf/elf_constants.h"

namespace snr::elf {
namespace {

class ByteSink {
 public:
  void u8(uint8_t v) { bytes_.push_back(v); }
  void u16(uint16_t v) { put(v, 2); }
  void u32(uint32_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void append(const std::vector<uint8_t>& data) { bytes_.insert(bytes_.end(), data.begin(), data.end()); }
  void pad_to(uint64_t offset) { bytes_.resize(std::max<uint64_t>(bytes_.size(), offset), 0); }
  void align(uint64_t alignment) { pad_to((bytes_.size() + alignment - 1) / alignment * alignment); }
  [[nodiscard]] uint64_t size() const { return bytes_.size(); }
  std::vector<uint8_t> take() { return std::move(bytes_); }
  void patch_u64(uint64_t offset, uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes_[offset + static_cast<uint64_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
  }

 private:
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t> bytes_;
};

class StringTable {
 public:
  StringTable() { data_.push_back(0); }
  uint32_t add(const std::string& s) {
    if (s.empty()) return 0;
    const auto offset = static_cast<uint32_t>(data_.size());
    data_.insert(data_.end(), s.begin(), s.end());
    data_.push_back(0);
    return offset;
  }
  [[nodiscard]] const std::vector<uint8_t>& bytes() const { return data_; }

 private:
  std::vector<uint8_t> data_;
};

struct SectionHeader {
  uint32_t name = 0, type = 0;
  uint64_t flags = 0, address = 0, offset = 0, size = 0;
  uint32_t link = 0, info = 0;
  uint64_t align = 0, entry_size = 0;
};

void validate(const Image& image) {
  for (size_t i = 0; i < image.sections.size(); ++i) {
    const Section& a = image.sections[i];
    if (a.kind != SectionKind::kNoBits && a.data.size() != a.size_bytes) {
      throw Error(fmt::format("write_elf: section {} has {} data bytes but size {}", a.name, a.data.size(), a.size_bytes));
    }
    if (!a.alloc || a.size_bytes == 0) continue;
    for (size_t j = 0; j < i; ++j) {
      const Section& b = image.sections[j];
      if (!b.alloc || b.size_bytes == 0) continue;
      if (a.address < b.address + b.size_bytes && b.address < a.address + a.size_bytes) {
        throw Error(fmt::format("write_elf: section {} [{:#x}, {:#x}) overlaps {} [{:#x}, {:#x})", a.name, a.address,
                                a.address + a.size_bytes, b.name, b.address, b.address + b.size_bytes));
      }
    }
  }
  for (const Symbol& s : image.symbols) {
    if (s.section >= static_cast<int>(image.sections.size())) {
      throw Error(fmt::format("write_elf: symbol {} names section {} of {}", s.name, s.section, image.sections.size()));
    }
  }
}

uint32_t segment_flags(const Section& s) {
  return kSegmentRead | (s.write ? kSegmentWrite : 0u) | (s.execute ? kSegmentExecute : 0u);
}

}  // namespace

std::vector<uint8_t> write_elf(const Image& image) {
  validate(image);
  std::vector<size_t> loadable;
  for (size_t i = 0; i < image.sections.size(); ++i) {
    if (image.sections[i].alloc && image.sections[i].size_bytes > 0) loadable.push_back(i);
  }

  ByteSink out;
  // ELF header; e_shoff is patched once the section table's place is known.
  const uint8_t ident[16] = {0x7F, 'E', 'L', 'F', kElfClass64, kElfDataLittle, 1, 0};
  for (uint8_t b : ident) out.u8(b);
  out.u16(kElfTypeExec);
  out.u16(kMachineRiscv);
  out.u32(1);
  out.u64(image.entry);
  out.u64(loadable.empty() ? 0 : kElfHeaderBytes);
  const uint64_t shoff_field = out.size();
  out.u64(0);
  out.u32(0);  // e_flags: no compressed instructions, soft-float ABI (lp64)
  out.u16(kElfHeaderBytes);
  out.u16(kProgramHeaderBytes);
  out.u16(static_cast<uint16_t>(loadable.size()));
  out.u16(kSectionHeaderBytes);
  // null + sections + .symtab + .strtab + .shstrtab
  const auto section_count = static_cast<uint16_t>(image.sections.size() + 4);
  out.u16(section_count);
  out.u16(static_cast<uint16_t>(section_count - 1));

  // Section contents placed after the program headers, page-congruent for
  // allocated sections.
  uint64_t cursor = kElfHeaderBytes + kProgramHeaderBytes * loadable.size();
  std::vector<uint64_t> offsets(image.sections.size(), 0);
  for (size_t i = 0; i < image.sections.size(); ++i) {
    const Section& s = image.sections[i];
    if (s.kind == SectionKind::kNoBits) {
      offsets[i] = cursor;
      continue;
    }
    if (s.alloc) {
      const uint64_t want = s.address % kPageBytes;
      const uint64_t base = cursor - cursor % kPageBytes;
      offsets[i] = base + want >= cursor ? base + want : base + kPageBytes + want;
    } else {
      offsets[i] = cursor;
    }
    cursor = offsets[i] + s.size_bytes;
  }

  for (size_t i : loadable) {
    const Section& s = image.sections[i];
    out.u32(kProgramTypeLoad);
    out.u32(segment_flags(s));
    out.u64(offsets[i]);
    out.u64(s.address);
    out.u64(s.address);
    out.u64(s.kind == SectionKind::kNoBits ? 0 : s.size_bytes);
    out.u64(s.size_bytes);
    out.u64(s.alloc ? kPageBytes : 1);
  }
  for (size_t i = 0; i < image.sections.size(); ++i) {
    if (image.sections[i].kind == SectionKind::kNoBits) continue;
    out.pad_to(offsets[i]);
    out.append(image.sections[i].data);
  }

  // Symbol table: null symbol, then locals, then globals (sh_info = first global).
  StringTable strtab;
  ByteSink symtab;
  for (int i = 0; i < 24; ++i) symtab.u8(0);
  uint32_t symbol_count = 1, first_global = 0;
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) first_global = symbol_count;
    for (const Symbol& s : image.symbols) {
      if ((s.binding == SymbolBinding::kLocal) != (pass == 0)) continue;
      symtab.u32(strtab.add(s.name));
      symtab.u8(static_cast<uint8_t>((static_cast<unsigned>(s.binding) << 4) | static_cast<unsigned>(s.type)));
      symtab.u8(0);
      symtab.u16(s.section < 0 ? kSectionIndexAbs : static_cast<uint16_t>(s.section + 1));
      symtab.u64(s.value);
      symtab.u64(s.size_bytes);
      ++symbol_count;
    }
  }

  StringTable shstrtab;
  std::vector<SectionHeader> headers(1);
  for (size_t i = 0; i < image.sections.size(); ++i) {
    const Section& s = image.sections[i];
    SectionHeader h;
    h.name = shstrtab.add(s.name);
    h.type = s.kind == SectionKind::kNoBits ? kSectionTypeNoBits : kSectionTypeProgBits;
    h.flags = (s.alloc ? kSectionFlagAlloc : 0) | (s.write ? kSectionFlagWrite : 0) | (s.execute ? kSectionFlagExec : 0);
    h.address = s.address;
    h.offset = offsets[i];
    h.size = s.size_bytes;
    h.align = s.align_bytes;
    headers.push_back(h);
  }
  const auto symtab_index = static_cast<uint32_t>(headers.size());
  out.align(8);
  headers.push_back({shstrtab.add(".symtab"), kSectionTypeSymTab, 0, 0, out.size(), symtab.size(),
                     symtab_index + 1, first_global, 8, kSymbolBytes});
  out.append(symtab.take());
  headers.push_back({shstrtab.add(".strtab"), kSectionTypeStrTab, 0, 0, out.size(), strtab.bytes().size(), 0, 0, 1, 0});
  out.append(strtab.bytes());
  const uint32_t shstrtab_name = shstrtab.add(".shstrtab");
  headers.push_back({shstrtab_name, kSectionTypeStrTab, 0, 0, out.size(), shstrtab.bytes().size(), 0, 0, 1, 0});
  out.append(shstrtab.bytes());

  out.align(8);
  out.patch_u64(shoff_field, out.size());
  for (const SectionHeader& h : headers) {
    out.u32(h.name);
    out.u32(h.type);
    out.u64(h.flags);
    out.u64(h.address);
    out.u64(h.offset);
    out.u64(h.size);
    out.u32(h.link);
    out.u32(h.info);
    out.u64(h.align);
    out.u64(h.entry_size);
  }
  return out.take();
}

}  // namespace snr::elf
