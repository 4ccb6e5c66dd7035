// Compressed (RVC) expansions against GNU as: each pair is one compressed
// instruction and its base form, both assembled by riscv64-linux-gnu-as.
#include "isa/compressed.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace snr::isa {
namespace {

TEST(Compressed, ExpandsToTheBaseInstructionGnuAsAssembles) {
  struct Pair {
    uint16_t compressed;
    uint32_t base;
  };
  const Pair pairs[] = {
      {0x1fe0, 0x3fc10413},  // c.addi4spn s0,sp,1020
      {0x5d7c, 0x07c52783},  // c.lw a5,124(a0)
      {0x7cf8, 0x0f84b703},  // c.ld a4,248(s1)
      {0xc234, 0x04d62023},  // c.sw a3,64(a2)
      {0xe590, 0x00c5b423},  // c.sd a2,8(a1)
      {0x0001, 0x00000013},  // c.addi zero,0
      {0x1501, 0xfe050513},  // c.addi a0,-32
      {0x237d, 0x01f3031b},  // c.addiw t1,31
      {0x57fd, 0xfff00793},  // c.li a5,-1
      {0x7101, 0xe0010113},  // c.addi16sp sp,-512
      {0x617d, 0x1f010113},  // c.addi16sp sp,496
      {0x7705, 0xfffe1737},  // c.lui a4,0xfffe1
      {0x63fd, 0x0001f3b7},  // c.lui t2,0x1f
      {0x91fd, 0x03f5d593},  // c.srli a1,0x3f
      {0x8405, 0x40145413},  // c.srai s0,0x1
      {0x9a75, 0xffd67613},  // c.andi a2,-3
      {0x8d0d, 0x40b50533},  // c.sub a0,a1
      {0x8e35, 0x00d64633},  // c.xor a2,a3
      {0x8f5d, 0x00f76733},  // c.or a4,a5
      {0x8c65, 0x00947433},  // c.and s0,s1
      {0x9d05, 0x4095053b},  // c.subw a0,s1
      {0x9fb9, 0x00e787bb},  // c.addw a5,a4
      {0xaffd, 0x7fe0006f},  // c.j .+2046
      {0xb001, 0x801ff06f},  // c.j .-2048
      {0xcd7d, 0x0e050f63},  // c.beqz a0,.+254
      {0xf081, 0xf00490e3},  // c.bnez s1,.-256
      {0x12fe, 0x03f29293},  // c.slli t0,0x3f
      {0x50fe, 0x0fc12083},  // c.lwsp ra,252(sp)
      {0x7dfe, 0x1f813d83},  // c.ldsp s11,504(sp)
      {0x8082, 0x00008067},  // c.jr ra
      {0x857e, 0x01f00533},  // c.mv a0,t6
      {0x9002, 0x00100073},  // c.ebreak
      {0x9282, 0x000280e7},  // c.jalr t0
      {0x994e, 0x01390933},  // c.add s2,s3
      {0xdfaa, 0x0ea12e23},  // c.swsp a0,252(sp)
      {0xff86, 0x1e113c23},  // c.sdsp ra,504(sp)
  };
  for (const Pair& pair : pairs) {
    EXPECT_EQ(expand_compressed(pair.compressed), pair.base)
        << fmt::format("{:#06x}: expected {:#010x}, got {:#010x}", pair.compressed, pair.base,
                       expand_compressed(pair.compressed));
  }
}

TEST(Compressed, ReservedAndFloatingPointFormsDoNotExpand) {
  EXPECT_EQ(expand_compressed(0x0000), 0u);  // the defined illegal instruction
  EXPECT_EQ(expand_compressed(0x2008), 0u);  // c.fld fa0,0(s0): no F/D in the table
  EXPECT_EQ(expand_compressed(0x2001), 0u);  // c.addiw with rd = x0 is reserved
  EXPECT_EQ(expand_compressed(0x6101), 0u);  // c.addi16sp with a zero immediate
  EXPECT_EQ(expand_compressed(0x8002), 0u);  // c.jr x0
  EXPECT_EQ(expand_compressed(0x9c41), 0u);  // RV64 reserved MISC-ALU form
}

TEST(Compressed, DecodesThroughTheTableWithTheShortWord) {
  const DecodedInstruction d = decode_with_compressed(0x1141);  // c.addi sp,-16
  ASSERT_TRUE(d.valid());
  EXPECT_EQ(d.opcode, Opcode::kAddi);
  EXPECT_EQ(d.rd, 2);
  EXPECT_EQ(d.rs1, 2);
  EXPECT_EQ(d.imm, -16);
  EXPECT_EQ(d.word, 0x1141u);
  EXPECT_EQ(instruction_bytes(d.word), 2u);
  EXPECT_EQ(instruction_bytes(0x00000013), 4u);
  EXPECT_FALSE(decode_with_compressed(0x2008).valid());
  EXPECT_EQ(decode_with_compressed(0xfe050513).opcode, Opcode::kAddi) << "32-bit words decode as before";
}

}  // namespace
}  // namespace snr::isa
