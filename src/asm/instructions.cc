#include "asm/instructions.h"

#include <array>
#include <fmt/format.h>

#include "isa/registers.h"

namespace snr::assembler {
namespace {

using isa::DecodedInstruction;
using isa::InstructionRow;
using isa::Opcode;
using isa::OperandKind;

// Pseudo-instructions expanded by encode_instruction (jal/jalr/fence also
// have short forms there); also the source of docs/isa.md's pseudo table.
constexpr auto kPseudoInstructions = std::to_array<PseudoInstruction>({
    {"nop", "", "addi zero,zero,0"},
    {"li", "rd,imm", "lui/addi(w)/slli sequence for any 64-bit constant (1-8 instructions)"},
    {"la", "rd,symbol", "auipc rd,%pcrel_hi(symbol); addi rd,rd,%pcrel_lo"},
    {"lla", "rd,symbol", "same as la"},
    {"mv", "rd,rs", "addi rd,rs,0"},
    {"not", "rd,rs", "xori rd,rs,-1"},
    {"neg", "rd,rs", "sub rd,zero,rs"},
    {"negw", "rd,rs", "subw rd,zero,rs"},
    {"sext.w", "rd,rs", "addiw rd,rs,0"},
    {"zext.b", "rd,rs", "andi rd,rs,255"},
    {"seqz", "rd,rs", "sltiu rd,rs,1"},
    {"snez", "rd,rs", "sltu rd,zero,rs"},
    {"sltz", "rd,rs", "slt rd,rs,zero"},
    {"sgtz", "rd,rs", "slt rd,zero,rs"},
    {"beqz", "rs,target", "beq rs,zero,target"},
    {"bnez", "rs,target", "bne rs,zero,target"},
    {"blez", "rs,target", "bge zero,rs,target"},
    {"bgez", "rs,target", "bge rs,zero,target"},
    {"bltz", "rs,target", "blt rs,zero,target"},
    {"bgtz", "rs,target", "blt zero,rs,target"},
    {"bgt", "rs1,rs2,target", "blt rs2,rs1,target"},
    {"ble", "rs1,rs2,target", "bge rs2,rs1,target"},
    {"bgtu", "rs1,rs2,target", "bltu rs2,rs1,target"},
    {"bleu", "rs1,rs2,target", "bgeu rs2,rs1,target"},
    {"j", "target", "jal zero,target"},
    {"jal", "target", "jal ra,target"},
    {"jr", "rs | offset(rs)", "jalr zero,offset(rs)"},
    {"jalr", "rs | offset(rs)", "jalr ra,offset(rs)"},
    {"ret", "", "jalr zero,0(ra)"},
    {"call", "symbol", "auipc ra,%pcrel_hi(symbol); jalr ra,%pcrel_lo(ra)"},
    {"tail", "symbol", "auipc t1,%pcrel_hi(symbol); jalr zero,%pcrel_lo(t1)"},
    {"fence", "", "fence iorw,iorw"},
    {"rdcycle", "rd", "csrrs rd,cycle,zero"},
    {"rdinstret", "rd", "csrrs rd,instret,zero"},
    {"csrr", "rd,csr", "csrrs rd,csr,zero"},
    {"csrw", "csr,rs|uimm", "csrrw(i) zero,csr,rs|uimm"},
    {"csrs", "csr,rs|uimm", "csrrs(i) zero,csr,rs|uimm"},
    {"csrc", "csr,rs|uimm", "csrrc(i) zero,csr,rs|uimm"},
    {"csrwi", "csr,uimm", "csrrwi zero,csr,uimm"},
    {"csrsi", "csr,uimm", "csrrsi zero,csr,uimm"},
    {"csrci", "csr,uimm", "csrrci zero,csr,uimm"},
    {"dma.wait", "sem,uimm12", "sem.wait sem,uimm12"},
});

Token synthetic(std::string text, int column) { return Token{std::move(text), column}; }

std::string syntax_of(const InstructionRow& row) {
  std::string s;
  for (OperandKind kind : row.operands) {
    if (kind == OperandKind::kNone) break;
    if (!s.empty()) s += ',';
    s += isa::operand_kind_name(kind);
  }
  return s;
}

void expect_count(const Token& mnemonic, const std::vector<Token>& ops, size_t count, std::string_view syntax) {
  if (ops.size() != count) {
    throw LocatedError(mnemonic.column, fmt::format("'{}' expects {} operand{} ({}), got {}", mnemonic.text, count,
                                                    count == 1 ? "" : "s", syntax, ops.size()));
  }
}

uint8_t x_register(const Token& t) {
  auto r = isa::parse_x_register(t.text);
  if (!r) throw LocatedError(t.column, fmt::format("bad register '{}': expected x0..x31 or an ABI name", t.text));
  return static_cast<uint8_t>(*r);
}
uint8_t v_register(const Token& t) {
  auto r = isa::parse_v_register(t.text);
  if (!r) throw LocatedError(t.column, fmt::format("bad vector register '{}': expected v0..v31", t.text));
  return static_cast<uint8_t>(*r);
}
uint8_t semaphore(const Token& t) {
  auto r = isa::parse_semaphore(t.text);
  if (!r) throw LocatedError(t.column, fmt::format("bad semaphore '{}': expected sem0..sem31", t.text));
  return static_cast<uint8_t>(*r);
}
uint8_t matrix_unit(const Token& t) {
  auto r = isa::parse_mxu(t.text);
  if (!r) throw LocatedError(t.column, fmt::format("bad matrix unit '{}': expected mxu0..mxu31", t.text));
  return static_cast<uint8_t>(*r);
}

int64_t value_of(const Token& t, const ExprContext& ctx) {
  auto r = evaluate(t.text, ctx);
  if (!r.ok()) throw LocatedError(t.column, r.error().what());
  return r.value();
}

// "expr(reg)" or "(reg)": the register is the last parenthesised group.
void memory_operand(const Token& t, const ExprContext& ctx, uint8_t& base, int64_t& offset) {
  const std::string& s = t.text;
  if (s.empty() || s.back() != ')') {
    throw LocatedError(t.column, fmt::format("memory operand 'offset(register)' expected, got '{}'", s));
  }
  const size_t open = s.rfind('(');
  if (open == std::string::npos) throw LocatedError(t.column, "memory operand: '(' expected");
  base = x_register(synthetic(s.substr(open + 1, s.size() - open - 2), t.column + static_cast<int>(open) + 1));
  const std::string expr = s.substr(0, open);
  offset = expr.find_first_not_of(" \t") == std::string::npos ? 0 : value_of(synthetic(expr, t.column), ctx);
}

int64_t fence_set(const Token& t) {
  if (t.text == "0") return 0;
  int64_t bits = 0;
  size_t order = 0;
  const std::string_view letters = "iorw";
  for (char c : t.text) {
    const size_t at = letters.find(c);
    if (at == std::string_view::npos || at < order) {
      throw LocatedError(t.column, fmt::format("bad fence set '{}': letters from 'iorw' in that order", t.text));
    }
    order = at + 1;
    bits |= int64_t{8} >> at;
  }
  if (bits == 0) throw LocatedError(t.column, "empty fence set");
  return bits;
}

uint16_t csr_number(const Token& t, const ExprContext& ctx) {
  if (auto named = isa::parse_csr_name(t.text)) return *named;
  const int64_t v = value_of(t, ctx);
  if (v < 0 || v > 0xFFF) throw LocatedError(t.column, fmt::format("CSR number {:#x} out of range 0..0xfff", v));
  return static_cast<uint16_t>(v);
}

uint32_t encode_or_throw(const DecodedInstruction& f, const InstructionRow& row, const std::vector<Token>& ops,
                         int fallback_column) {
  auto word = isa::encode(f);
  if (word.ok()) return word.value();
  // Point at the operand the encoder names ("addi: operand imm12: ...").
  const std::string message = word.error().what();
  int column = fallback_column;
  for (size_t i = 0; i < ops.size() && i < row.operands.size(); ++i) {
    if (message.find(fmt::format("operand {}:", isa::operand_kind_name(row.operands[i]))) != std::string::npos) {
      column = ops[i].column;
      break;
    }
  }
  throw LocatedError(column, message);
}

uint32_t encode_row(const InstructionRow& row, const Token& mnemonic, const std::vector<Token>& ops,
                    const ExprContext& ctx) {
  expect_count(mnemonic, ops, static_cast<size_t>(row.operand_count()), syntax_of(row));
  DecodedInstruction f;
  f.opcode = row.opcode;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Token& t = ops[i];
    switch (row.operands[i]) {
      case OperandKind::kNone: break;
      case OperandKind::kRd: f.rd = x_register(t); break;
      case OperandKind::kRs1: f.rs1 = x_register(t); break;
      case OperandKind::kRs2: f.rs2 = x_register(t); break;
      case OperandKind::kRs3: f.rs3 = x_register(t); break;
      case OperandKind::kVd: f.vd = v_register(t); break;
      case OperandKind::kVs1:
      case OperandKind::kVsRd: f.vs1 = v_register(t); break;
      case OperandKind::kVs2: f.vs2 = v_register(t); break;
      case OperandKind::kVs3: f.vs3 = v_register(t); break;
      case OperandKind::kImmI:
      case OperandKind::kImmU:
      case OperandKind::kShamt6:
      case OperandKind::kShamt5:
      case OperandKind::kZimm:
      case OperandKind::kUimm12: f.imm = value_of(t, ctx); break;
      case OperandKind::kImmB:
      case OperandKind::kImmJ:
        f.imm = static_cast<int64_t>(static_cast<uint64_t>(value_of(t, ctx)) - ctx.pc);
        break;
      case OperandKind::kMemI:
      case OperandKind::kMemS: memory_operand(t, ctx, f.rs1, f.imm); break;
      case OperandKind::kCsr: f.csr = csr_number(t, ctx); break;
      case OperandKind::kFencePred: f.imm |= fence_set(t) << 4; break;
      case OperandKind::kFenceSucc: f.imm |= fence_set(t); break;
      case OperandKind::kSemRd:
      case OperandKind::kSemRs1: f.sem = semaphore(t); break;
      case OperandKind::kMxuRd:
      case OperandKind::kMxuRs1: f.mxu = matrix_unit(t); break;
    }
  }
  return encode_or_throw(f, row, ops, mnemonic.column);
}

uint32_t encode_named(std::string_view mnemonic, const Token& at, const std::vector<Token>& ops,
                      const ExprContext& ctx) {
  const InstructionRow* row = isa::find_row(mnemonic);
  return encode_row(*row, Token{std::string(mnemonic), at.column}, ops, ctx);
}

uint32_t encode_fields(const DecodedInstruction& f, const Token& at) {
  auto word = isa::encode(f);
  if (!word.ok()) throw LocatedError(at.column, word.error().what());
  return word.value();
}

// auipc + second instruction for a pc-relative reference to `target`.
std::vector<uint32_t> pc_relative_pair(uint8_t auipc_rd, const DecodedInstruction& second_template, int64_t target,
                                       const Token& at, const ExprContext& ctx) {
  const int64_t delta = static_cast<int64_t>(static_cast<uint64_t>(target) - ctx.pc);
  if (delta < -(int64_t{1} << 31) - 0x800 || delta >= (int64_t{1} << 31) - 0x800) {
    throw LocatedError(at.column, fmt::format("target {:#x} is out of pc-relative range (+-2 GiB)", target));
  }
  DecodedInstruction auipc{.opcode = Opcode::kAuipc, .rd = auipc_rd, .imm = hi20_of(delta)};
  DecodedInstruction second = second_template;
  second.imm = lo12_of(delta);
  return {encode_fields(auipc, at), encode_fields(second, at)};
}

bool is_pseudo(std::string_view mnemonic) {
  for (const auto& p : kPseudoInstructions) {
    if (p.mnemonic == mnemonic) return true;
  }
  return false;
}

}  // namespace

std::vector<DecodedInstruction> li_sequence(uint8_t rd, int64_t value) {
  std::vector<DecodedInstruction> out;
  if (value >= INT32_MIN && value <= INT32_MAX) {
    const int64_t hi = hi20_of(value), lo = lo12_of(value);
    if (hi != 0) out.push_back({.opcode = Opcode::kLui, .rd = rd, .imm = hi});
    if (lo != 0 || hi == 0) {
      out.push_back({.opcode = hi != 0 ? Opcode::kAddiw : Opcode::kAddi, .rd = rd, .rs1 = static_cast<uint8_t>(hi != 0 ? rd : 0), .imm = lo});
    }
    return out;
  }
  // Materialise the upper part, shift it into place, add the low 12 bits.
  const int64_t lo = lo12_of(value);
  auto upper = static_cast<int64_t>((static_cast<uint64_t>(value) + 0x800) >> 12);
  upper = (upper << 12) >> 12;  // value + 0x800 >> 12 as a signed 52-bit quantity
  int shift = 12;
  while ((upper & 1) == 0) {
    upper >>= 1;
    ++shift;
  }
  out = li_sequence(rd, upper);
  out.push_back({.opcode = Opcode::kSlli, .rd = rd, .rs1 = rd, .imm = shift});
  if (lo != 0) out.push_back({.opcode = Opcode::kAddi, .rd = rd, .rs1 = rd, .imm = lo});
  return out;
}

std::span<const PseudoInstruction> pseudo_instructions() { return kPseudoInstructions; }

bool is_known_mnemonic(std::string_view mnemonic) {
  return isa::find_row(mnemonic) != nullptr || is_pseudo(mnemonic);
}

uint64_t instruction_size_bytes(const Token& mnemonic, const std::vector<Token>& operands,
                                const ExprContext& constants) {
  const std::string_view m = mnemonic.text;
  if (m == "li") {
    expect_count(mnemonic, operands, 2, "rd,imm");
    auto value = evaluate(operands[1].text, constants);
    if (!value.ok()) {
      // li's length depends on its value, so a symbol defined later cannot
      // be used; other failures (a division by zero, a bad shift) are just
      // the expression's.
      const std::string why = value.error().what();
      throw LocatedError(operands[1].column, why.starts_with("undefined symbol")
                                                 ? fmt::format("li needs a constant defined before this line: {}", why)
                                                 : fmt::format("li: {}", why));
    }
    return li_sequence(1, value.value()).size() * isa::kInstructionBytes;
  }
  if (m == "la" || m == "lla" || m == "call" || m == "tail") return 2 * isa::kInstructionBytes;
  if (!is_known_mnemonic(m)) throw LocatedError(mnemonic.column, fmt::format("unknown mnemonic '{}'", m));
  return isa::kInstructionBytes;
}

std::vector<uint32_t> encode_instruction(const Token& mn, const std::vector<Token>& ops, const ExprContext& ctx) {
  const std::string_view m = mn.text;
  const int c = mn.column;
  auto t = [&](std::string text) { return synthetic(std::move(text), c); };
  auto one = [&](std::string_view real, std::vector<Token> real_ops) {
    return std::vector<uint32_t>{encode_named(real, mn, real_ops, ctx)};
  };
  auto need = [&](size_t n, std::string_view syntax) { expect_count(mn, ops, n, syntax); };

  // Forms that share a mnemonic with a table row but take fewer operands.
  if (m == "jal" && ops.size() == 1) return one("jal", {t("ra"), ops[0]});
  if (m == "jalr" && ops.size() == 1) {
    if (ops[0].text.find('(') != std::string::npos) return one("jalr", {t("ra"), ops[0]});
    return one("jalr", {t("ra"), synthetic("0(" + ops[0].text + ")", ops[0].column)});
  }
  if (m == "jalr" && ops.size() == 2 && ops[1].text.find('(') == std::string::npos) {
    return one("jalr", {ops[0], synthetic("0(" + ops[1].text + ")", ops[1].column)});
  }
  if (m == "jalr" && ops.size() == 3) {
    return one("jalr", {ops[0], synthetic(ops[2].text + "(" + ops[1].text + ")", ops[1].column)});
  }
  if (m == "fence" && ops.empty()) return one("fence", {t("iorw"), t("iorw")});
  if (const InstructionRow* row = isa::find_row(m)) return {encode_row(*row, mn, ops, ctx)};

  if (m == "nop") { need(0, ""); return one("addi", {t("zero"), t("zero"), t("0")}); }
  if (m == "li") {
    need(2, "rd,imm");
    const uint8_t rd = x_register(ops[0]);
    std::vector<uint32_t> words;
    for (const auto& f : li_sequence(rd, value_of(ops[1], ctx))) words.push_back(encode_fields(f, ops[1]));
    return words;
  }
  if (m == "la" || m == "lla") {
    need(2, "rd,symbol");
    const uint8_t rd = x_register(ops[0]);
    return pc_relative_pair(rd, {.opcode = Opcode::kAddi, .rd = rd, .rs1 = rd}, value_of(ops[1], ctx), ops[1], ctx);
  }
  if (m == "call") {
    need(1, "symbol");
    return pc_relative_pair(1, {.opcode = Opcode::kJalr, .rd = 1, .rs1 = 1}, value_of(ops[0], ctx), ops[0], ctx);
  }
  if (m == "tail") {
    need(1, "symbol");
    return pc_relative_pair(6, {.opcode = Opcode::kJalr, .rd = 0, .rs1 = 6}, value_of(ops[0], ctx), ops[0], ctx);
  }
  if (m == "mv") { need(2, "rd,rs"); return one("addi", {ops[0], ops[1], t("0")}); }
  if (m == "not") { need(2, "rd,rs"); return one("xori", {ops[0], ops[1], t("-1")}); }
  if (m == "neg") { need(2, "rd,rs"); return one("sub", {ops[0], t("zero"), ops[1]}); }
  if (m == "negw") { need(2, "rd,rs"); return one("subw", {ops[0], t("zero"), ops[1]}); }
  if (m == "sext.w") { need(2, "rd,rs"); return one("addiw", {ops[0], ops[1], t("0")}); }
  if (m == "zext.b") { need(2, "rd,rs"); return one("andi", {ops[0], ops[1], t("255")}); }
  if (m == "seqz") { need(2, "rd,rs"); return one("sltiu", {ops[0], ops[1], t("1")}); }
  if (m == "snez") { need(2, "rd,rs"); return one("sltu", {ops[0], t("zero"), ops[1]}); }
  if (m == "sltz") { need(2, "rd,rs"); return one("slt", {ops[0], ops[1], t("zero")}); }
  if (m == "sgtz") { need(2, "rd,rs"); return one("slt", {ops[0], t("zero"), ops[1]}); }
  if (m == "beqz") { need(2, "rs,target"); return one("beq", {ops[0], t("zero"), ops[1]}); }
  if (m == "bnez") { need(2, "rs,target"); return one("bne", {ops[0], t("zero"), ops[1]}); }
  if (m == "blez") { need(2, "rs,target"); return one("bge", {t("zero"), ops[0], ops[1]}); }
  if (m == "bgez") { need(2, "rs,target"); return one("bge", {ops[0], t("zero"), ops[1]}); }
  if (m == "bltz") { need(2, "rs,target"); return one("blt", {ops[0], t("zero"), ops[1]}); }
  if (m == "bgtz") { need(2, "rs,target"); return one("blt", {t("zero"), ops[0], ops[1]}); }
  if (m == "bgt") { need(3, "rs1,rs2,target"); return one("blt", {ops[1], ops[0], ops[2]}); }
  if (m == "ble") { need(3, "rs1,rs2,target"); return one("bge", {ops[1], ops[0], ops[2]}); }
  if (m == "bgtu") { need(3, "rs1,rs2,target"); return one("bltu", {ops[1], ops[0], ops[2]}); }
  if (m == "bleu") { need(3, "rs1,rs2,target"); return one("bgeu", {ops[1], ops[0], ops[2]}); }
  if (m == "j") { need(1, "target"); return one("jal", {t("zero"), ops[0]}); }
  if (m == "jr") {
    need(1, "rs");
    if (ops[0].text.find('(') != std::string::npos) return one("jalr", {t("zero"), ops[0]});
    return one("jalr", {t("zero"), synthetic("0(" + ops[0].text + ")", ops[0].column)});
  }
  if (m == "ret") { need(0, ""); return one("jalr", {t("zero"), t("0(ra)")}); }
  if (m == "rdcycle") { need(1, "rd"); return one("csrrs", {ops[0], t("cycle"), t("zero")}); }
  if (m == "rdinstret") { need(1, "rd"); return one("csrrs", {ops[0], t("instret"), t("zero")}); }
  if (m == "csrr") { need(2, "rd,csr"); return one("csrrs", {ops[0], ops[1], t("zero")}); }
  if (m == "csrw" || m == "csrs" || m == "csrc") {
    need(2, "csr,rs|uimm");
    // objdump prints the immediate forms with these names too.
    const bool immediate = !isa::parse_x_register(ops[1].text).has_value();
    const std::string real = fmt::format("csrr{}{}", m.back(), immediate ? "i" : "");
    return one(real, {t("zero"), ops[0], ops[1]});
  }
  if (m == "csrwi" || m == "csrsi" || m == "csrci") {
    need(2, "csr,uimm");
    return one(fmt::format("csrr{}i", m[3]), {t("zero"), ops[0], ops[1]});
  }
  if (m == "dma.wait") { need(2, "sem,uimm12"); return one("sem.wait", {ops[0], ops[1]}); }
  throw LocatedError(c, fmt::format("unknown mnemonic '{}'", m));
}

}  // namespace snr::assembler
