#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>
#include <set>

#include "isa/access.h"
#include "isa/disasm.h"
#include "isa/isa.h"
#include "isa/random_operands.h"

namespace snr::isa {
namespace {

TEST(IsaTable, EveryRowMatchIsInsideItsMask) {
  for (const auto& r : instruction_table()) {
    EXPECT_EQ(r.match & ~r.mask, 0u) << r.mnemonic;
    EXPECT_EQ(r.match & 3u, 3u) << r.mnemonic << ": 32-bit encodings end in 0b11";
  }
}

TEST(IsaTable, NoTwoRowsOverlap) {
  // Two rows overlap iff some word matches both: their match bits agree on
  // every bit that both masks fix.
  auto table = instruction_table();
  for (size_t i = 0; i < table.size(); ++i) {
    for (size_t j = i + 1; j < table.size(); ++j) {
      const uint32_t common = table[i].mask & table[j].mask;
      EXPECT_NE((table[i].match ^ table[j].match) & common, 0u)
          << table[i].mnemonic << " overlaps " << table[j].mnemonic;
    }
  }
}

TEST(IsaTable, MnemonicsAreUnique) {
  std::set<std::string_view> seen;
  for (const auto& r : instruction_table()) EXPECT_TRUE(seen.insert(r.mnemonic).second) << r.mnemonic;
}

TEST(IsaTable, HashIsDeterministicAndNonTrivial) {
  EXPECT_EQ(isa_table_hash(), isa_table_hash());
  EXPECT_NE(isa_table_hash(), 0u);
}

TEST(Decode, KnownWordsFromObjdump) {
  // Words and text taken from `riscv64-linux-gnu-objdump -d -M no-aliases`.
  struct Case {
    uint32_t word;
    uint64_t pc;
    const char* text;
  };
  const Case cases[] = {
      {0x00500513, 0x10000, "addi a0,zero,5"},
      {0x123455b7, 0x10004, "lui a1,0x12345"},
      {0x6785859b, 0x10008, "addiw a1,a1,1656"},
      {0xfc0504e3, 0x10038, "beq a0,zero,10000"},
      {0xfa9ff06f, 0x10058, "jal zero,10000"},
      {0x004502e7, 0x1006c, "jalr t0,4(a0)"},
      {0x0ff0000f, 0, "fence iorw,iorw"},
      {0x8330000f, 0, "fence.tso"},
      {0x00000073, 0, "ecall"},
      {0x00100073, 0, "ebreak"},
      {0xc0002573, 0, "csrrs a0,cycle,zero"},
      {0xfc059573, 0, "csrrw a0,0xfc0,a1"},
      {0xfc02d073, 0, "csrrwi zero,0xfc0,5"},
      {0xfea13c23, 0, "sd a0,-8(sp)"},
      {0x03f59513, 0, "slli a0,a1,0x3f"},
      {0x01f5951b, 0, "slliw a0,a1,0x1f"},
      {0x02c5a533, 0, "mulhsu a0,a1,a2"},
      {0x02c5f53b, 0, "remuw a0,a1,a2"},
      {0x0f50000f, 0, "fence iorw,ow"},
  };
  DisasmOptions no_aliases;
  no_aliases.aliases = false;
  for (const auto& c : cases) {
    DecodedInstruction d = decode(c.word);
    ASSERT_TRUE(d.valid()) << std::hex << c.word;
    EXPECT_EQ(disassemble(d, c.pc, no_aliases), c.text);
    EXPECT_EQ(encode(d).value(), c.word) << c.text;
  }
}

TEST(Decode, AliasesMatchObjdumpChoices) {
  struct Case {
    uint32_t word;
    const char* text;
  };
  const Case cases[] = {
      {0x00500513, "li a0,5"},     {0x00070693, "mv a3,a4"},       {0x00000013, "nop"},
      {0xfff5c513, "not a0,a1"},   {0x40b00533, "neg a0,a1"},      {0x40b0053b, "negw a0,a1"},
      {0x0005851b, "sext.w a0,a1"}, {0x0015b513, "seqz a0,a1"},    {0x00b03533, "snez a0,a1"},
      {0x0005a533, "sltz a0,a1"},  {0x00b02533, "sgtz a0,a1"},     {0x00050067, "jr a0"},
      {0x000500e7, "jalr a0"},     {0x00008067, "ret"},            {0x0ff0000f, "fence"},
      {0xc0002573, "rdcycle a0"},  {0xc02025f3, "rdinstret a1"},   {0xf1402573, "csrr a0,mhartid"},
      {0xfc002573, "csrr a0,0xfc0"}, {0xfc051073, "csrw 0xfc0,a0"}, {0xfc02d073, "csrw 0xfc0,5"},
      {0x00850067, "jr 8(a0)"},    {0x00100013, "li zero,1"},      {0x00050513, "mv a0,a0"},
  };
  for (const auto& c : cases) EXPECT_EQ(disassemble(decode(c.word), 0), c.text);
  EXPECT_EQ(disassemble(decode(0xfc0504e3), 0x10038), "beqz a0,10000");
  EXPECT_EQ(disassemble(decode(0xfa9ff06f), 0x10058), "j 10000");
  DisasmOptions with_symbols;
  with_symbols.symbolize = [](uint64_t a) { return a == 0x10000 ? std::string("_start") : std::string(); };
  EXPECT_EQ(disassemble(decode(0xfa5ff0ef), 0x1005c, with_symbols), "jal 10000 <_start>");
}

TEST(Decode, IllegalWordsAreRejectedCleanly) {
  for (uint32_t word : {0x00000000u, 0xffffffffu, 0x0000500bu, 0x0000007fu, 0x00004073u}) {
    DecodedInstruction d = decode(word);
    EXPECT_FALSE(d.valid()) << std::hex << word;
    EXPECT_EQ(d.opcode, Opcode::kIllegal);
    EXPECT_EQ(disassemble(d, 0), fmt::format(".word 0x{:08x}", word));
    Accesses a;
    compute_accesses(d, [](unsigned) { return uint64_t{0}; }, a);
    EXPECT_EQ(a.read_count + a.write_count + a.memory_count, 0);
  }
  // dma.issue2d with rs3 = x31 has no second shape register.
  DecodedInstruction f{.opcode = Opcode::kDmaIssue2d, .rs1 = 1, .rs2 = 2, .rs3 = 30, .sem = 3};
  uint32_t word = encode(f).value();
  EXPECT_TRUE(decode(word).valid());
  EXPECT_FALSE(decode(word | (1u << 27)).valid());
  f.rs3 = 31;
  EXPECT_FALSE(encode(f).ok());
}

TEST(Decode, FuzzEveryWordDecodesOrIsIllegal) {
  // A deterministic sample of the 2^32 space, plus every custom-opcode
  // funct3: whatever decodes must re-encode to the same word.
  std::mt19937 rng(12345);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t word = static_cast<uint32_t>(rng());
    DecodedInstruction d = decode(word);
    if (!d.valid()) continue;
    auto re = encode(d);
    ASSERT_TRUE(re.ok()) << std::hex << word << " " << re.error().what();
    EXPECT_EQ(re.value(), word) << d.row->mnemonic;
  }
}

TEST(Encode, RandomOperandsRoundTripThroughDecode) {
  std::mt19937_64 rng(7);
  for (const auto& r : instruction_table()) {
    for (int i = 0; i < 200; ++i) {
      DecodedInstruction f = random_operands(r, rng);
      auto word = encode(f);
      ASSERT_TRUE(word.ok()) << r.mnemonic << ": " << word.error().what();
      DecodedInstruction d = decode(word.value());
      ASSERT_TRUE(d.valid()) << r.mnemonic;
      EXPECT_EQ(d.opcode, r.opcode);
      EXPECT_EQ(encode(d).value(), word.value()) << r.mnemonic;
    }
  }
}

TEST(Encode, OutOfRangeOperandsAreErrors) {
  auto err = [](DecodedInstruction f) {
    auto r = encode(f);
    return r.ok() ? std::string() : std::string(r.error().what());
  };
  EXPECT_NE(err({.opcode = Opcode::kAddi, .rd = 1, .rs1 = 2, .imm = 2048}).find("addi: operand imm12: immediate 2048 out of range"), std::string::npos);
  EXPECT_NE(err({.opcode = Opcode::kAdd, .rd = 32}).find("register 32"), std::string::npos);
  EXPECT_NE(err({.opcode = Opcode::kBeq, .imm = 3}).find("odd"), std::string::npos);
  EXPECT_NE(err({.opcode = Opcode::kSlli, .imm = 64}).find("0..63"), std::string::npos);
  EXPECT_NE(err({.opcode = Opcode::kSemWait, .imm = 4096}).find("0..4095"), std::string::npos);
  EXPECT_FALSE(encode({.opcode = Opcode::kIllegal}).ok());
}

}  // namespace
}  // namespace snr::isa
