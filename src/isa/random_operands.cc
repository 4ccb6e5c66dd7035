#include "isa/random_operands.h"

namespace snr::isa {
namespace {

int64_t uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}
uint8_t reg(std::mt19937_64& rng) { return static_cast<uint8_t>(uniform(rng, 0, 31)); }

}  // namespace

DecodedInstruction random_operands(const InstructionRow& row, std::mt19937_64& rng) {
  DecodedInstruction f;
  f.opcode = row.opcode;
  for (OperandKind kind : row.operands) {
    switch (kind) {
      case OperandKind::kNone: break;
      case OperandKind::kRd: f.rd = reg(rng); break;
      case OperandKind::kRs1: f.rs1 = reg(rng); break;
      case OperandKind::kRs2: f.rs2 = reg(rng); break;
      case OperandKind::kRs3:
        f.rs3 = static_cast<uint8_t>(uniform(rng, 0, row.effect == Effect::kDma2d ? 30 : 31));
        break;
      case OperandKind::kVd: f.vd = reg(rng); break;
      case OperandKind::kVs1:
      case OperandKind::kVsRd: f.vs1 = reg(rng); break;
      case OperandKind::kVs2: f.vs2 = reg(rng); break;
      case OperandKind::kVs3: f.vs3 = reg(rng); break;
      case OperandKind::kImmI: f.imm = uniform(rng, -2048, 2047); break;
      case OperandKind::kMemI:
      case OperandKind::kMemS:
        f.rs1 = reg(rng);
        f.imm = uniform(rng, -2048, 2047);
        break;
      case OperandKind::kImmU: f.imm = uniform(rng, 0, 0xFFFFF); break;
      case OperandKind::kImmB: f.imm = uniform(rng, -2048, 2047) * 2; break;
      case OperandKind::kImmJ: f.imm = uniform(rng, -(1 << 19), (1 << 19) - 1) * 2; break;
      case OperandKind::kShamt6: f.imm = uniform(rng, 0, 63); break;
      case OperandKind::kShamt5: f.imm = uniform(rng, 0, 31); break;
      case OperandKind::kCsr: f.csr = static_cast<uint16_t>(uniform(rng, 0, 0xFFF)); break;
      case OperandKind::kZimm: f.imm = uniform(rng, 0, 31); break;
      // pred and succ share imm; each kind fills its own nibble.
      case OperandKind::kFencePred: f.imm = (f.imm & 0x0F) | (uniform(rng, 0, 15) << 4); break;
      case OperandKind::kFenceSucc: f.imm = (f.imm & 0xF0) | uniform(rng, 0, 15); break;
      case OperandKind::kSemRd:
      case OperandKind::kSemRs1: f.sem = reg(rng); break;
      case OperandKind::kMxuRd:
      case OperandKind::kMxuRs1: f.mxu = reg(rng); break;
      case OperandKind::kUimm12: f.imm = uniform(rng, 0, 4095); break;
    }
  }
  return f;
}

}  // namespace snr::isa
