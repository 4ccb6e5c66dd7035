#include "isa/disasm.h"

#include <fmt/format.h>

#include "isa/registers.h"

namespace snr::isa {
namespace {

std::string x(unsigned index) { return std::string(x_register_abi_name(index)); }

std::string hex(uint64_t v) { return fmt::format("{:#x}", v); }

std::string csr_text(uint16_t csr) {
  std::string_view name = csr_name(csr);
  // objdump knows cycle/instret/mhartid by name; nchips is ours, and
  // objdump prints unknown CSRs in hex, so do the same for it.
  if (!name.empty() && csr != kCsrNchips) return std::string(name);
  return hex(csr);
}

std::string fence_set(uint64_t bits4) {
  if (bits4 == 0) return "0";
  std::string s;
  if (bits4 & 8) s += 'i';
  if (bits4 & 4) s += 'o';
  if (bits4 & 2) s += 'r';
  if (bits4 & 1) s += 'w';
  return s;
}

std::string target_text(const DecodedInstruction& d, uint64_t pc, const DisasmOptions& o) {
  const uint64_t target = pc + static_cast<uint64_t>(d.imm);
  if (o.assembler_targets) return hex(target);
  std::string text = fmt::format("{:x}", target);
  if (o.symbolize) {
    std::string name = o.symbolize(target);
    if (!name.empty()) text += " <" + name + ">";
  }
  return text;
}

std::string operand_text(OperandKind kind, const DecodedInstruction& d, uint64_t pc,
                         const DisasmOptions& o) {
  switch (kind) {
    case OperandKind::kNone: return {};
    case OperandKind::kRd: return x(d.rd);
    case OperandKind::kRs1: return x(d.rs1);
    case OperandKind::kRs2: return x(d.rs2);
    case OperandKind::kRs3: return x(d.rs3);
    case OperandKind::kVd: return fmt::format("v{}", d.vd);
    case OperandKind::kVs1: return fmt::format("v{}", d.vs1);
    case OperandKind::kVs2: return fmt::format("v{}", d.vs2);
    case OperandKind::kVs3: return fmt::format("v{}", d.vs3);
    case OperandKind::kVsRd: return fmt::format("v{}", d.vs1);
    case OperandKind::kImmI: return fmt::format("{}", d.imm);
    case OperandKind::kImmU: return hex(static_cast<uint64_t>(d.imm));
    case OperandKind::kImmB:
    case OperandKind::kImmJ: return target_text(d, pc, o);
    case OperandKind::kMemI:
    case OperandKind::kMemS: return fmt::format("{}({})", d.imm, x(d.rs1));
    case OperandKind::kShamt6:
    case OperandKind::kShamt5: return hex(static_cast<uint64_t>(d.imm));
    case OperandKind::kCsr: return csr_text(d.csr);
    case OperandKind::kZimm: return fmt::format("{}", d.imm);
    case OperandKind::kFencePred: return fence_set((static_cast<uint64_t>(d.imm) >> 4) & 0xF);
    case OperandKind::kFenceSucc: return fence_set(static_cast<uint64_t>(d.imm) & 0xF);
    case OperandKind::kSemRd:
    case OperandKind::kSemRs1: return fmt::format("sem{}", d.sem);
    case OperandKind::kMxuRd:
    case OperandKind::kMxuRs1: return fmt::format("mxu{}", d.mxu);
    case OperandKind::kUimm12: return fmt::format("{}", d.imm);
  }
  return "?";
}

std::string join(std::string_view mnemonic, std::initializer_list<std::string> operands) {
  std::string out(mnemonic);
  bool first = true;
  for (const auto& op : operands) {
    out += first ? " " : ",";
    out += op;
    first = false;
  }
  return out;
}

// objdump's alias choices; empty when the canonical form is printed.
std::string alias_text(const DecodedInstruction& d, uint64_t pc, const DisasmOptions& o) {
  const auto imm = d.imm;
  switch (d.opcode) {
    case Opcode::kAddi:
      if (d.rd == 0 && d.rs1 == 0 && imm == 0) return "nop";
      if (d.rs1 == 0) return join("li", {x(d.rd), fmt::format("{}", imm)});
      if (imm == 0) return join("mv", {x(d.rd), x(d.rs1)});
      return {};
    case Opcode::kAddiw:
      return imm == 0 ? join("sext.w", {x(d.rd), x(d.rs1)}) : std::string();
    case Opcode::kXori: return imm == -1 ? join("not", {x(d.rd), x(d.rs1)}) : std::string();
    case Opcode::kSub: return d.rs1 == 0 ? join("neg", {x(d.rd), x(d.rs2)}) : std::string();
    case Opcode::kSubw: return d.rs1 == 0 ? join("negw", {x(d.rd), x(d.rs2)}) : std::string();
    case Opcode::kSltiu: return imm == 1 ? join("seqz", {x(d.rd), x(d.rs1)}) : std::string();
    case Opcode::kSltu: return d.rs1 == 0 ? join("snez", {x(d.rd), x(d.rs2)}) : std::string();
    case Opcode::kSlt:
      if (d.rs2 == 0) return join("sltz", {x(d.rd), x(d.rs1)});
      if (d.rs1 == 0) return join("sgtz", {x(d.rd), x(d.rs2)});
      return {};
    case Opcode::kBeq:
      return d.rs2 == 0 ? join("beqz", {x(d.rs1), target_text(d, pc, o)}) : std::string();
    case Opcode::kBne:
      return d.rs2 == 0 ? join("bnez", {x(d.rs1), target_text(d, pc, o)}) : std::string();
    case Opcode::kBge:
      if (d.rs1 == 0) return join("blez", {x(d.rs2), target_text(d, pc, o)});
      if (d.rs2 == 0) return join("bgez", {x(d.rs1), target_text(d, pc, o)});
      return {};
    case Opcode::kBlt:
      if (d.rs2 == 0) return join("bltz", {x(d.rs1), target_text(d, pc, o)});
      if (d.rs1 == 0) return join("bgtz", {x(d.rs2), target_text(d, pc, o)});
      return {};
    case Opcode::kJal:
      if (d.rd == 0) return join("j", {target_text(d, pc, o)});
      if (d.rd == 1) return join("jal", {target_text(d, pc, o)});
      return {};
    case Opcode::kJalr:
      if (d.rd == 0 && d.rs1 == 1 && imm == 0) return "ret";
      if (d.rd == 0) return imm == 0 ? join("jr", {x(d.rs1)}) : join("jr", {fmt::format("{}({})", imm, x(d.rs1))});
      if (d.rd == 1) return imm == 0 ? join("jalr", {x(d.rs1)}) : join("jalr", {fmt::format("{}({})", imm, x(d.rs1))});
      return {};
    case Opcode::kFence: return imm == 0xFF ? "fence" : std::string();
    case Opcode::kCsrrs:
      if (d.rs1 == 0 && d.csr == kCsrCycle) return join("rdcycle", {x(d.rd)});
      if (d.rs1 == 0 && d.csr == kCsrInstret) return join("rdinstret", {x(d.rd)});
      if (d.rs1 == 0) return join("csrr", {x(d.rd), csr_text(d.csr)});
      if (d.rd == 0) return join("csrs", {csr_text(d.csr), x(d.rs1)});
      return {};
    case Opcode::kCsrrw: return d.rd == 0 ? join("csrw", {csr_text(d.csr), x(d.rs1)}) : std::string();
    case Opcode::kCsrrc: return d.rd == 0 ? join("csrc", {csr_text(d.csr), x(d.rs1)}) : std::string();
    case Opcode::kCsrrwi:
      return d.rd == 0 ? join("csrw", {csr_text(d.csr), fmt::format("{}", imm)}) : std::string();
    case Opcode::kCsrrsi:
      return d.rd == 0 ? join("csrs", {csr_text(d.csr), fmt::format("{}", imm)}) : std::string();
    case Opcode::kCsrrci:
      return d.rd == 0 ? join("csrc", {csr_text(d.csr), fmt::format("{}", imm)}) : std::string();
    default: return {};
  }
}

}  // namespace

std::string disassemble(const DecodedInstruction& d, uint64_t pc, const DisasmOptions& options) {
  if (!d.valid()) return fmt::format(".word 0x{:08x}", d.word);
  if (options.aliases) {
    std::string alias = alias_text(d, pc, options);
    if (!alias.empty()) return alias;
  }
  std::string out(d.row->mnemonic);
  bool first = true;
  for (OperandKind kind : d.row->operands) {
    if (kind == OperandKind::kNone) break;
    out += first ? " " : ",";
    out += operand_text(kind, d, pc, options);
    first = false;
  }
  return out;
}

}  // namespace snr::isa
