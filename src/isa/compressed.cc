#include "isa/compressed.h"

namespace snr::isa {
namespace {

// Base major opcodes and encoders of the formats the expansions produce.
constexpr uint32_t kLoad = 0x03, kOpImm = 0x13, kOpImm32 = 0x1B, kStore = 0x23, kOp = 0x33, kLui = 0x37,
                   kOp32 = 0x3B, kBranch = 0x63, kJalr = 0x67, kJal = 0x6F;
constexpr uint32_t kEbreakWord = 0x00100073;

uint32_t bits(uint32_t value, int hi, int lo) { return (value >> lo) & ((1u << (hi - lo + 1)) - 1); }
int32_t sign_extend(uint32_t value, int width) {
  const uint32_t sign = 1u << (width - 1);
  return static_cast<int32_t>((value ^ sign) - sign);
}

uint32_t i_type(uint32_t op, uint32_t funct3, uint32_t rd, uint32_t rs1, int32_t imm) {
  return (static_cast<uint32_t>(imm) & 0xFFF) << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | op;
}
uint32_t s_type(uint32_t op, uint32_t funct3, uint32_t rs1, uint32_t rs2, int32_t imm) {
  const uint32_t u = static_cast<uint32_t>(imm);
  return bits(u, 11, 5) << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | bits(u, 4, 0) << 7 | op;
}
uint32_t r_type(uint32_t op, uint32_t funct3, uint32_t funct7, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return funct7 << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | rd << 7 | op;
}
uint32_t b_type(uint32_t funct3, uint32_t rs1, uint32_t rs2, int32_t offset) {
  const uint32_t u = static_cast<uint32_t>(offset);
  return bits(u, 12, 12) << 31 | bits(u, 10, 5) << 25 | rs2 << 20 | rs1 << 15 | funct3 << 12 | bits(u, 4, 1) << 8 |
         bits(u, 11, 11) << 7 | kBranch;
}
uint32_t j_type(uint32_t rd, int32_t offset) {
  const uint32_t u = static_cast<uint32_t>(offset);
  return bits(u, 20, 20) << 31 | bits(u, 10, 1) << 21 | bits(u, 11, 11) << 20 | bits(u, 19, 12) << 12 | rd << 7 | kJal;
}

uint32_t quadrant0(uint32_t h) {
  const uint32_t rd_prime = bits(h, 4, 2) + 8, rs1_prime = bits(h, 9, 7) + 8;
  // Offsets of c.lw/c.sw (word-scaled) and c.ld/c.sd (doubleword-scaled).
  const int32_t word_offset = static_cast<int32_t>(bits(h, 12, 10) << 3 | bits(h, 6, 6) << 2 | bits(h, 5, 5) << 6);
  const int32_t double_offset = static_cast<int32_t>(bits(h, 12, 10) << 3 | bits(h, 6, 5) << 6);
  switch (bits(h, 15, 13)) {
    case 0: {  // c.addi4spn
      const uint32_t imm = bits(h, 12, 11) << 4 | bits(h, 10, 7) << 6 | bits(h, 6, 6) << 2 | bits(h, 5, 5) << 3;
      return imm == 0 ? 0 : i_type(kOpImm, 0, rd_prime, 2, static_cast<int32_t>(imm));
    }
    case 2: return i_type(kLoad, 2, rd_prime, rs1_prime, word_offset);                // c.lw
    case 3: return i_type(kLoad, 3, rd_prime, rs1_prime, double_offset);              // c.ld
    case 6: return s_type(kStore, 2, rs1_prime, rd_prime, word_offset);               // c.sw
    case 7: return s_type(kStore, 3, rs1_prime, rd_prime, double_offset);             // c.sd
    default: return 0;  // c.fld, c.fsd, reserved
  }
}

uint32_t quadrant1(uint32_t h) {
  const uint32_t rd = bits(h, 11, 7);
  const int32_t imm6 = sign_extend(bits(h, 12, 12) << 5 | bits(h, 6, 2), 6);
  const uint32_t rd_prime = bits(h, 9, 7) + 8, rs2_prime = bits(h, 4, 2) + 8;
  switch (bits(h, 15, 13)) {
    case 0: return i_type(kOpImm, 0, rd, rd, imm6);                    // c.addi (c.nop)
    case 1: return rd == 0 ? 0 : i_type(kOpImm32, 0, rd, rd, imm6);    // c.addiw
    case 2: return i_type(kOpImm, 0, rd, 0, imm6);                     // c.li
    case 3: {
      if (rd == 2) {  // c.addi16sp
        const int32_t imm = sign_extend(bits(h, 12, 12) << 9 | bits(h, 6, 6) << 4 | bits(h, 5, 5) << 6 |
                                            bits(h, 4, 3) << 7 | bits(h, 2, 2) << 5, 10);
        return imm == 0 ? 0 : i_type(kOpImm, 0, 2, 2, imm);
      }
      if (imm6 == 0) return 0;  // c.lui with a zero immediate is reserved
      return (static_cast<uint32_t>(imm6) & 0xFFFFF) << 12 | rd << 7 | kLui;  // c.lui
    }
    case 4: {
      const uint32_t shamt = bits(h, 12, 12) << 5 | bits(h, 6, 2);
      switch (bits(h, 11, 10)) {
        case 0: return i_type(kOpImm, 5, rd_prime, rd_prime, static_cast<int32_t>(shamt));          // c.srli
        case 1: return i_type(kOpImm, 5, rd_prime, rd_prime, static_cast<int32_t>(0x400 | shamt));  // c.srai
        case 2: return i_type(kOpImm, 7, rd_prime, rd_prime, imm6);                                 // c.andi
        default: break;
      }
      const uint32_t op2 = bits(h, 6, 5);
      if (bits(h, 12, 12) == 0) {
        constexpr uint32_t kFunct3[] = {0, 4, 6, 7};  // c.sub, c.xor, c.or, c.and
        return r_type(kOp, kFunct3[op2], op2 == 0 ? 0x20 : 0, rd_prime, rd_prime, rs2_prime);
      }
      if (op2 == 0) return r_type(kOp32, 0, 0x20, rd_prime, rd_prime, rs2_prime);  // c.subw
      if (op2 == 1) return r_type(kOp32, 0, 0, rd_prime, rd_prime, rs2_prime);     // c.addw
      return 0;
    }
    case 5: {  // c.j
      const int32_t offset = sign_extend(bits(h, 12, 12) << 11 | bits(h, 11, 11) << 4 | bits(h, 10, 9) << 8 |
                                             bits(h, 8, 8) << 10 | bits(h, 7, 7) << 6 | bits(h, 6, 6) << 7 |
                                             bits(h, 5, 3) << 1 | bits(h, 2, 2) << 5, 12);
      return j_type(0, offset);
    }
    default: {  // c.beqz, c.bnez
      const int32_t offset = sign_extend(bits(h, 12, 12) << 8 | bits(h, 11, 10) << 3 | bits(h, 6, 5) << 6 |
                                             bits(h, 4, 3) << 1 | bits(h, 2, 2) << 5, 9);
      return b_type(bits(h, 15, 13) == 6 ? 0 : 1, rd_prime, 0, offset);
    }
  }
}

uint32_t quadrant2(uint32_t h) {
  const uint32_t rd = bits(h, 11, 7), rs2 = bits(h, 6, 2);
  switch (bits(h, 15, 13)) {
    case 0: return i_type(kOpImm, 1, rd, rd, static_cast<int32_t>(bits(h, 12, 12) << 5 | bits(h, 6, 2)));  // c.slli
    case 2: {  // c.lwsp
      const uint32_t offset = bits(h, 12, 12) << 5 | bits(h, 6, 4) << 2 | bits(h, 3, 2) << 6;
      return rd == 0 ? 0 : i_type(kLoad, 2, rd, 2, static_cast<int32_t>(offset));
    }
    case 3: {  // c.ldsp
      const uint32_t offset = bits(h, 12, 12) << 5 | bits(h, 6, 5) << 3 | bits(h, 4, 2) << 6;
      return rd == 0 ? 0 : i_type(kLoad, 3, rd, 2, static_cast<int32_t>(offset));
    }
    case 4:
      if (bits(h, 12, 12) == 0) {
        if (rs2 == 0) return rd == 0 ? 0 : i_type(kJalr, 0, 0, rd, 0);  // c.jr
        return r_type(kOp, 0, 0, rd, 0, rs2);                            // c.mv
      }
      if (rs2 == 0) return rd == 0 ? kEbreakWord : i_type(kJalr, 0, 1, rd, 0);  // c.ebreak, c.jalr
      return r_type(kOp, 0, 0, rd, rd, rs2);                                     // c.add
    case 6: {  // c.swsp
      const uint32_t offset = bits(h, 12, 9) << 2 | bits(h, 8, 7) << 6;
      return s_type(kStore, 2, 2, rs2, static_cast<int32_t>(offset));
    }
    case 7: {  // c.sdsp
      const uint32_t offset = bits(h, 12, 10) << 3 | bits(h, 9, 7) << 6;
      return s_type(kStore, 3, 2, rs2, static_cast<int32_t>(offset));
    }
    default: return 0;  // c.fldsp, c.fsdsp
  }
}

}  // namespace

uint32_t expand_compressed(uint16_t half) {
  if (half == 0) return 0;  // the defined illegal instruction
  switch (half & 3) {
    case 0: return quadrant0(half);
    case 1: return quadrant1(half);
    case 2: return quadrant2(half);
    default: return 0;  // not compressed
  }
}

DecodedInstruction decode_with_compressed(uint32_t word) {
  if ((word & 3) == 3) return decode(word);
  const uint16_t half = static_cast<uint16_t>(word);
  const uint32_t expanded = expand_compressed(half);
  DecodedInstruction d = expanded == 0 ? DecodedInstruction{} : decode(expanded);
  d.word = half;
  return d;
}

}  // namespace snr::isa
