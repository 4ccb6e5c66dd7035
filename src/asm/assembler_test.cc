#include <fmt/format.h>
#include <gtest/gtest.h>

#include "asm/assembler.h"
#include "isa/disasm.h"
#include "isa/isa.h"

namespace snr::assembler {
namespace {

std::vector<uint32_t> words_of(const elf::Section& s) {
  std::vector<uint32_t> words;
  for (size_t i = 0; i + 3 < s.data.size(); i += 4) {
    words.push_back(static_cast<uint32_t>(s.data[i]) | static_cast<uint32_t>(s.data[i + 1]) << 8 |
                    static_cast<uint32_t>(s.data[i + 2]) << 16 | static_cast<uint32_t>(s.data[i + 3]) << 24);
  }
  return words;
}

std::vector<std::string> disassembly(std::string_view source) {
  auto image = assemble(source, {.source_name = "t.s"});
  if (!image.ok()) return {std::string("ERROR ") + image.error().what()};
  std::vector<std::string> out;
  const auto& text = image.value().sections.at(0);
  uint64_t pc = text.address;
  for (uint32_t w : words_of(text)) {
    out.push_back(isa::disassemble(isa::decode(w), pc, {.aliases = false, .assembler_targets = true, .symbolize = {}}));
    pc += 4;
  }
  return out;
}

std::string error_of(std::string_view source) {
  auto image = assemble(source, {.source_name = "bad.s"});
  return image.ok() ? "ok" : image.error().what();
}

TEST(Assembler, PseudoInstructionsExpandLikeGnuAs) {
  EXPECT_EQ(disassembly("nop\nmv a0,a1\nnot a0,a1\nneg a0,a1\nsext.w a0,a1\nseqz a0,a1\nret\n"),
            (std::vector<std::string>{"addi zero,zero,0", "addi a0,a1,0", "xori a0,a1,-1", "sub a0,zero,a1",
                                      "addiw a0,a1,0", "sltiu a0,a1,1", "jalr zero,0(ra)"}));
  EXPECT_EQ(disassembly("jalr t0, a1\njalr t0, a1, 8\njalr a2\njr 4(a3)\nfence\ndma.wait s3, 2\n"),
            (std::vector<std::string>{"jalr t0,0(a1)", "jalr t0,8(a1)", "jalr ra,0(a2)", "jalr zero,4(a3)",
                                      "fence iorw,iorw", "sem.wait sem3,2"}));
  EXPECT_EQ(disassembly("li a0, 0x12345678\n"), (std::vector<std::string>{"lui a0,0x12345", "addiw a0,a0,1656"}));
  EXPECT_EQ(disassembly("top: bgt a0, a1, top\nble a0,a1,top\nj top\ncall top\ntail top\n"),
            (std::vector<std::string>{"blt a1,a0,0x10000", "bge a1,a0,0x10000", "jal zero,0x10000",
                                      "auipc ra,0x0", "jalr ra,-12(ra)", "auipc t1,0x0", "jalr zero,-20(t1)"}));
}

TEST(Assembler, LiMaterialisesEvery64BitConstant) {
  // Evaluate the emitted sequence with a tiny interpreter of the four
  // opcodes li uses.
  for (int64_t value : {int64_t{0}, int64_t{-1}, int64_t{2047}, int64_t{-2048}, int64_t{0x7FFFFFFF},
                        int64_t{-0x80000000LL}, int64_t{0x80000000LL}, int64_t{0x123456789ABCDEF0},
                        int64_t{INT64_MIN}, int64_t{INT64_MAX}, int64_t{0x7FFFF800}, int64_t{0xFFFFFFFF}}) {
    auto image = assemble(fmt::format("li t0, {}\n", value));
    ASSERT_TRUE(image.ok()) << value;
    int64_t t0 = 0x5555;
    for (uint32_t w : words_of(image.value().sections.at(0))) {
      const auto d = isa::decode(w);
      ASSERT_EQ(d.rd, 5);
      const int64_t src = d.rs1 == 0 ? 0 : t0;
      switch (d.opcode) {
        case isa::Opcode::kLui: t0 = static_cast<int32_t>(static_cast<uint32_t>(d.imm) << 12); break;
        case isa::Opcode::kAddi: t0 = static_cast<int64_t>(static_cast<uint64_t>(src) + static_cast<uint64_t>(d.imm)); break;
        case isa::Opcode::kAddiw: t0 = static_cast<int32_t>(static_cast<uint32_t>(src + d.imm)); break;
        case isa::Opcode::kSlli: t0 = static_cast<int64_t>(static_cast<uint64_t>(src) << d.imm); break;
        default: FAIL() << "unexpected " << d.row->mnemonic;
      }
    }
    EXPECT_EQ(t0, value);
  }
}

TEST(Assembler, SectionsDataAndSymbols) {
  const char* source = R"(
    .equ COUNT, 3
    .globl _start
    .text
_start:
    la a0, table
    lw a1, %lo(table)(zero)
    ecall
layer3.attn.qkv_matmul:
    vld v1, a0, zero
    mxu.ldw mxu0, a0, zero
    ret
    .data
    .align 3
table: .dword 1, table
msg:   .asciz "hi\n"
    .bss
buf:   .zero 64
)";
  auto result = assemble(source, {.source_name = "t.s"});
  ASSERT_TRUE(result.ok()) << result.error().what();
  const elf::Image& image = result.value();
  ASSERT_EQ(image.sections.size(), 3u);
  EXPECT_EQ(image.sections[0].address, 0x10000u);
  EXPECT_EQ(image.sections[1].address, 0x11000u);
  EXPECT_EQ(image.sections[2].address, 0x12000u);
  EXPECT_EQ(image.sections[2].kind, elf::SectionKind::kNoBits);
  EXPECT_EQ(image.entry, 0x10000u);
  const elf::Symbol* op = image.find_symbol("layer3.attn.qkv_matmul");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->type, elf::SymbolType::kFunc);
  EXPECT_EQ(op->value, 0x10010u);
  EXPECT_EQ(op->size_bytes, 12u);
  const elf::Symbol* start = image.find_symbol("_start");
  EXPECT_EQ(start->binding, elf::SymbolBinding::kGlobal);
  EXPECT_EQ(start->size_bytes, 16u);
  const elf::Symbol* table = image.find_symbol("table");
  EXPECT_EQ(table->type, elf::SymbolType::kObject);
  EXPECT_EQ(table->size_bytes, 16u);
  EXPECT_EQ(image.sections[1].data[8], 0x00);
  EXPECT_EQ(image.sections[1].data[9], 0x10);  // .dword table = 0x11000
  EXPECT_EQ(image.find_symbol("buf")->size_bytes, 64u);
  // Deterministic output.
  EXPECT_EQ(assemble_to_elf(source).value(), assemble_to_elf(source).value());
}

TEST(Assembler, PcrelHiLo) {
  EXPECT_EQ(disassembly("here: auipc a0, %pcrel_hi(there)\naddi a0, a0, %pcrel_lo(here)\nthere: nop\n"),
            (std::vector<std::string>{"auipc a0,0x0", "addi a0,a0,8", "addi zero,zero,0"}));
}

TEST(Assembler, ErrorsNameFileLineColumn) {
  EXPECT_EQ(error_of("  nop\n  frob a0, a1\n"), "bad.s:2:3: unknown mnemonic 'frob'");
  EXPECT_EQ(error_of("addi a0, q9, 1\n"), "bad.s:1:10: bad register 'q9': expected x0..x31 or an ABI name");
  EXPECT_EQ(error_of("addi a0, a0, 4096\n"), "bad.s:1:14: addi: operand imm12: immediate 4096 out of range -2048..2047");
  EXPECT_EQ(error_of("j nowhere\n"), "bad.s:1:3: undefined symbol 'nowhere'");
  EXPECT_EQ(error_of("x:\nx: nop\n"), "bad.s:2:1: duplicate label 'x' (first defined at line 1)");
  EXPECT_EQ(error_of("addi a0, a1\n"), "bad.s:1:1: 'addi' expects 3 operands (rd,rs1,imm12), got 2");
  EXPECT_EQ(error_of(".frob 1\n"), "bad.s:1:1: unknown directive '.frob'");
  EXPECT_EQ(error_of(".byte 256\n"), "bad.s:1:7: value 256 does not fit in 1 byte");
  EXPECT_EQ(error_of(".globl main\n"), "bad.s:1:8: .globl 'main' is never defined");
  EXPECT_EQ(error_of("vadd.f32 v1, v2, a0\n"), "bad.s:1:18: bad vector register 'a0': expected v0..v31");
  EXPECT_EQ(error_of(".ascii \"abc\n"), "bad.s:1:11: unterminated string literal");
  // Several errors are all reported.
  EXPECT_EQ(error_of("frob\nfrob\n"), "bad.s:1:1: unknown mnemonic 'frob'\nbad.s:2:1: unknown mnemonic 'frob'");
}

}  // namespace
}  // namespace snr::assembler

namespace snr::assembler {
namespace {

TEST(Assembler, ExecutableWithoutCodeIsRefused) {
  for (const char* source : {"", "# nothing yet\n", ".data\nx: .word 1\n"}) {
    auto elf = assemble_to_elf(source, {.source_name = "empty.s"});
    ASSERT_FALSE(elf.ok()) << source;
    EXPECT_NE(std::string(elf.error().what()).find("empty.s: no instructions"), std::string::npos);
  }
  EXPECT_TRUE(assemble_to_elf("_start: ret\n", {.source_name = "one.s"}).ok());
}

}  // namespace
}  // namespace snr::assembler
