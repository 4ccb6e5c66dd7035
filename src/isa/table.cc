// The instruction table: the single source of truth for the NPU ISA.
// Scalar rows follow the RISC-V unprivileged spec (RV64I, M, Zicsr,
// Zifencei); accelerator rows define the custom-0..3 extension documented
// in docs/npu.md. Row order is part of the ISA hash: append, don't reorder.
#include <algorithm>
#include <array>

#include "common/error.h"
#include "common/hash.h"
#include "isa/isa.h"

namespace snr::isa {
namespace {

using O = OperandKind;
using L = LatencyClass;
using E = Effect;
using Ops = std::array<OperandKind, 4>;

constexpr uint32_t kLoad = 0x03, kMiscMem = 0x0F, kOpImm = 0x13, kAuipc = 0x17, kOpImm32 = 0x1B,
                   kStore = 0x23, kOp = 0x33, kLui = 0x37, kOp32 = 0x3B, kBranch = 0x63,
                   kJalr = 0x67, kJal = 0x6F, kSystem = 0x73;

constexpr uint32_t kMaskOpcode = 0x7F;
constexpr uint32_t kMaskF3 = 0x707F;          // opcode + funct3
constexpr uint32_t kMaskF7 = 0xFE00707F;      // + funct7
constexpr uint32_t kMaskF6 = 0xFC00707F;      // + funct6 (RV64 shifts)
constexpr uint32_t kMaskF7Rs2 = 0xFFF0707F;   // + funct7 + rs2 = 0
constexpr uint32_t kMaskF7Rs1Rs2 = 0xFFFFF07F;  // + funct7 + rs1 = rs2 = 0
constexpr uint32_t kMaskF2 = 0x0600707F;      // R4: opcode + funct3 + funct2
constexpr uint32_t kMaskAll = 0xFFFFFFFF;

constexpr uint32_t f3(uint32_t v) { return v << 12; }
constexpr uint32_t f7(uint32_t v) { return v << 25; }
constexpr uint32_t f2(uint32_t v) { return v << 25; }

constexpr InstructionRow row(Opcode op, std::string_view mnemonic, uint32_t match, uint32_t mask,
                             Ops operands, Unit unit, LatencyClass latency, Effect effect,
                             std::string_view summary, uint8_t mem_bytes = 0,
                             bool mem_signed = false) {
  return InstructionRow{op,   mnemonic, match,     mask,       operands,
                        unit, latency,  effect,    mem_bytes,  mem_signed, summary};
}

// Scalar helpers.
constexpr InstructionRow alu_r(Opcode op, std::string_view mn, uint32_t opc, uint32_t funct3,
                               uint32_t funct7, L latency, std::string_view summary) {
  return row(op, mn, opc | f3(funct3) | f7(funct7), kMaskF7, {O::kRd, O::kRs1, O::kRs2, O::kNone},
             Unit::kScalar, latency, E::kNone, summary);
}
constexpr InstructionRow alu_i(Opcode op, std::string_view mn, uint32_t opc, uint32_t funct3,
                               std::string_view summary) {
  return row(op, mn, opc | f3(funct3), kMaskF3, {O::kRd, O::kRs1, O::kImmI, O::kNone},
             Unit::kScalar, L::kScalarAlu, E::kNone, summary);
}
constexpr InstructionRow shift6(Opcode op, std::string_view mn, uint32_t funct3, uint32_t funct6,
                                std::string_view summary) {
  return row(op, mn, kOpImm | f3(funct3) | (funct6 << 26), kMaskF6,
             {O::kRd, O::kRs1, O::kShamt6, O::kNone}, Unit::kScalar, L::kScalarAlu, E::kNone,
             summary);
}
constexpr InstructionRow shift5(Opcode op, std::string_view mn, uint32_t funct3, uint32_t funct7,
                                std::string_view summary) {
  return row(op, mn, kOpImm32 | f3(funct3) | f7(funct7), kMaskF7,
             {O::kRd, O::kRs1, O::kShamt5, O::kNone}, Unit::kScalar, L::kScalarAlu, E::kNone,
             summary);
}
constexpr InstructionRow branch(Opcode op, std::string_view mn, uint32_t funct3,
                                std::string_view summary) {
  return row(op, mn, kBranch | f3(funct3), kMaskF3, {O::kRs1, O::kRs2, O::kImmB, O::kNone},
             Unit::kScalar, L::kBranch, E::kControl, summary);
}
constexpr InstructionRow load(Opcode op, std::string_view mn, uint32_t funct3, uint8_t bytes,
                              bool is_signed, std::string_view summary) {
  return row(op, mn, kLoad | f3(funct3), kMaskF3, {O::kRd, O::kMemI, O::kNone, O::kNone},
             Unit::kScalar, L::kScalarLoadStore, E::kLoad, summary, bytes, is_signed);
}
constexpr InstructionRow store(Opcode op, std::string_view mn, uint32_t funct3, uint8_t bytes,
                               std::string_view summary) {
  return row(op, mn, kStore | f3(funct3), kMaskF3, {O::kRs2, O::kMemS, O::kNone, O::kNone},
             Unit::kScalar, L::kScalarLoadStore, E::kStore, summary, bytes);
}
constexpr InstructionRow csr_r(Opcode op, std::string_view mn, uint32_t funct3,
                               std::string_view summary) {
  return row(op, mn, kSystem | f3(funct3), kMaskF3, {O::kRd, O::kCsr, O::kRs1, O::kNone},
             Unit::kScalar, L::kCsr, E::kCsrAccess, summary);
}
constexpr InstructionRow csr_i(Opcode op, std::string_view mn, uint32_t funct3,
                               std::string_view summary) {
  return row(op, mn, kSystem | f3(funct3), kMaskF3, {O::kRd, O::kCsr, O::kZimm, O::kNone},
             Unit::kScalar, L::kCsr, E::kCsrAccess, summary);
}

// Accelerator helpers.
constexpr InstructionRow vbin(Opcode op, std::string_view mn, uint32_t funct7,
                              std::string_view summary) {
  return row(op, mn, kOpcodeCustom0 | f3(0) | f7(funct7), kMaskF7,
             {O::kVd, O::kVs1, O::kVs2, O::kNone}, Unit::kVector, L::kVectorAlu, E::kNone, summary);
}
constexpr InstructionRow vun(Opcode op, std::string_view mn, uint32_t funct7, L latency,
                             std::string_view summary) {
  return row(op, mn, kOpcodeCustom0 | f3(1) | f7(funct7), kMaskF7Rs2,
             {O::kVd, O::kVs1, O::kNone, O::kNone}, Unit::kVector, latency, E::kNone, summary);
}

constexpr auto kTable = std::to_array<InstructionRow>({
    // ---- RV64I ----
    row(Opcode::kLui, "lui", kLui, kMaskOpcode, {O::kRd, O::kImmU}, Unit::kScalar, L::kScalarAlu,
        E::kNone, "rd = imm << 12 (sign-extended)"),
    row(Opcode::kAuipc, "auipc", kAuipc, kMaskOpcode, {O::kRd, O::kImmU}, Unit::kScalar,
        L::kScalarAlu, E::kPcRead, "rd = pc + (imm << 12)"),
    row(Opcode::kJal, "jal", kJal, kMaskOpcode, {O::kRd, O::kImmJ}, Unit::kScalar, L::kBranch,
        E::kControl, "rd = pc + 4; pc = target"),
    row(Opcode::kJalr, "jalr", kJalr, kMaskF3, {O::kRd, O::kMemI}, Unit::kScalar, L::kBranch,
        E::kControl, "rd = pc + 4; pc = (rs1 + imm) & ~1"),
    branch(Opcode::kBeq, "beq", 0, "branch if rs1 == rs2"),
    branch(Opcode::kBne, "bne", 1, "branch if rs1 != rs2"),
    branch(Opcode::kBlt, "blt", 4, "branch if rs1 < rs2 (signed)"),
    branch(Opcode::kBge, "bge", 5, "branch if rs1 >= rs2 (signed)"),
    branch(Opcode::kBltu, "bltu", 6, "branch if rs1 < rs2 (unsigned)"),
    branch(Opcode::kBgeu, "bgeu", 7, "branch if rs1 >= rs2 (unsigned)"),
    load(Opcode::kLb, "lb", 0, 1, true, "load 8-bit, sign-extend"),
    load(Opcode::kLh, "lh", 1, 2, true, "load 16-bit, sign-extend"),
    load(Opcode::kLw, "lw", 2, 4, true, "load 32-bit, sign-extend"),
    load(Opcode::kLd, "ld", 3, 8, true, "load 64-bit"),
    load(Opcode::kLbu, "lbu", 4, 1, false, "load 8-bit, zero-extend"),
    load(Opcode::kLhu, "lhu", 5, 2, false, "load 16-bit, zero-extend"),
    load(Opcode::kLwu, "lwu", 6, 4, false, "load 32-bit, zero-extend"),
    store(Opcode::kSb, "sb", 0, 1, "store low 8 bits"),
    store(Opcode::kSh, "sh", 1, 2, "store low 16 bits"),
    store(Opcode::kSw, "sw", 2, 4, "store low 32 bits"),
    store(Opcode::kSd, "sd", 3, 8, "store 64 bits"),
    alu_i(Opcode::kAddi, "addi", kOpImm, 0, "rd = rs1 + imm"),
    alu_i(Opcode::kSlti, "slti", kOpImm, 2, "rd = rs1 < imm (signed)"),
    alu_i(Opcode::kSltiu, "sltiu", kOpImm, 3, "rd = rs1 < imm (unsigned)"),
    alu_i(Opcode::kXori, "xori", kOpImm, 4, "rd = rs1 ^ imm"),
    alu_i(Opcode::kOri, "ori", kOpImm, 6, "rd = rs1 | imm"),
    alu_i(Opcode::kAndi, "andi", kOpImm, 7, "rd = rs1 & imm"),
    shift6(Opcode::kSlli, "slli", 1, 0x00, "rd = rs1 << shamt"),
    shift6(Opcode::kSrli, "srli", 5, 0x00, "rd = rs1 >> shamt (logical)"),
    shift6(Opcode::kSrai, "srai", 5, 0x10, "rd = rs1 >> shamt (arithmetic)"),
    alu_r(Opcode::kAdd, "add", kOp, 0, 0x00, L::kScalarAlu, "rd = rs1 + rs2"),
    alu_r(Opcode::kSub, "sub", kOp, 0, 0x20, L::kScalarAlu, "rd = rs1 - rs2"),
    alu_r(Opcode::kSll, "sll", kOp, 1, 0x00, L::kScalarAlu, "rd = rs1 << rs2[5:0]"),
    alu_r(Opcode::kSlt, "slt", kOp, 2, 0x00, L::kScalarAlu, "rd = rs1 < rs2 (signed)"),
    alu_r(Opcode::kSltu, "sltu", kOp, 3, 0x00, L::kScalarAlu, "rd = rs1 < rs2 (unsigned)"),
    alu_r(Opcode::kXor, "xor", kOp, 4, 0x00, L::kScalarAlu, "rd = rs1 ^ rs2"),
    alu_r(Opcode::kSrl, "srl", kOp, 5, 0x00, L::kScalarAlu, "rd = rs1 >> rs2[5:0] (logical)"),
    alu_r(Opcode::kSra, "sra", kOp, 5, 0x20, L::kScalarAlu, "rd = rs1 >> rs2[5:0] (arithmetic)"),
    alu_r(Opcode::kOr, "or", kOp, 6, 0x00, L::kScalarAlu, "rd = rs1 | rs2"),
    alu_r(Opcode::kAnd, "and", kOp, 7, 0x00, L::kScalarAlu, "rd = rs1 & rs2"),
    alu_i(Opcode::kAddiw, "addiw", kOpImm32, 0, "rd = sext32(rs1 + imm)"),
    shift5(Opcode::kSlliw, "slliw", 1, 0x00, "rd = sext32(rs1 << shamt)"),
    shift5(Opcode::kSrliw, "srliw", 5, 0x00, "rd = sext32(rs1[31:0] >> shamt)"),
    shift5(Opcode::kSraiw, "sraiw", 5, 0x20, "rd = sext32(rs1[31:0] >>a shamt)"),
    alu_r(Opcode::kAddw, "addw", kOp32, 0, 0x00, L::kScalarAlu, "rd = sext32(rs1 + rs2)"),
    alu_r(Opcode::kSubw, "subw", kOp32, 0, 0x20, L::kScalarAlu, "rd = sext32(rs1 - rs2)"),
    alu_r(Opcode::kSllw, "sllw", kOp32, 1, 0x00, L::kScalarAlu, "rd = sext32(rs1 << rs2[4:0])"),
    alu_r(Opcode::kSrlw, "srlw", kOp32, 5, 0x00, L::kScalarAlu, "rd = sext32(rs1[31:0] >> rs2[4:0])"),
    alu_r(Opcode::kSraw, "sraw", kOp32, 5, 0x20, L::kScalarAlu,
          "rd = sext32(rs1[31:0] >>a rs2[4:0])"),
    row(Opcode::kFenceTso, "fence.tso", 0x8330000F, kMaskAll, {}, Unit::kScalar, L::kFence,
        E::kFenceAll, "total-store-order fence (treated as a full fence)"),
    row(Opcode::kFence, "fence", kMiscMem, 0xF00FFFFF, {O::kFencePred, O::kFenceSucc},
        Unit::kScalar, L::kFence, E::kFenceAll,
        "memory fence; also waits for this chip's outstanding DMAs"),
    row(Opcode::kFenceI, "fence.i", kMiscMem | f3(1), kMaskAll, {}, Unit::kScalar, L::kFence,
        E::kFenceAll, "instruction fence (instruction memory is read-only: a full fence)"),
    row(Opcode::kEcall, "ecall", kSystem, kMaskAll, {}, Unit::kScalar, L::kSystem,
        E::kSystemCall, "a7=93: exit(a0); a7=64: write(a0=fd, a1=buf, a2=len) to the console"),
    row(Opcode::kEbreak, "ebreak", kSystem | (1u << 20), kMaskAll, {}, Unit::kScalar, L::kSystem,
        E::kBreak, "stop: debugger trap"),
    // ---- M ----
    alu_r(Opcode::kMul, "mul", kOp, 0, 0x01, L::kScalarMulDiv, "rd = (rs1 * rs2)[63:0]"),
    alu_r(Opcode::kMulh, "mulh", kOp, 1, 0x01, L::kScalarMulDiv, "rd = (rs1 * rs2)[127:64], signed"),
    alu_r(Opcode::kMulhsu, "mulhsu", kOp, 2, 0x01, L::kScalarMulDiv,
          "rd = (rs1 * rs2)[127:64], signed x unsigned"),
    alu_r(Opcode::kMulhu, "mulhu", kOp, 3, 0x01, L::kScalarMulDiv,
          "rd = (rs1 * rs2)[127:64], unsigned"),
    alu_r(Opcode::kDiv, "div", kOp, 4, 0x01, L::kScalarMulDiv, "rd = rs1 / rs2 (signed)"),
    alu_r(Opcode::kDivu, "divu", kOp, 5, 0x01, L::kScalarMulDiv, "rd = rs1 / rs2 (unsigned)"),
    alu_r(Opcode::kRem, "rem", kOp, 6, 0x01, L::kScalarMulDiv, "rd = rs1 % rs2 (signed)"),
    alu_r(Opcode::kRemu, "remu", kOp, 7, 0x01, L::kScalarMulDiv, "rd = rs1 % rs2 (unsigned)"),
    alu_r(Opcode::kMulw, "mulw", kOp32, 0, 0x01, L::kScalarMulDiv, "rd = sext32(rs1 * rs2)"),
    alu_r(Opcode::kDivw, "divw", kOp32, 4, 0x01, L::kScalarMulDiv, "rd = sext32(rs1 / rs2), signed"),
    alu_r(Opcode::kDivuw, "divuw", kOp32, 5, 0x01, L::kScalarMulDiv,
          "rd = sext32(rs1 / rs2), unsigned"),
    alu_r(Opcode::kRemw, "remw", kOp32, 6, 0x01, L::kScalarMulDiv, "rd = sext32(rs1 % rs2), signed"),
    alu_r(Opcode::kRemuw, "remuw", kOp32, 7, 0x01, L::kScalarMulDiv,
          "rd = sext32(rs1 % rs2), unsigned"),
    // ---- Zicsr ----
    csr_r(Opcode::kCsrrw, "csrrw", 1, "rd = csr; csr = rs1 (csr not read when rd = zero)"),
    csr_r(Opcode::kCsrrs, "csrrs", 2, "rd = csr; csr |= rs1 (csr not written when rs1 = zero)"),
    csr_r(Opcode::kCsrrc, "csrrc", 3, "rd = csr; csr &= ~rs1 (csr not written when rs1 = zero)"),
    csr_i(Opcode::kCsrrwi, "csrrwi", 5, "rd = csr; csr = uimm (csr not read when rd = zero)"),
    csr_i(Opcode::kCsrrsi, "csrrsi", 6, "rd = csr; csr |= uimm (not written when uimm = 0)"),
    csr_i(Opcode::kCsrrci, "csrrci", 7, "rd = csr; csr &= ~uimm (not written when uimm = 0)"),
    // ---- custom-0: vector ALU (8 sublanes x 128 lanes x 32 bit) ----
    vbin(Opcode::kVaddF32, "vadd.f32", 0, "vd = vs1 + vs2 (f32)"),
    vbin(Opcode::kVsubF32, "vsub.f32", 1, "vd = vs1 - vs2 (f32)"),
    vbin(Opcode::kVmulF32, "vmul.f32", 2, "vd = vs1 * vs2 (f32)"),
    vbin(Opcode::kVmaxF32, "vmax.f32", 3, "vd = max(vs1, vs2) (f32)"),
    vbin(Opcode::kVminF32, "vmin.f32", 4, "vd = min(vs1, vs2) (f32)"),
    vbin(Opcode::kVcmpEqF32, "vcmp.eq.f32", 5, "vd = vs1 == vs2 ? all-ones : 0 (f32 compare)"),
    vbin(Opcode::kVcmpLtF32, "vcmp.lt.f32", 6, "vd = vs1 < vs2 ? all-ones : 0 (f32 compare)"),
    vbin(Opcode::kVcmpLeF32, "vcmp.le.f32", 7, "vd = vs1 <= vs2 ? all-ones : 0 (f32 compare)"),
    vbin(Opcode::kVaddI32, "vadd.i32", 8, "vd = vs1 + vs2 (i32, wrapping)"),
    vbin(Opcode::kVsubI32, "vsub.i32", 9, "vd = vs1 - vs2 (i32, wrapping)"),
    vbin(Opcode::kVand, "vand", 10, "vd = vs1 & vs2 (bitwise)"),
    vbin(Opcode::kVor, "vor", 11, "vd = vs1 | vs2 (bitwise)"),
    vbin(Opcode::kVxor, "vxor", 12, "vd = vs1 ^ vs2 (bitwise)"),
    vbin(Opcode::kVcmpEqI32, "vcmp.eq.i32", 13, "vd = vs1 == vs2 ? all-ones : 0 (i32 compare)"),
    vbin(Opcode::kVcmpLtI32, "vcmp.lt.i32", 14, "vd = vs1 < vs2 ? all-ones : 0 (i32 compare)"),
    vun(Opcode::kVmov, "vmov", 0, L::kVectorAlu, "vd = vs1"),
    vun(Opcode::kVexpF32, "vexp.f32", 1, L::kVectorTranscendental, "vd = exp(vs1) (f32)"),
    vun(Opcode::kVrsqrtF32, "vrsqrt.f32", 2, L::kVectorTranscendental, "vd = 1/sqrt(vs1) (f32)"),
    vun(Opcode::kVrcpF32, "vrcp.f32", 3, L::kVectorTranscendental, "vd = 1/vs1 (f32)"),
    vun(Opcode::kVcvtBf16F32, "vcvt.bf16.f32", 4, L::kVectorAlu,
        "vd = bf16(vs1) in the low 16 bits of each element, upper 16 zero (RNE)"),
    vun(Opcode::kVcvtF32Bf16, "vcvt.f32.bf16", 5, L::kVectorAlu,
        "vd = f32(low 16 bits of each vs1 element as bf16)"),
    vun(Opcode::kVredsumLaneF32, "vredsum.lane.f32", 6, L::kVectorAlu,
        "each sublane: sum of its 128 lanes, written to every lane of that sublane"),
    vun(Opcode::kVredmaxLaneF32, "vredmax.lane.f32", 7, L::kVectorAlu,
        "each sublane: max of its 128 lanes, written to every lane of that sublane"),
    vun(Opcode::kVredsumSubF32, "vredsum.sub.f32", 8, L::kVectorAlu,
        "each lane: sum over the 8 sublanes, written to every sublane of that lane"),
    vun(Opcode::kVredmaxSubF32, "vredmax.sub.f32", 9, L::kVectorAlu,
        "each lane: max over the 8 sublanes, written to every sublane of that lane"),
    row(Opcode::kVfmaF32, "vfma.f32", kOpcodeCustom0 | f3(2) | f2(0), kMaskF2,
        {O::kVd, O::kVs1, O::kVs2, O::kVs3}, Unit::kVector, L::kVectorAlu, E::kNone,
        "vd = vs1 * vs2 + vs3 (f32, fused)"),
    row(Opcode::kVsel, "vsel", kOpcodeCustom0 | f3(2) | f2(1), kMaskF2,
        {O::kVd, O::kVs1, O::kVs2, O::kVs3}, Unit::kVector, L::kVectorAlu, E::kNone,
        "vd = vs1 != 0 ? vs2 : vs3 (per element; vs1 is a compare mask)"),
    row(Opcode::kVbcast, "vbcast", kOpcodeCustom0 | f3(3) | f7(0), kMaskF7Rs2,
        {O::kVd, O::kRs1}, Unit::kVector, L::kVectorAlu, E::kNone,
        "every element of vd = rs1[31:0] (f32 or i32 bit pattern)"),
    row(Opcode::kVlaneid, "vlaneid", kOpcodeCustom0 | f3(3) | f7(1), kMaskF7Rs1Rs2, {O::kVd},
        Unit::kVector, L::kVectorAlu, E::kNone, "vd[s][l] = l (i32 lane index 0..127)"),
    row(Opcode::kVsublaneid, "vsublaneid", kOpcodeCustom0 | f3(3) | f7(2), kMaskF7Rs1Rs2, {O::kVd},
        Unit::kVector, L::kVectorAlu, E::kNone, "vd[s][l] = s (i32 sublane index 0..7)"),
    row(Opcode::kVext, "vext", kOpcodeCustom0 | f3(3) | f7(3), kMaskF7, {O::kRd, O::kVs1, O::kRs2},
        Unit::kVector, L::kVectorAlu, E::kNone,
        "rd = sext32(vs1 element k), k = rs2 mod 1024 (sublane k/128, lane k%128)"),
    // ---- custom-1: vector memory and matrix unit ----
    row(Opcode::kVld, "vld", kOpcodeCustom1 | f3(0) | f7(0), kMaskF7, {O::kVd, O::kRs1, O::kRs2},
        Unit::kVector, L::kVectorLoadStore, E::kVecLoad,
        "vd sublane i = VMEM[rs1 + i*stride, +512), stride = rs2 (0 = 512)"),
    row(Opcode::kVst, "vst", kOpcodeCustom1 | f3(1) | f7(0), kMaskF7,
        {O::kVsRd, O::kRs1, O::kRs2}, Unit::kVector, L::kVectorLoadStore, E::kVecStore,
        "VMEM[rs1 + i*stride, +512) = vs sublane i, stride = rs2 (0 = 512)"),
    row(Opcode::kMxuLdw, "mxu.ldw", kOpcodeCustom1 | f3(2) | f7(0), kMaskF7,
        {O::kMxuRd, O::kRs1, O::kRs2}, Unit::kMatrix, L::kMxuWeightLoad, E::kMxuLoadWeights,
        "stage 128x128 bf16 weights: row r = VMEM[rs1 + r*stride, +256), stride = rs2 (0 = 256)"),
    row(Opcode::kMxuMul, "mxu.mul", kOpcodeCustom1 | f3(3) | f7(0), kMaskF7Rs2,
        {O::kMxuRd, O::kVs1}, Unit::kMatrix, L::kMxuPush, E::kMxuPush,
        "acc[mxu] += bf16(vs1) (8x128) x weights[mxu] (128x128), f32 accumulate"),
    row(Opcode::kMxuPop, "mxu.pop", kOpcodeCustom1 | f3(4) | f7(0), kMaskF7Rs2,
        {O::kVd, O::kMxuRs1}, Unit::kMatrix, L::kMxuPop, E::kMxuPop,
        "vd = acc[mxu] (8x128 f32); acc[mxu] = 0"),
    // ---- custom-2: DMA ----
    row(Opcode::kDmaIssue, "dma.issue", kOpcodeCustom2 | f3(0) | f2(0), kMaskF2,
        {O::kRs2, O::kRs1, O::kRs3, O::kSemRd}, Unit::kDma, L::kDmaIssue, E::kDma1d,
        "copy rs3 bytes from global address rs1 to global address rs2; +1 on sem when done"),
    row(Opcode::kDmaIssue2d, "dma.issue2d", kOpcodeCustom2 | f3(1) | f2(0), kMaskF2,
        {O::kRs2, O::kRs1, O::kRs3, O::kSemRd}, Unit::kDma, L::kDmaIssue, E::kDma2d,
        "2-D copy: rs3 = rows<<32|row_bytes, x[rs3+1] = src_stride<<32|dst_stride"),
    // ---- custom-3: semaphores and accelerator fences ----
    row(Opcode::kSemSignal, "sem.signal", kOpcodeCustom3 | f3(0), 0x000FF07F,
        {O::kSemRd, O::kUimm12}, Unit::kSync, L::kSemaphore, E::kSemSignalLocal,
        "sem += uimm on this chip"),
    row(Opcode::kSemSignalRemote, "sem.signal.remote", kOpcodeCustom3 | f3(1), kMaskF3,
        {O::kSemRd, O::kRs1, O::kUimm12}, Unit::kSync, L::kSemaphore, E::kSemSignalRemote,
        "sem += uimm on chip rs1 (rs1 = this chip's id signals locally)"),
    row(Opcode::kSemWait, "sem.wait", kOpcodeCustom3 | f3(2), 0x000FF07F, {O::kSemRd, O::kUimm12},
        Unit::kSync, L::kSemaphore, E::kSemWait, "block until sem >= uimm, then sem -= uimm"),
    row(Opcode::kSemRead, "sem.read", kOpcodeCustom3 | f3(3), 0xFFF0707F, {O::kRd, O::kSemRs1},
        Unit::kSync, L::kSemaphore, E::kSemRead, "rd = sem (current count, no wait)"),
    row(Opcode::kFenceVec, "fence.vec", kOpcodeCustom3 | f3(4), kMaskAll, {}, Unit::kSync,
        L::kFence, E::kFenceVector, "wait until vector and matrix units are idle"),
    row(Opcode::kFenceDma, "fence.dma", kOpcodeCustom3 | f3(5), kMaskAll, {}, Unit::kSync,
        L::kFence, E::kFenceDmaOnly, "wait until every DMA issued by this chip has landed"),
});

static_assert(kTable.size() == static_cast<size_t>(Opcode::kCount) - 1,
              "every opcode has exactly one row");

constexpr bool table_is_in_opcode_order() {
  for (size_t i = 0; i < kTable.size(); ++i) {
    if (static_cast<size_t>(kTable[i].opcode) != i + 1) return false;
  }
  return true;
}
static_assert(table_is_in_opcode_order(), "rows are listed in Opcode order");

}  // namespace

int InstructionRow::operand_count() const {
  int count = 0;
  for (OperandKind kind : operands) count += kind != OperandKind::kNone ? 1 : 0;
  return count;
}

std::span<const InstructionRow> instruction_table() { return kTable; }

const InstructionRow& row_of(Opcode opcode) {
  auto index = static_cast<size_t>(opcode);
  if (index == 0 || index > kTable.size()) throw Error("row_of: no row for an illegal opcode");
  return kTable[index - 1];
}

const InstructionRow* find_row(std::string_view mnemonic) {
  for (const auto& r : kTable) {
    if (r.mnemonic == mnemonic) return &r;
  }
  return nullptr;
}

uint64_t isa_table_hash() {
  uint64_t hash = kFnvOffsetBasis;
  for (const auto& r : kTable) {
    hash = fnv1a64(r.mnemonic, hash);
    hash = fnv1a64_u64(r.match, hash);
    hash = fnv1a64_u64(r.mask, hash);
    for (OperandKind kind : r.operands) hash = fnv1a64_u64(static_cast<uint64_t>(kind), hash);
    hash = fnv1a64_u64(static_cast<uint64_t>(r.unit), hash);
    hash = fnv1a64_u64(static_cast<uint64_t>(r.latency), hash);
    hash = fnv1a64_u64(static_cast<uint64_t>(r.effect), hash);
    hash = fnv1a64_u64(r.mem_bytes | (r.mem_signed ? 0x100u : 0u), hash);
  }
  return hash;
}

std::string_view unit_name(Unit unit) {
  switch (unit) {
    case Unit::kScalar: return "scalar";
    case Unit::kVector: return "vector";
    case Unit::kMatrix: return "matrix";
    case Unit::kDma: return "dma";
    case Unit::kSync: return "sync";
  }
  return "?";
}

std::string_view latency_class_name(LatencyClass latency) {
  switch (latency) {
    case L::kScalarAlu: return "scalar-alu";
    case L::kScalarMulDiv: return "scalar-muldiv";
    case L::kScalarLoadStore: return "scalar-loadstore";
    case L::kBranch: return "branch";
    case L::kCsr: return "csr";
    case L::kVectorAlu: return "vector-alu";
    case L::kVectorTranscendental: return "vector-transcendental";
    case L::kVectorLoadStore: return "vector-loadstore";
    case L::kMxuWeightLoad: return "mxu-weight-load";
    case L::kMxuPush: return "mxu-push";
    case L::kMxuPop: return "mxu-pop";
    case L::kDmaIssue: return "dma-issue";
    case L::kSemaphore: return "semaphore";
    case L::kFence: return "fence";
    case L::kSystem: return "system";
  }
  return "?";
}

std::string_view operand_kind_name(OperandKind kind) {
  switch (kind) {
    case O::kNone: return "";
    case O::kRd: return "rd";
    case O::kRs1: return "rs1";
    case O::kRs2: return "rs2";
    case O::kRs3: return "rs3";
    case O::kVd: return "vd";
    case O::kVs1: return "vs1";
    case O::kVs2: return "vs2";
    case O::kVs3: return "vs3";
    case O::kVsRd: return "vs";
    case O::kImmI: return "imm12";
    case O::kImmU: return "imm20";
    case O::kImmB: return "target";
    case O::kImmJ: return "target";
    case O::kMemI: return "offset(rs1)";
    case O::kMemS: return "offset(rs1)";
    case O::kShamt6: return "shamt6";
    case O::kShamt5: return "shamt5";
    case O::kCsr: return "csr";
    case O::kZimm: return "uimm5";
    case O::kFencePred: return "pred";
    case O::kFenceSucc: return "succ";
    case O::kSemRd: return "sem";
    case O::kSemRs1: return "sem";
    case O::kMxuRd: return "mxu";
    case O::kMxuRs1: return "mxu";
    case O::kUimm12: return "uimm12";
  }
  return "?";
}

}  // namespace snr::isa
