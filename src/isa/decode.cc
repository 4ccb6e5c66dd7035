// Decoder and encoder, both driven by the operand kinds of each table row.
#include <array>
#include <fmt/format.h>
#include <vector>

#include "common/error.h"
#include "isa/isa.h"

namespace snr::isa {
namespace {

constexpr uint32_t bits(uint32_t word, int hi, int lo) {
  return (word >> lo) & ((1u << (hi - lo + 1)) - 1u);
}
constexpr int64_t sign_extend(uint64_t value, int width) {
  const uint64_t sign = uint64_t{1} << (width - 1);
  return static_cast<int64_t>((value ^ sign) - sign);
}

int64_t imm_i(uint32_t w) { return sign_extend(bits(w, 31, 20), 12); }
int64_t imm_s(uint32_t w) { return sign_extend((bits(w, 31, 25) << 5) | bits(w, 11, 7), 12); }
int64_t imm_b(uint32_t w) {
  uint32_t v = (bits(w, 31, 31) << 12) | (bits(w, 7, 7) << 11) | (bits(w, 30, 25) << 5) |
               (bits(w, 11, 8) << 1);
  return sign_extend(v, 13);
}
int64_t imm_j(uint32_t w) {
  uint32_t v = (bits(w, 31, 31) << 20) | (bits(w, 19, 12) << 12) | (bits(w, 20, 20) << 11) |
               (bits(w, 30, 21) << 1);
  return sign_extend(v, 21);
}

// Rows grouped by major opcode so decode scans a handful of candidates.
struct DecodeIndex {
  std::array<std::vector<const InstructionRow*>, 128> by_major_opcode;
  DecodeIndex() {
    for (const auto& r : instruction_table()) by_major_opcode[r.match & 0x7F].push_back(&r);
  }
};

const DecodeIndex& decode_index() {
  static const DecodeIndex index;
  return index;
}

void decode_operand(OperandKind kind, uint32_t w, DecodedInstruction& d) {
  const auto rd = static_cast<uint8_t>(bits(w, 11, 7));
  const auto rs1 = static_cast<uint8_t>(bits(w, 19, 15));
  const auto rs2 = static_cast<uint8_t>(bits(w, 24, 20));
  const auto rs3 = static_cast<uint8_t>(bits(w, 31, 27));
  switch (kind) {
    case OperandKind::kNone: break;
    case OperandKind::kRd: d.rd = rd; break;
    case OperandKind::kRs1: d.rs1 = rs1; break;
    case OperandKind::kRs2: d.rs2 = rs2; break;
    case OperandKind::kRs3: d.rs3 = rs3; break;
    case OperandKind::kVd: d.vd = rd; break;
    case OperandKind::kVs1: d.vs1 = rs1; break;
    case OperandKind::kVs2: d.vs2 = rs2; break;
    case OperandKind::kVs3: d.vs3 = rs3; break;
    case OperandKind::kVsRd: d.vs1 = rd; break;
    case OperandKind::kImmI: d.imm = imm_i(w); break;
    case OperandKind::kImmU: d.imm = bits(w, 31, 12); break;
    case OperandKind::kImmB: d.imm = imm_b(w); break;
    case OperandKind::kImmJ: d.imm = imm_j(w); break;
    case OperandKind::kMemI: d.imm = imm_i(w); d.rs1 = rs1; break;
    case OperandKind::kMemS: d.imm = imm_s(w); d.rs1 = rs1; break;
    case OperandKind::kShamt6: d.imm = bits(w, 25, 20); break;
    case OperandKind::kShamt5: d.imm = bits(w, 24, 20); break;
    case OperandKind::kCsr: d.csr = static_cast<uint16_t>(bits(w, 31, 20)); break;
    case OperandKind::kZimm: d.imm = rs1; break;
    case OperandKind::kFencePred: d.imm = (d.imm & 0x0F) | (bits(w, 27, 24) << 4); break;
    case OperandKind::kFenceSucc: d.imm = (d.imm & 0xF0) | bits(w, 23, 20); break;
    case OperandKind::kSemRd: d.sem = rd; break;
    case OperandKind::kSemRs1: d.sem = rs1; break;
    case OperandKind::kMxuRd: d.mxu = rd; break;
    case OperandKind::kMxuRs1: d.mxu = rs1; break;
    case OperandKind::kUimm12: d.imm = bits(w, 31, 20); break;
  }
}

// Per-row constraints that match/mask cannot express.
bool operands_are_legal(const DecodedInstruction& d) {
  // The 2-D DMA shape is a register pair x[rs3], x[rs3+1].
  if (d.opcode == Opcode::kDmaIssue2d && d.rs3 > 30) return false;
  return true;
}

Error operand_error(const InstructionRow& r, OperandKind kind, const std::string& why) {
  return Error(fmt::format("{}: operand {}: {}", r.mnemonic, operand_kind_name(kind), why));
}

bool fits_signed(int64_t v, int width) {
  return v >= -(int64_t{1} << (width - 1)) && v < (int64_t{1} << (width - 1));
}
bool fits_unsigned(int64_t v, int width) { return v >= 0 && v < (int64_t{1} << width); }

}  // namespace

DecodedInstruction decode(uint32_t word) {
  DecodedInstruction d;
  d.word = word;
  for (const InstructionRow* r : decode_index().by_major_opcode[word & 0x7F]) {
    if (!r->matches(word)) continue;
    d.opcode = r->opcode;
    for (OperandKind kind : r->operands) decode_operand(kind, word, d);
    if (!operands_are_legal(d)) return DecodedInstruction{.word = word};
    d.row = r;
    return d;
  }
  return d;
}

Result<uint32_t> encode(const DecodedInstruction& f) {
  if (f.opcode == Opcode::kIllegal || f.opcode >= Opcode::kCount) {
    return Error("encode: illegal opcode");
  }
  const InstructionRow& r = row_of(f.opcode);
  uint32_t w = r.match;
  auto reg = [&](OperandKind kind, uint8_t value, int lo) -> Status {
    if (value > 31) return operand_error(r, kind, fmt::format("register {} out of range 0..31", value));
    w |= uint32_t{value} << lo;
    return {};
  };
  for (OperandKind kind : r.operands) {
    Status st;
    const int64_t imm = f.imm;
    switch (kind) {
      case OperandKind::kNone: break;
      case OperandKind::kRd: st = reg(kind, f.rd, 7); break;
      case OperandKind::kRs1: st = reg(kind, f.rs1, 15); break;
      case OperandKind::kRs2: st = reg(kind, f.rs2, 20); break;
      case OperandKind::kRs3: st = reg(kind, f.rs3, 27); break;
      case OperandKind::kVd: st = reg(kind, f.vd, 7); break;
      case OperandKind::kVs1: st = reg(kind, f.vs1, 15); break;
      case OperandKind::kVs2: st = reg(kind, f.vs2, 20); break;
      case OperandKind::kVs3: st = reg(kind, f.vs3, 27); break;
      case OperandKind::kVsRd: st = reg(kind, f.vs1, 7); break;
      case OperandKind::kSemRd: st = reg(kind, f.sem, 7); break;
      case OperandKind::kSemRs1: st = reg(kind, f.sem, 15); break;
      case OperandKind::kMxuRd: st = reg(kind, f.mxu, 7); break;
      case OperandKind::kMxuRs1: st = reg(kind, f.mxu, 15); break;
      case OperandKind::kMemI:
        st = reg(kind, f.rs1, 15);
        [[fallthrough]];
      case OperandKind::kImmI:
        if (!fits_signed(imm, 12)) {
          st = operand_error(r, kind, fmt::format("immediate {} out of range -2048..2047", imm));
        } else {
          w |= (static_cast<uint32_t>(imm) & 0xFFF) << 20;
        }
        break;
      case OperandKind::kMemS:
        st = reg(kind, f.rs1, 15);
        if (!fits_signed(imm, 12)) {
          st = operand_error(r, kind, fmt::format("offset {} out of range -2048..2047", imm));
        } else {
          const auto v = static_cast<uint32_t>(imm) & 0xFFF;
          w |= ((v >> 5) << 25) | ((v & 0x1F) << 7);
        }
        break;
      case OperandKind::kImmU:
        if (!fits_unsigned(imm, 20)) {
          st = operand_error(r, kind, fmt::format("immediate {:#x} out of range 0..0xfffff", imm));
        } else {
          w |= static_cast<uint32_t>(imm) << 12;
        }
        break;
      case OperandKind::kImmB:
        if (!fits_signed(imm, 13) || (imm & 1) != 0) {
          st = operand_error(r, kind,
                             fmt::format("branch offset {} out of range +-4 KiB or odd", imm));
        } else {
          const auto v = static_cast<uint32_t>(imm);
          w |= (bits(v, 12, 12) << 31) | (bits(v, 10, 5) << 25) | (bits(v, 4, 1) << 8) |
               (bits(v, 11, 11) << 7);
        }
        break;
      case OperandKind::kImmJ:
        if (!fits_signed(imm, 21) || (imm & 1) != 0) {
          st = operand_error(r, kind, fmt::format("jump offset {} out of range +-1 MiB or odd", imm));
        } else {
          const auto v = static_cast<uint32_t>(imm);
          w |= (bits(v, 20, 20) << 31) | (bits(v, 10, 1) << 21) | (bits(v, 11, 11) << 20) |
               (bits(v, 19, 12) << 12);
        }
        break;
      case OperandKind::kShamt6:
        if (!fits_unsigned(imm, 6)) {
          st = operand_error(r, kind, fmt::format("shift amount {} out of range 0..63", imm));
        } else {
          w |= static_cast<uint32_t>(imm) << 20;
        }
        break;
      case OperandKind::kShamt5:
        if (!fits_unsigned(imm, 5)) {
          st = operand_error(r, kind, fmt::format("shift amount {} out of range 0..31", imm));
        } else {
          w |= static_cast<uint32_t>(imm) << 20;
        }
        break;
      case OperandKind::kCsr:
        if (f.csr > 0xFFF) {
          st = operand_error(r, kind, fmt::format("CSR {:#x} out of range 0..0xfff", f.csr));
        } else {
          w |= uint32_t{f.csr} << 20;
        }
        break;
      case OperandKind::kZimm:
        if (!fits_unsigned(imm, 5)) {
          st = operand_error(r, kind, fmt::format("immediate {} out of range 0..31", imm));
        } else {
          w |= static_cast<uint32_t>(imm) << 15;
        }
        break;
      case OperandKind::kFencePred:
      case OperandKind::kFenceSucc:
        if (!fits_unsigned(imm, 8)) {
          st = operand_error(r, kind, "fence sets must be pred<<4|succ, 8 bits");
        } else if (kind == OperandKind::kFencePred) {
          w |= static_cast<uint32_t>((imm >> 4) & 0xF) << 24;
        } else {
          w |= static_cast<uint32_t>(imm & 0xF) << 20;
        }
        break;
      case OperandKind::kUimm12:
        if (!fits_unsigned(imm, 12)) {
          st = operand_error(r, kind, fmt::format("immediate {} out of range 0..4095", imm));
        } else {
          w |= static_cast<uint32_t>(imm) << 20;
        }
        break;
    }
    if (!st.ok()) return st.error();
  }
  if (f.opcode == Opcode::kDmaIssue2d && f.rs3 > 30) {
    return operand_error(r, OperandKind::kRs3,
                         "the 2-D shape is the register pair rs3, rs3+1: rs3 must be x0..x30");
  }
  // Every operand bit landed outside the fixed bits of the row.
  if (!r.matches(w)) return Error(fmt::format("{}: operands overlap the fixed encoding bits", r.mnemonic));
  return w;
}

}  // namespace snr::isa
