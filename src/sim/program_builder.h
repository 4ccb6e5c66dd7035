// Builds NPU programs instruction by instruction through the ISA encoder,
// with labels for branches. Used by the built-in demo and by tests that need
// exact, hand-countable instruction sequences.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "isa/isa.h"
#include "sim/program.h"

namespace snr::sim {

class ProgramBuilder {
 public:
  using Op = isa::Opcode;
  struct Label {
    size_t id;
  };

  // Any instruction: `fields.opcode` plus the operand fields its row names.
  // Throws snr::Error with the encoder's message when a field does not fit.
  void emit(const isa::DecodedInstruction& fields);

  void r(Op op, uint8_t rd, uint8_t rs1, uint8_t rs2);
  void i(Op op, uint8_t rd, uint8_t rs1, int64_t imm);  // also loads, shifts, jalr
  void s(Op op, uint8_t rs2, uint8_t rs1, int64_t imm);  // stores: MEM[rs1 + imm] = rs2
  void li(uint8_t rd, int64_t value);                     // any 64-bit constant
  void nop() { i(Op::kAddi, 0, 0, 0); }

  Label new_label();
  void bind(Label label);
  void branch(Op op, uint8_t rs1, uint8_t rs2, Label target);
  void jump(Label target);  // jal x0

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

  [[nodiscard]] size_t size() const { return words_.size(); }
  // Resolves labels; throws when a label was used but never bound.
  [[nodiscard]] ProgramImage build(uint64_t text_address, std::string name) const;

 private:
  struct Fixup {
    size_t index;
    size_t label;
    isa::DecodedInstruction fields;
  };
  std::vector<uint32_t> words_;
  std::vector<int64_t> label_positions_;
  std::vector<Fixup> fixups_;
};

}  // namespace snr::sim
