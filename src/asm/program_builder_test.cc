#include <gtest/gtest.h>

#include "asm/assembler.h"
#include "asm/program_builder.h"

namespace snr::assembler {
namespace {

using isa::Opcode;

TEST(ProgramBuilder, MatchesTheAssembler) {
  ProgramBuilder b;
  b.label("_start", true);
  b.li(10, 0);
  b.li(11, 10);
  b.label("loop");
  b.emit({.opcode = Opcode::kAddi, .rd = 10, .rs1 = 10, .imm = 1});
  b.branch(Opcode::kBne, 10, 11, "loop");
  b.la(12, "table");
  b.jump("loop");
  b.data_section();
  b.label("table");
  b.u64(42);
  elf::Image built = b.build().value();

  auto assembled = assemble(R"(
    .globl _start
_start: li a0, 0
        li a1, 10
loop:   addi a0, a0, 1
        bne a0, a1, loop
        la a2, table
        j loop
        .data
table:  .dword 42
)").value();
  EXPECT_EQ(elf::write_elf(built), elf::write_elf(assembled));
}

TEST(ProgramBuilder, AnonymousLabelsAndHelpersMatchTheAssembler) {
  ProgramBuilder b;
  b.label("_start", true);
  b.li(5, static_cast<int64_t>(isa::kGlobalRemoteBit | 0x1'0010'0000));  // wider than 32 bits
  const ProgramBuilder::Label loop = b.new_label();
  b.bind(loop);
  b.i(Opcode::kAddi, 5, 5, -1);
  b.branch(Opcode::kBne, 5, 0, loop);
  b.sem_wait(2, 3);
  b.exit(5);
  elf::Image built = b.build().value();

  auto assembled = assemble(R"(
    .globl _start
_start: li t0, 0x80000100100000
loop:   addi t0, t0, -1
        bne t0, zero, loop
        sem.wait sem2, 3
        addi a0, t0, 0
        li a7, 93
        ecall
)").value();
  // The assembler's `loop` is a symbol; an anonymous label is not.
  ASSERT_EQ(built.sections.at(0).data, assembled.sections.at(0).data);
  for (const elf::Symbol& symbol : built.symbols) EXPECT_EQ(symbol.name, "_start");
}

TEST(ProgramBuilder, ReportsUndefinedAndBadOperands) {
  ProgramBuilder b;
  b.jump("nowhere");
  b.emit({.opcode = Opcode::kAddi, .rd = 1, .imm = 5000});
  auto r = b.build();
  ASSERT_FALSE(r.ok());
  const std::string message = r.error().what();
  EXPECT_NE(message.find("undefined label 'nowhere'"), std::string::npos) << message;
  EXPECT_NE(message.find("immediate 5000 out of range"), std::string::npos) << message;
}

}  // namespace
}  // namespace snr::assembler
