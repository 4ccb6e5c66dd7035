// Building programs in C++ without assembly text: the compiler, the
// built-in demo and the tests that need exact, hand-countable instruction
// sequences use this.
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
// Hand-built code may use anonymous labels instead (new_label/bind); they
// resolve like named ones but are not symbols. sim::program_from_builder
// turns a builder into a simulator program image.
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
  using Op = isa::Opcode;
  struct Label {
    size_t id;
  };

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
  // The same expansion as the assembler's `li` (li_sequence).
  void li(uint8_t rd, int64_t value);
  void la(uint8_t rd, const std::string& target);

  // Anonymous labels.
  Label new_label();
  void bind(Label label);
  void branch(Op opcode, uint8_t rs1, uint8_t rs2, Label target);
  void jump(Label target);  // jal x0

  // One instruction by format, operands in assembly order.
  void r(Op op, uint8_t rd, uint8_t rs1, uint8_t rs2);
  void i(Op op, uint8_t rd, uint8_t rs1, int64_t imm);  // also loads, shifts, jalr
  void s(Op op, uint8_t rs2, uint8_t rs1, int64_t imm);  // stores: MEM[rs1 + imm] = rs2
  void nop() { i(Op::kAddi, 0, 0, 0); }

  // Accelerator instructions (operand order as in the assembly syntax).
  void vector(Op op, uint8_t vd, uint8_t vs1, uint8_t vs2 = 0, uint8_t vs3 = 0);
  void vbcast(uint8_t vd, uint8_t rs1);
  void vld(uint8_t vd, uint8_t base_rs1, uint8_t stride_rs2);
  void vst(uint8_t vs, uint8_t base_rs1, uint8_t stride_rs2);
  void mxu_ldw(uint8_t mxu, uint8_t base_rs1, uint8_t stride_rs2);
  void mxu_mul(uint8_t mxu, uint8_t vs1);
  void mxu_pop(uint8_t vd, uint8_t mxu);
  void dma(uint8_t dst_rs2, uint8_t src_rs1, uint8_t bytes_rs3, uint8_t semaphore);
  void sem_signal(uint8_t semaphore, uint32_t amount);
  void sem_signal_remote(uint8_t semaphore, uint8_t chip_rs1, uint32_t amount);
  void sem_wait(uint8_t semaphore, uint32_t amount);
  void csr_read(uint8_t rd, uint16_t csr);
  void exit(uint8_t code_register);  // ecall exit with a0 = x[code_register]
  void write_console(uint8_t buffer_register, uint8_t length_register);  // ecall write to fd 1

  void bytes(std::span<const uint8_t> data);
  void u32(uint32_t value);
  void u64(uint64_t value);
  void zero(uint64_t count_bytes);
  void align(uint64_t alignment_bytes);

  // Current address of the next byte in the current section's final layout
  // is only known at build(); this is the offset within the section.
  [[nodiscard]] uint64_t offset() const { return sections_[current_].bytes.size(); }
  // Instructions (4-byte words) in .text so far.
  [[nodiscard]] size_t size() const { return sections_[0].bytes.size() / 4; }

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
  struct DefinedLabel {
    std::string name;
    size_t section;
    uint64_t offset;
    bool global;
    bool anonymous = false;  // new_label(): resolved, never a symbol
  };

  void put_word(uint32_t word);

  uint64_t text_base_;
  size_t current_ = 0;
  std::vector<Section> sections_;
  std::vector<DefinedLabel> labels_;
  std::vector<Fixup> fixups_;
  size_t anonymous_labels_ = 0;
  std::vector<std::string> errors_;  // reported by build()
};

}  // namespace snr::assembler
