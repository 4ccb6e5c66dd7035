// The NPU instruction set as one table.
//
// Every instruction — the RV64IM + Zicsr scalar core and the accelerator
// extension in the RISC-V custom opcode spaces — is one InstructionRow in
// instruction_table(): mnemonic, match/mask encoding, operand list, unit,
// latency class and a memory/state effect. Everything else derives from it:
//
//   DecodedInstruction d = snr::isa::decode(word);   // never throws; !d.valid() if illegal
//   d.opcode, d.row->mnemonic, d.rd/rs1/rs2/rs3 (x registers), d.vd/vs1/vs2/vs3
//   (vector registers), d.imm (sign-extended; branch/jump offsets are relative
//   to pc), d.csr, d.sem (semaphore index), d.mxu (matrix unit index).
//
//   Result<uint32_t> w = snr::isa::encode(fields);    // range-checked inverse of decode
//   std::string text = snr::isa::disassemble(d, pc); // objdump-style (see disasm.h)
//
//   Accesses a;                                       // see access.h
//   compute_accesses(d, x_register_values, a);        // exact registers and memory
//                                                     // read/written, incl. DMA regions
//
// Field placement (RISC-V R/I/S/B/U/J/R4 formats): rd 11:7, rs1 19:15,
// rs2 24:20, rs3 31:27. Vector registers, semaphore and MXU indices reuse
// these fields as each row's operand list says; decode fills the named
// fields (vd, sem, ...) so callers never need to know the placement.
// The address map and global-address helpers are in address_map.h.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/result.h"

namespace snr::isa {

enum class Opcode : uint16_t {
  kIllegal = 0,
  // RV64I
  kLui, kAuipc, kJal, kJalr,
  kBeq, kBne, kBlt, kBge, kBltu, kBgeu,
  kLb, kLh, kLw, kLd, kLbu, kLhu, kLwu,
  kSb, kSh, kSw, kSd,
  kAddi, kSlti, kSltiu, kXori, kOri, kAndi, kSlli, kSrli, kSrai,
  kAdd, kSub, kSll, kSlt, kSltu, kXor, kSrl, kSra, kOr, kAnd,
  kAddiw, kSlliw, kSrliw, kSraiw, kAddw, kSubw, kSllw, kSrlw, kSraw,
  kFenceTso, kFence, kFenceI, kEcall, kEbreak,
  // M
  kMul, kMulh, kMulhsu, kMulhu, kDiv, kDivu, kRem, kRemu,
  kMulw, kDivw, kDivuw, kRemw, kRemuw,
  // Zicsr
  kCsrrw, kCsrrs, kCsrrc, kCsrrwi, kCsrrsi, kCsrrci,
  // Accelerator: vector ALU (custom-0)
  kVaddF32, kVsubF32, kVmulF32, kVmaxF32, kVminF32,
  kVcmpEqF32, kVcmpLtF32, kVcmpLeF32,
  kVaddI32, kVsubI32, kVand, kVor, kVxor, kVcmpEqI32, kVcmpLtI32,
  kVmov, kVexpF32, kVrsqrtF32, kVrcpF32, kVcvtBf16F32, kVcvtF32Bf16,
  kVredsumLaneF32, kVredmaxLaneF32, kVredsumSubF32, kVredmaxSubF32,
  kVfmaF32, kVsel,
  kVbcast, kVlaneid, kVsublaneid, kVext,
  // Accelerator: vector memory and matrix unit (custom-1)
  kVld, kVst, kMxuLdw, kMxuMul, kMxuPop,
  // Accelerator: DMA (custom-2)
  kDmaIssue, kDmaIssue2d,
  // Accelerator: semaphores and fences (custom-3)
  kSemSignal, kSemSignalRemote, kSemWait, kSemRead, kFenceVec, kFenceDma,
  kCount
};

// How an operand is placed in the word, which register file it names and
// whether it is read or written. The order in a row's operand list is the
// assembly syntax order.
enum class OperandKind : uint8_t {
  kNone,
  kRd, kRs1, kRs2, kRs3,             // x registers (rd written, rs read)
  kVd, kVs1, kVs2, kVs3,             // vector registers in rd/rs1/rs2/rs3
  kVsRd,                             // vector register READ, placed in the rd field (vst)
  kImmI, kImmU, kImmB, kImmJ,        // B/J print as absolute target address
  kMemI, kMemS,                      // "offset(rs1)" with I or S offset
  kShamt6, kShamt5,
  kCsr, kZimm,                       // CSR number 31:20; 5-bit unsigned in rs1 field
  kFencePred, kFenceSucc,            // fence iorw sets 27:24 and 23:20
  kSemRd, kSemRs1,                   // semaphore index in rd or rs1 field
  kMxuRd, kMxuRs1,                   // matrix unit index in rd or rs1 field
  kUimm12,                           // 12-bit unsigned in 31:20
};

// The execution resource an instruction occupies (the simulator's
// asynchronous units).
enum class Unit : uint8_t { kScalar, kVector, kMatrix, kDma, kSync };

// Latency class: the timing model maps each to cycles from the hw config.
enum class LatencyClass : uint8_t {
  kScalarAlu, kScalarMulDiv, kScalarLoadStore, kBranch, kCsr,
  kVectorAlu, kVectorTranscendental, kVectorLoadStore,
  kMxuWeightLoad, kMxuPush, kMxuPop,
  kDmaIssue, kSemaphore, kFence, kSystem,
};

// Memory and special-state behaviour beyond the register operands;
// compute_accesses() turns it into exact regions (access.h).
enum class Effect : uint8_t {
  kNone,
  kLoad,          // scalar load of mem_bytes at x[rs1]+imm
  kStore,         // scalar store of mem_bytes at x[rs1]+imm
  kControl,       // writes pc (branches, jumps)
  kPcRead,        // reads pc (auipc)
  kCsrAccess,     // Zicsr read/write rules (rd=x0 / rs1=x0 suppress)
  kSystemCall,    // ecall: a7 selects exit (93) or write (64)
  kBreak,         // ebreak
  kFenceAll,      // fence / fence.tso / fence.i: scalar memory + DMA fence
  kVecLoad,       // 8 rows x 512 B from VMEM at x[rs1], row stride x[rs2] (0 = 512)
  kVecStore,
  kMxuLoadWeights,  // 128 rows x 256 B from VMEM at x[rs1], row stride x[rs2] (0 = 256)
  kMxuPush,       // reads weights[mxu], accumulates into acc[mxu]
  kMxuPop,        // reads and clears acc[mxu]
  kDma1d,         // x[rs1] src, x[rs2] dst, x[rs3] bytes, sem completion
  kDma2d,         // x[rs3] = rows<<32|row_bytes, x[rs3+1] = src_stride<<32|dst_stride
  kSemSignalLocal, kSemSignalRemote, kSemWait, kSemRead,
  kFenceVector, kFenceDmaOnly,
};

struct InstructionRow {
  Opcode opcode;
  std::string_view mnemonic;
  uint32_t match;
  uint32_t mask;
  std::array<OperandKind, 4> operands;
  Unit unit;
  LatencyClass latency;
  Effect effect;
  uint8_t mem_bytes;       // scalar load/store width
  bool mem_signed;         // scalar load sign-extends
  std::string_view summary;  // one line, used in docs/isa.md

  [[nodiscard]] bool matches(uint32_t word) const { return (word & mask) == match; }
  [[nodiscard]] int operand_count() const;
};

// The whole table, in a fixed order (the ISA hash depends on it).
std::span<const InstructionRow> instruction_table();
const InstructionRow& row_of(Opcode opcode);
// nullptr when no row has this mnemonic.
const InstructionRow* find_row(std::string_view mnemonic);

// FNV-1a 64 over every row's mnemonic, encoding, operands, unit, latency
// and effect: identifies the ISA a snapshot or program was made for.
uint64_t isa_table_hash();

struct DecodedInstruction {
  uint32_t word = 0;
  Opcode opcode = Opcode::kIllegal;
  const InstructionRow* row = nullptr;  // nullptr when illegal
  uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;  // x registers named by the operands
  uint8_t vd = 0, vs1 = 0, vs2 = 0, vs3 = 0;  // vector registers named by the operands
  uint8_t sem = 0;   // semaphore index
  uint8_t mxu = 0;   // matrix unit index
  uint16_t csr = 0;
  int64_t imm = 0;   // sign-extended immediate; for U-type the 20-bit field value;
                     // for shifts the amount; for fence pred<<4|succ; zimm for csr*i

  [[nodiscard]] bool valid() const { return row != nullptr; }
};

// Decodes one 32-bit word. Illegal words (no row matches, or an operand
// constraint fails) return a DecodedInstruction with valid() == false.
DecodedInstruction decode(uint32_t word);

// Encodes the operand fields named by row_of(fields.opcode) into a word.
// Fails with a message naming the mnemonic and operand when a value does
// not fit (register > 31, immediate out of range, misaligned offset).
Result<uint32_t> encode(const DecodedInstruction& fields);

// Instruction lengths: the ISA has only 32-bit instructions.
constexpr uint64_t kInstructionBytes = 4;

// RISC-V major opcodes of the accelerator extension.
constexpr uint32_t kOpcodeCustom0 = 0x0B;  // vector ALU
constexpr uint32_t kOpcodeCustom1 = 0x2B;  // vector load/store, matrix unit
constexpr uint32_t kOpcodeCustom2 = 0x5B;  // DMA
constexpr uint32_t kOpcodeCustom3 = 0x7B;  // semaphores, accelerator fences

// Accelerator register file sizes.
constexpr int kVectorRegisterCount = 32;
constexpr int kSublanes = 8;
constexpr int kLanes = 128;
constexpr uint64_t kVectorRegisterBytes = kSublanes * kLanes * 4;  // 4 KiB
constexpr uint64_t kVectorRowBytes = kLanes * 4;                    // 512 B
constexpr int kSemaphoreCount = 32;
constexpr int kMxuTileDim = 128;
constexpr uint64_t kMxuWeightRowBytes = kMxuTileDim * 2;  // bf16 row, 256 B
constexpr uint64_t kMxuWeightTileBytes = kMxuTileDim * kMxuWeightRowBytes;  // 32 KiB

// CSRs of the contract.
constexpr uint16_t kCsrCycle = 0xC00;
constexpr uint16_t kCsrInstret = 0xC02;
constexpr uint16_t kCsrMhartid = 0xF14;
constexpr uint16_t kCsrNchips = 0xFC0;

// ecall numbers (Linux RISC-V convention, so gcc-built programs run).
constexpr uint64_t kSyscallWrite = 64;
constexpr uint64_t kSyscallExit = 93;

std::string_view unit_name(Unit unit);
std::string_view latency_class_name(LatencyClass latency);
std::string_view operand_kind_name(OperandKind kind);  // syntax placeholder, e.g. "rd"

}  // namespace snr::isa
