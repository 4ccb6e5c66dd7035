#include <gtest/gtest.h>

#include "asm/expr.h"

namespace snr::assembler {
namespace {

int64_t eval(std::string_view text) {
  ExprContext ctx;
  ctx.pc = 0x1000;
  ctx.lookup = [](std::string_view name) -> std::optional<int64_t> {
    if (name == "sym") return 0x12345678;
    if (name == "layer3.attn") return 0x10010;
    return std::nullopt;
  };
  return evaluate(text, ctx).value();
}

std::string error_of(std::string_view text) {
  auto r = evaluate(text, {});
  return r.ok() ? "ok" : r.error().what();
}

TEST(Expr, ArithmeticAndPrecedence) {
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("1 << 4 | 1"), 17);
  EXPECT_EQ(eval("-0x10 + 0b11"), -13);
  EXPECT_EQ(eval("~0"), -1);
  EXPECT_EQ(eval("'A'"), 65);
  EXPECT_EQ(eval("7 % 4"), 3);
  EXPECT_EQ(eval("0xffffffffffffffff"), -1);
}

TEST(Expr, SymbolsAndRelocations) {
  EXPECT_EQ(eval("sym + 4"), 0x1234567C);
  EXPECT_EQ(eval("layer3.attn - 0x10"), 0x10000);
  EXPECT_EQ(eval("%hi(sym)"), 0x12345);
  EXPECT_EQ(eval("%lo(sym)"), 0x678);
  EXPECT_EQ(eval("%hi(0x800)"), 1);
  EXPECT_EQ(eval("%lo(0x800)"), -2048);
  EXPECT_EQ(eval("%pcrel_hi(0x3000)"), 2);
}

TEST(Expr, ErrorsAreClear) {
  EXPECT_EQ(error_of("nosuch + 1"), "undefined symbol 'nosuch'");
  EXPECT_EQ(error_of("1 / 0"), "division by zero in expression");
  EXPECT_EQ(error_of("0x"), "digits expected after base prefix");
  EXPECT_EQ(error_of("12z"), "bad digit 'z' in number");
  EXPECT_EQ(error_of("(1"), "')' expected in expression");
  EXPECT_EQ(error_of("%bogus(1)"), "unknown relocation operator %bogus");
  EXPECT_EQ(error_of("99999999999999999999"), "number does not fit in 64 bits");
  EXPECT_EQ(error_of("1 << 64"), "shift count 64 out of range 0..63 in expression");  // was 0
  EXPECT_EQ(error_of("-8 >> -1"), "shift count -1 out of range 0..63 in expression");
  EXPECT_EQ(eval("1 << 63"), INT64_MIN);
  EXPECT_EQ(eval("-8 >> 63"), -1);
  EXPECT_EQ(error_of(std::string(1000, '(') + "1"), "expression nested too deeply");
}

}  // namespace
}  // namespace snr::assembler
