#include "sim/program_builder.h"

#include <fmt/format.h>

#include "common/error.h"

namespace snr::sim {
namespace {
isa::DecodedInstruction fields_of(isa::Opcode op) {
  isa::DecodedInstruction d;
  d.opcode = op;
  return d;
}
}  // namespace

void ProgramBuilder::emit(const isa::DecodedInstruction& fields) {
  words_.push_back(with_error_context(fmt::format("instruction {} of the program", words_.size()),
                                      [&] { return isa::encode(fields).value(); }));
}

void ProgramBuilder::r(Op op, uint8_t rd, uint8_t rs1, uint8_t rs2) {
  auto d = fields_of(op);
  d.rd = rd, d.rs1 = rs1, d.rs2 = rs2;
  emit(d);
}

void ProgramBuilder::i(Op op, uint8_t rd, uint8_t rs1, int64_t imm) {
  auto d = fields_of(op);
  d.rd = rd, d.rs1 = rs1, d.imm = imm;
  emit(d);
}

void ProgramBuilder::s(Op op, uint8_t rs2, uint8_t rs1, int64_t imm) {
  auto d = fields_of(op);
  d.rs2 = rs2, d.rs1 = rs1, d.imm = imm;
  emit(d);
}

void ProgramBuilder::li(uint8_t rd, int64_t value) {
  if (value >= INT32_MIN && value <= INT32_MAX) {
    const int64_t hi = (value + 0x800) >> 12;
    const int64_t lo = value - (hi << 12);
    if (hi == 0) {
      i(Op::kAddi, rd, 0, lo);
      return;
    }
    i(Op::kLui, rd, 0, hi & 0xfffff);
    if (lo != 0) i(Op::kAddiw, rd, rd, lo);
    return;
  }
  const int64_t lo = static_cast<int64_t>(static_cast<uint64_t>(value) << 52) >> 52;  // sign-extended low 12 bits
  const int64_t hi = static_cast<int64_t>(static_cast<uint64_t>(value) - static_cast<uint64_t>(lo)) >> 12;
  li(rd, hi);
  i(Op::kSlli, rd, rd, 12);
  if (lo != 0) i(Op::kAddi, rd, rd, lo);
}

ProgramBuilder::Label ProgramBuilder::new_label() {
  label_positions_.push_back(-1);
  return Label{label_positions_.size() - 1};
}

void ProgramBuilder::bind(Label label) { label_positions_[label.id] = static_cast<int64_t>(words_.size()); }

void ProgramBuilder::branch(Op op, uint8_t rs1, uint8_t rs2, Label target) {
  auto d = fields_of(op);
  d.rs1 = rs1, d.rs2 = rs2;
  fixups_.push_back({words_.size(), target.id, d});
  words_.push_back(0);
}

void ProgramBuilder::jump(Label target) {
  fixups_.push_back({words_.size(), target.id, fields_of(Op::kJal)});
  words_.push_back(0);
}

void ProgramBuilder::vector(Op op, uint8_t vd, uint8_t vs1, uint8_t vs2, uint8_t vs3) {
  auto d = fields_of(op);
  d.vd = vd, d.vs1 = vs1, d.vs2 = vs2, d.vs3 = vs3;
  emit(d);
}

void ProgramBuilder::vbcast(uint8_t vd, uint8_t rs1) {
  auto d = fields_of(Op::kVbcast);
  d.vd = vd, d.rs1 = rs1;
  emit(d);
}

void ProgramBuilder::vld(uint8_t vd, uint8_t base_rs1, uint8_t stride_rs2) {
  auto d = fields_of(Op::kVld);
  d.vd = vd, d.rs1 = base_rs1, d.rs2 = stride_rs2;
  emit(d);
}

void ProgramBuilder::vst(uint8_t vs, uint8_t base_rs1, uint8_t stride_rs2) {
  auto d = fields_of(Op::kVst);
  d.vs1 = vs, d.rs1 = base_rs1, d.rs2 = stride_rs2;
  emit(d);
}

void ProgramBuilder::mxu_ldw(uint8_t mxu, uint8_t base_rs1, uint8_t stride_rs2) {
  auto d = fields_of(Op::kMxuLdw);
  d.mxu = mxu, d.rs1 = base_rs1, d.rs2 = stride_rs2;
  emit(d);
}

void ProgramBuilder::mxu_mul(uint8_t mxu, uint8_t vs1) {
  auto d = fields_of(Op::kMxuMul);
  d.mxu = mxu, d.vs1 = vs1;
  emit(d);
}

void ProgramBuilder::mxu_pop(uint8_t vd, uint8_t mxu) {
  auto d = fields_of(Op::kMxuPop);
  d.vd = vd, d.mxu = mxu;
  emit(d);
}

void ProgramBuilder::dma(uint8_t dst_rs2, uint8_t src_rs1, uint8_t bytes_rs3, uint8_t semaphore) {
  auto d = fields_of(Op::kDmaIssue);
  d.rs2 = dst_rs2, d.rs1 = src_rs1, d.rs3 = bytes_rs3, d.sem = semaphore;
  emit(d);
}

void ProgramBuilder::sem_signal(uint8_t semaphore, uint32_t amount) {
  auto d = fields_of(Op::kSemSignal);
  d.sem = semaphore, d.imm = amount;
  emit(d);
}

void ProgramBuilder::sem_signal_remote(uint8_t semaphore, uint8_t chip_rs1, uint32_t amount) {
  auto d = fields_of(Op::kSemSignalRemote);
  d.sem = semaphore, d.rs1 = chip_rs1, d.imm = amount;
  emit(d);
}

void ProgramBuilder::sem_wait(uint8_t semaphore, uint32_t amount) {
  auto d = fields_of(Op::kSemWait);
  d.sem = semaphore, d.imm = amount;
  emit(d);
}

void ProgramBuilder::csr_read(uint8_t rd, uint16_t csr) {
  auto d = fields_of(Op::kCsrrs);
  d.rd = rd, d.csr = csr, d.rs1 = 0;
  emit(d);
}

void ProgramBuilder::exit(uint8_t code_register) {
  i(Op::kAddi, 10, code_register, 0);
  li(17, static_cast<int64_t>(isa::kSyscallExit));
  emit(fields_of(Op::kEcall));
}

void ProgramBuilder::write_console(uint8_t buffer_register, uint8_t length_register) {
  i(Op::kAddi, 11, buffer_register, 0);
  i(Op::kAddi, 12, length_register, 0);
  li(10, 1);
  li(17, static_cast<int64_t>(isa::kSyscallWrite));
  emit(fields_of(Op::kEcall));
}

ProgramImage ProgramBuilder::build(uint64_t text_address, std::string name) const {
  std::vector<uint32_t> words = words_;
  for (const Fixup& fixup : fixups_) {
    const int64_t target = label_positions_[fixup.label];
    if (target < 0) throw Error(fmt::format("{}: label {} used but never bound", name, fixup.label));
    isa::DecodedInstruction d = fixup.fields;
    d.imm = (target - static_cast<int64_t>(fixup.index)) * 4;
    words[fixup.index] = with_error_context(fmt::format("{}: branch at instruction {}", name, fixup.index),
                                            [&] { return isa::encode(d).value(); });
  }
  return program_from_words(words, text_address, std::move(name));
}

}  // namespace snr::sim
