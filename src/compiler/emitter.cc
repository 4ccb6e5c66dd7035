#include "compiler/emitter.h"

#include <fmt/format.h>

#include <bit>

#include "common/error.h"

namespace snr::compiler {

using isa::Opcode;

Emitter::Emitter() { builder_.label("_start", true); }

uint64_t Emitter::text_offset() {
  builder_.text_section();
  return builder_.offset();
}

void Emitter::begin_op(const std::string& name, const std::string& kind, uint64_t flops, uint64_t hbm_bytes,
                       std::string detail) {
  if (open_op_) throw Error(fmt::format("compiler: op {} begins inside op {}", name, ops_[*open_op_].name));
  builder_.text_section();
  builder_.label(name, true);
  EmittedOp op{name, kind, flops, hbm_bytes, 0, builder_.offset(), builder_.offset(), std::move(detail)};
  ops_.push_back(std::move(op));
  open_op_ = ops_.size() - 1;
}

void Emitter::end_op() {
  if (!open_op_) throw Error("compiler: end_op without an open op");
  ops_[*open_op_].text_end = text_offset();
  open_op_.reset();
}

EmittedOp& Emitter::current_op() {
  if (!open_op_) throw Error("compiler: no open op");
  return ops_[*open_op_];
}

void Emitter::mark(const std::string& suffix) {
  if (!open_op_) throw Error("compiler: mark outside an op");
  builder_.text_section();
  builder_.label(ops_[*open_op_].name + "." + suffix, false);
}

void Emitter::li(uint8_t rd, int64_t value) {
  builder_.text_section();
  builder_.li(rd, value);
  cached_[rd].reset();
}

void Emitter::stride(uint8_t rd, uint64_t value) {
  if (cached_[rd] && *cached_[rd] == value) return;
  builder_.text_section();
  builder_.li(rd, static_cast<int64_t>(value));
  cached_[rd] = value;
}

void Emitter::vld(uint8_t vd, uint64_t address, uint64_t stride_bytes) {
  li(reg::kAddr, static_cast<int64_t>(address));
  stride(reg::kStride, stride_bytes);
  emit({.opcode = Opcode::kVld, .rs1 = reg::kAddr, .rs2 = reg::kStride, .vd = vd});
}

void Emitter::vst(uint8_t vs, uint64_t address, uint64_t stride_bytes) {
  li(reg::kAddr, static_cast<int64_t>(address));
  stride(reg::kStride, stride_bytes);
  emit({.opcode = Opcode::kVst, .rs1 = reg::kAddr, .rs2 = reg::kStride, .vs1 = vs});
}

void Emitter::vop(Opcode op, uint8_t vd, uint8_t vs1, uint8_t vs2, uint8_t vs3) {
  emit({.opcode = op, .vd = vd, .vs1 = vs1, .vs2 = vs2, .vs3 = vs3});
}

void Emitter::vbcast_f32(uint8_t vd, float value) {
  vbcast_i32(vd, static_cast<int32_t>(std::bit_cast<uint32_t>(value)));
}

void Emitter::vbcast_i32(uint8_t vd, int32_t value) {
  li(reg::kScratch, value);
  emit({.opcode = Opcode::kVbcast, .rs1 = reg::kScratch, .vd = vd});
}

void Emitter::mxu_ldw(uint8_t mxu, uint64_t address) {
  li(reg::kAddr, static_cast<int64_t>(address));
  emit({.opcode = Opcode::kMxuLdw, .rs1 = reg::kAddr, .rs2 = 0, .mxu = mxu});
}

void Emitter::mxu_mul(uint8_t mxu, uint8_t vs) { emit({.opcode = Opcode::kMxuMul, .vs1 = vs, .mxu = mxu}); }

void Emitter::mxu_pop(uint8_t vd, uint8_t mxu) { emit({.opcode = Opcode::kMxuPop, .vd = vd, .mxu = mxu}); }

void Emitter::dma(uint64_t dst, uint64_t src, uint64_t bytes, uint8_t sem) {
  li(reg::kDmaDst, static_cast<int64_t>(dst));
  li(reg::kDmaSrc, static_cast<int64_t>(src));
  stride(reg::kDmaShape, bytes);
  dma_regs(reg::kDmaDst, reg::kDmaSrc, reg::kDmaShape, sem);
}

void Emitter::dma_staged(const uint8_t (&regs)[3], uint64_t dst, uint64_t src, uint64_t bytes, uint8_t sem) {
  li(regs[0], static_cast<int64_t>(dst));
  li(regs[1], static_cast<int64_t>(src));
  li(regs[2], static_cast<int64_t>(bytes));
  dma_regs(regs[0], regs[1], regs[2], sem);
}

void Emitter::dma_regs(uint8_t dst_reg, uint8_t src_reg, uint8_t bytes_reg, uint8_t sem) {
  emit({.opcode = Opcode::kDmaIssue, .rs1 = src_reg, .rs2 = dst_reg, .rs3 = bytes_reg, .sem = sem});
}

void Emitter::dma_2d(uint64_t dst, uint64_t src, uint64_t rows, uint64_t row_bytes, uint64_t src_stride,
                     uint64_t dst_stride, uint8_t sem) {
  li(reg::kDmaDst, static_cast<int64_t>(dst));
  li(reg::kDmaSrc, static_cast<int64_t>(src));
  stride(reg::kDmaShape, rows << 32 | row_bytes);
  stride(reg::kDmaStrides, src_stride << 32 | dst_stride);
  emit({.opcode = Opcode::kDmaIssue2d, .rs1 = reg::kDmaSrc, .rs2 = reg::kDmaDst, .rs3 = reg::kDmaShape, .sem = sem});
}

void Emitter::wait(uint8_t sem, uint32_t count) {
  if (count == 0) return;
  if (count > 4095) throw Error(fmt::format("compiler: wait for {} completions exceeds 4095", count));
  emit({.opcode = Opcode::kSemWait, .sem = sem, .imm = count});
}

void Emitter::load_u64(uint8_t rd, uint8_t base, int64_t offset) {
  emit({.opcode = Opcode::kLd, .rd = rd, .rs1 = base, .imm = offset});
  cached_[rd].reset();
}

void Emitter::exit_with(int64_t code) {
  li(reg::kExit, code);
  li(17, static_cast<int64_t>(isa::kSyscallExit));
  emit({.opcode = Opcode::kEcall});
}

uint64_t Emitter::data_label(const std::string& name, uint64_t bytes) {
  builder_.data_section();
  builder_.align(8);
  const uint64_t offset = builder_.offset();
  builder_.label(name);
  builder_.zero(bytes);
  data_bytes_ = builder_.offset();
  builder_.text_section();
  return offset;
}

}  // namespace snr::compiler

namespace snr::compiler {

void Emitter::loop_label(const std::string& name) {
  builder_.text_section();
  builder_.label(name);
  for (auto& c : cached_) c.reset();
}

void Emitter::branch_not_equal(uint8_t rs1, uint8_t rs2, const std::string& target) {
  builder_.text_section();
  builder_.branch(Opcode::kBne, rs1, rs2, target);
}

uint64_t Emitter::shared_data_label(const std::string& name, uint64_t bytes) {
  auto it = shared_labels_.find(name);
  if (it != shared_labels_.end()) return it->second;
  const uint64_t offset = data_label(name, bytes);
  shared_labels_.emplace(name, offset);
  return offset;
}

}  // namespace snr::compiler
