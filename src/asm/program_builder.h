// Building programs in C++ without assembly text (the compiler and the
// simulator's tests use this):
//
//   ProgramBuilder b;
//   b.label("_start", /*global=*/true);
//   b.li(10, 0);                                          // a0 = 0
//   b.label("loop");
//   b.emit({.opcode = Opcode::kAddi, .rd = 10, .rs1 = 10, .imm = 1});
//   b.branch(Opcode::kBne, 10, 11, "loop");
//   b.data_section();
//   b.label("table");
//   b.u64(42);
//   elf::Image image = b.build().value();
//
// Layout and symbols follow the assembler's rules (assembler.h): .text at
// text_base, .data at the next 4 KiB boundary, labels typed FUNC/OBJECT and
// sized up to the next label.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "elf/elf.h"
#include "isa/address_map.h"
#include "isa/isa.h"

namespace snr::assembler {

class ProgramBuilder {
 public:
  explicit ProgramBuilder(uint64_t text_base = isa::kDefaultTextBase);

  void text_section() { current_ = 0; }
  void data_section() { current_ = 1; }

  // Defines `name` at the current position (an error at build() if repeated).
  void label(const std::string& name, bool global = false);

  // Any table instruction with explicit fields (branch/jump imm = offset).
  void emit(const isa::DecodedInstruction& fields);
  // B-type branch or jal/auipc-pair to a label resolved at build().
  void branch(isa::Opcode opcode, uint8_t rs1, uint8_t rs2, const std::string& target);
  void jump(const std::string& target, uint8_t rd = 0);
  // rd = constant (lui/addi(w)/slli sequence) / rd = address of label.
  void li(uint8_t rd, int64_t value);
  void la(uint8_t rd, const std::string& target);

  void bytes(std::span<const uint8_t> data);
  void u32(uint32_t value);
  void u64(uint64_t value);
  void zero(uint64_t count_bytes);
  void align(uint64_t alignment_bytes);

  // Current address of the next byte in the current section's final layout
  // is only known at build(); this is the offset within the section.
  [[nodiscard]] uint64_t offset() const { return sections_[current_].bytes.size(); }

  Result<elf::Image> build() const;

 private:
  enum class FixupKind : uint8_t { kBranch, kJal, kPcRelPair };
  struct Fixup {
    FixupKind kind;
    size_t section;
    uint64_t offset;
    isa::DecodedInstruction fields;  // template; imm filled at build()
    std::string target;
  };
  struct Section {
    std::string name;
    std::vector<uint8_t> bytes;
    uint64_t align_bytes = 4;
  };
  struct Label {
    std::string name;
    size_t section;
    uint64_t offset;
    bool global;
  };

  void put_word(uint32_t word);

  uint64_t text_base_;
  size_t current_ = 0;
  std::vector<Section> sections_;
  std::vector<Label> labels_;
  std::vector<Fixup> fixups_;
  std::vector<std::string> errors_;  // reported by build()
};

}  // namespace snr::assembler
