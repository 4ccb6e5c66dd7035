// Straight-line NPU code emission for the lowering passes: a thin layer over
// assembler::ProgramBuilder that knows the register conventions of
// compiled code, keeps scalar constants (strides) cached in registers, and
// records which instructions belong to which op, so every op gets an ELF
// symbol and the PC->op map can annotate every instruction.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "asm/program_builder.h"

namespace snr::compiler {

// Scalar register conventions of compiled code.
namespace reg {
constexpr uint8_t kAddr = 5;      // t0: vector load/store and weight-load address
constexpr uint8_t kDmaDst = 6;    // t1
constexpr uint8_t kDmaSrc = 7;    // t2
constexpr uint8_t kDmaShape = 28; // t3: bytes (1-D) or rows<<32|row_bytes (2-D)
constexpr uint8_t kDmaStrides = 29;  // t4: src_stride<<32|dst_stride (2-D, must be kDmaShape + 1)
constexpr uint8_t kStride = 9;    // s1: cached row stride of vector loads/stores
constexpr uint8_t kStride2 = 8;   // s0: second cached stride
constexpr uint8_t kScratch = 31;  // t6: constants for vbcast
constexpr uint8_t kTable = 18;    // s2: base of a collective's address tables
constexpr uint8_t kChain = 19;    // s3: address loaded by a setup-phase chain
constexpr uint8_t kTable2 = 20;   // s4
constexpr uint8_t kTable3 = 21;   // s5
constexpr uint8_t kLoopA = 22;    // s6: loop pointers
constexpr uint8_t kLoopB = 23;    // s7
constexpr uint8_t kLoopEnd = 24;  // s8
constexpr uint8_t kExit = 10;     // a0
// The all-gather setup phase: each chain has its own registers (and its
// own semaphore, lowering.h), so reordering the chains' instructions
// crosses no register dependency. Chain 0 uses kDmaDst/kDmaSrc/kDmaShape.
constexpr uint8_t kSetupChain[3][3] = {{kDmaDst, kDmaSrc, kDmaShape},  // {dst, src, bytes}
                                       {11, 12, 13},                   // a1-a3
                                       {14, 15, 16}};                  // a4-a6
// K/V staging DMAs (attention): keys use kStageK, values kStageV, each
// {dst, src, bytes}. They are written only by the li's right before such a
// dma.issue and read only by it, so they are dead everywhere else and an
// ISSUE can move earlier together with its li's; keys and values use
// different registers so neither blocks the other. kStageV is shared with
// the residual-add loops (kLoopA..kLoopEnd), which never run inside
// attention.
constexpr uint8_t kStageK[3] = {25, 26, 27};  // s9-s11
constexpr uint8_t kStageV[3] = {22, 23, 24};  // s6-s8
}  // namespace reg

// One lowered op: a contiguous range of the text.
struct EmittedOp {
  std::string name;   // "layer3.attn.qkv_matmul"; also its ELF symbol
  std::string kind;   // "matmul", "rmsnorm", "all_gather", ...
  uint64_t flops = 0;       // per chip
  uint64_t hbm_bytes = 0;   // per chip, read + written
  uint64_t network_bytes = 0;  // per chip, sent to other chips
  uint64_t text_begin = 0;  // byte offsets in .text
  uint64_t text_end = 0;
  std::string detail;       // shapes, for people
};

class Emitter {
 public:
  Emitter();

  void begin_op(const std::string& name, const std::string& kind, uint64_t flops, uint64_t hbm_bytes,
                std::string detail);
  void end_op();
  // Marks a sub-range inside the current op (e.g. the all-gather's setup
  // phase): gets its own symbol "op.part" but stays part of the op.
  void mark(const std::string& suffix);

  void emit(const isa::DecodedInstruction& fields) { builder_.emit(fields); }
  void li(uint8_t rd, int64_t value);
  // Sets a cached stride register; emits nothing when it already holds it.
  void stride(uint8_t rd, uint64_t value);

  void vld(uint8_t vd, uint64_t address, uint64_t stride_bytes);
  void vst(uint8_t vs, uint64_t address, uint64_t stride_bytes);
  void vop(isa::Opcode op, uint8_t vd, uint8_t vs1, uint8_t vs2 = 0, uint8_t vs3 = 0);
  void vbcast_f32(uint8_t vd, float value);
  void vbcast_i32(uint8_t vd, int32_t value);
  void mxu_ldw(uint8_t mxu, uint64_t address);
  void mxu_mul(uint8_t mxu, uint8_t vs);
  void mxu_pop(uint8_t vd, uint8_t mxu);
  // 1-D copy of `bytes` between global addresses; +1 on `sem` when done.
  void dma(uint64_t dst, uint64_t src, uint64_t bytes, uint8_t sem);
  // 1-D copy whose operands are all set right before the ISSUE (no cached
  // constants) in `regs` = {dst, src, bytes}: the ISSUE and its address
  // computation form a self-contained group a scheduler can hoist.
  void dma_staged(const uint8_t (&regs)[3], uint64_t dst, uint64_t src, uint64_t bytes, uint8_t sem);
  // 1-D copy with operands already in registers.
  void dma_regs(uint8_t dst_reg, uint8_t src_reg, uint8_t bytes_reg, uint8_t sem);
  void dma_2d(uint64_t dst, uint64_t src, uint64_t rows, uint64_t row_bytes, uint64_t src_stride,
              uint64_t dst_stride, uint8_t sem);
  void wait(uint8_t sem, uint32_t count);
  void load_u64(uint8_t rd, uint8_t base, int64_t offset);
  void la(uint8_t rd, const std::string& label) { builder_.la(rd, label); }
  // A branch target inside the current op; forgets cached constants, since
  // control may arrive from elsewhere.
  void loop_label(const std::string& name);
  void branch_not_equal(uint8_t rs1, uint8_t rs2, const std::string& target);
  void exit_with(int64_t code);

  // .data (SMEM): per-chip tables. Returns the offset within .data.
  uint64_t data_label(const std::string& name, uint64_t bytes);
  // The same, once: later calls with the same name return the first offset.
  uint64_t shared_data_label(const std::string& name, uint64_t bytes);
  [[nodiscard]] uint64_t data_bytes() const { return data_bytes_; }

  [[nodiscard]] uint64_t text_offset();
  // The op between begin_op and end_op; throws when none is open.
  EmittedOp& current_op();
  [[nodiscard]] const std::vector<EmittedOp>& ops() const { return ops_; }
  [[nodiscard]] uint64_t instruction_count() { return text_offset() / 4; }
  assembler::ProgramBuilder& builder() { return builder_; }

 private:
  assembler::ProgramBuilder builder_;
  std::vector<EmittedOp> ops_;
  std::optional<size_t> open_op_;
  std::optional<uint64_t> cached_[32];
  uint64_t data_bytes_ = 0;
  std::map<std::string, uint64_t> shared_labels_;
};

}  // namespace snr::compiler
