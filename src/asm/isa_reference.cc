#include "asm/isa_reference.h"

#include <fmt/format.h>

#include "asm/instructions.h"
#include "isa/isa.h"

namespace snr::assembler {
namespace {

using isa::Effect;
using isa::OperandKind;

std::string syntax(const isa::InstructionRow& row) {
  std::string s;
  for (OperandKind kind : row.operands) {
    if (kind == OperandKind::kNone) break;
    if (!s.empty()) s += ',';
    s += isa::operand_kind_name(kind);
  }
  return s;
}

// Register operands by direction, from the operand kinds.
std::string register_effects(const isa::InstructionRow& row, bool writes) {
  std::string s;
  auto add = [&s](std::string_view name) { s += (s.empty() ? "" : " ") + std::string(name); };
  for (OperandKind kind : row.operands) {
    switch (kind) {
      case OperandKind::kRd: if (writes) add("x[rd]"); break;
      case OperandKind::kRs1: if (!writes) add("x[rs1]"); break;
      case OperandKind::kRs2: if (!writes) add("x[rs2]"); break;
      case OperandKind::kRs3: if (!writes) add("x[rs3]"); break;
      case OperandKind::kMemI:
      case OperandKind::kMemS: if (!writes) add("x[rs1]"); break;
      case OperandKind::kVd: if (writes) add("v[vd]"); break;
      case OperandKind::kVs1: if (!writes) add("v[vs1]"); break;
      case OperandKind::kVs2: if (!writes) add("v[vs2]"); break;
      case OperandKind::kVs3: if (!writes) add("v[vs3]"); break;
      case OperandKind::kVsRd: if (!writes) add("v[vs]"); break;
      default: break;
    }
  }
  return s;
}

std::string effect_text(const isa::InstructionRow& row) {
  switch (row.effect) {
    case Effect::kNone: return "";
    case Effect::kLoad: return fmt::format("mem read {} B at x[rs1]+offset", row.mem_bytes);
    case Effect::kStore: return fmt::format("mem write {} B at x[rs1]+offset", row.mem_bytes);
    case Effect::kControl: return "reads and writes pc";
    case Effect::kPcRead: return "reads pc";
    case Effect::kCsrAccess: return "reads csr unless csrrw(i) with rd=zero; writes csr unless csrrs/c(i) with zero source";
    case Effect::kSystemCall: return "reads a7; exit: reads a0; write: reads a0 a1 a2, mem read [a1, a1+a2), writes a0";
    case Effect::kBreak: return "stops execution";
    case Effect::kFenceAll: return "waits for prior memory accesses and this chip's DMAs";
    case Effect::kVecLoad: return "VMEM read 8 rows x 512 B at x[rs1] + i*stride";
    case Effect::kVecStore: return "VMEM write 8 rows x 512 B at x[rs1] + i*stride";
    case Effect::kMxuLoadWeights: return "VMEM read 128 rows x 256 B at x[rs1] + r*stride; writes weights[mxu]";
    case Effect::kMxuPush: return "reads weights[mxu]; reads and writes acc[mxu]";
    case Effect::kMxuPop: return "reads and clears acc[mxu]";
    case Effect::kDma1d: return "global read [x[rs1], +x[rs3]); global write [x[rs2], +x[rs3]); sem += 1 here and on a remote destination's chip";
    case Effect::kDma2d: return "reads x[rs3+1] too; rows strided on both sides; semaphores as dma.issue";
    case Effect::kSemSignalLocal: return "reads and writes sem";
    case Effect::kSemSignalRemote: return "reads and writes sem on chip x[rs1]";
    case Effect::kSemWait: return "reads and writes sem (may block)";
    case Effect::kSemRead: return "reads sem";
    case Effect::kFenceVector: return "waits for vector and matrix units";
    case Effect::kFenceDmaOnly: return "waits for this chip's DMAs";
  }
  return "?";
}

// Table cells: a literal '|' would end the cell.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string_view group_of(const isa::InstructionRow& row) {
  switch (row.match & 0x7F) {
    case isa::kOpcodeCustom0: return "Accelerator: vector ALU (custom-0, opcode 0x0B)";
    case isa::kOpcodeCustom1: return "Accelerator: vector memory and matrix unit (custom-1, opcode 0x2B)";
    case isa::kOpcodeCustom2: return "Accelerator: DMA (custom-2, opcode 0x5B)";
    case isa::kOpcodeCustom3: return "Accelerator: semaphores and fences (custom-3, opcode 0x7B)";
    default: return "Scalar core: RV64IM, Zicsr, Zifencei";
  }
}

}  // namespace

std::string isa_reference_markdown() {
  std::string out;
  out += "# NPU instruction set reference\n\n";
  out += "<!-- Generated from src/isa/table.cc by isa_docgen; do not edit. Regenerate with:\n";
  out += "     cmake --build build --target isa_docgen && build/src/asm/isa_docgen docs/isa.md -->\n\n";
  out += "The architecture (registers, address map, DMA and semaphore semantics) is in\n";
  out += "[npu.md](npu.md). Every instruction is 32 bits, little-endian. Operand fields:\n";
  out += "rd 11:7, rs1 19:15, rs2 24:20, rs3 31:27 (vector registers, semaphore and MXU\n";
  out += "indices reuse them as the syntax column shows). `target` operands are written\n";
  out += "as absolute addresses or labels and encoded pc-relative. Semaphores are written\n";
  out += "`sem0`..`sem31` (`s0`..`s31` is accepted where only a semaphore can stand),\n";
  out += "matrix units `mxu0`..`mxu31`, vector registers `v0`..`v31`.\n\n";
  out += fmt::format("ISA table hash (FNV-1a 64 over the rows): `{:#018x}`; {} instructions.\n\n",
                     isa::isa_table_hash(), isa::instruction_table().size());
  std::string_view current_group;
  for (const auto& row : isa::instruction_table()) {
    if (group_of(row) != current_group) {
      current_group = group_of(row);
      out += fmt::format("\n## {}\n\n", current_group);
      out += "| mnemonic | operands | match | mask | unit | latency class | reads | writes | memory / state | meaning |\n";
      out += "|---|---|---|---|---|---|---|---|---|---|\n";
    }
    out += fmt::format("| `{}` | `{}` | `{:#010x}` | `{:#010x}` | {} | {} | {} | {} | {} | {} |\n", row.mnemonic,
                       syntax(row), row.match, row.mask, isa::unit_name(row.unit), isa::latency_class_name(row.latency),
                       register_effects(row, false), register_effects(row, true), cell(effect_text(row)), cell(row.summary));
  }
  out += "\n## Pseudo-instructions (assembler)\n\n";
  out += "| pseudo | operands | expands to |\n|---|---|---|\n";
  for (const auto& p : pseudo_instructions()) {
    out += fmt::format("| `{}` | `{}` | `{}` |\n", p.mnemonic, cell(p.syntax), cell(p.expansion));
  }
  out += "\n## Disassembly syntax\n\n";
  out += "`snr disasm` prints GNU objdump's syntax. By default it uses objdump's\n";
  out += "pseudo-instruction choices (`li`, `mv`, `nop`, `not`, `neg`, `negw`, `sext.w`,\n";
  out += "`seqz`, `snez`, `sltz`, `sgtz`, `beqz`, `bnez`, `blez`, `bgez`, `bltz`, `bgtz`,\n";
  out += "`j`, `jal`, `jr`, `jalr`, `ret`, `fence`, `rdcycle`, `rdinstret`, `csrr`,\n";
  out += "`csrw`, `csrs`, `csrc`) but keeps canonical names for immediate ALU forms where\n";
  out += "binutils 2.40 prints `add a0,a1,5` or `sll a0,a1,0x3`. With `--no-aliases` the\n";
  out += "scalar output equals `objdump -d -M no-aliases` operand for operand; the\n";
  out += "comparison test (tests/e2e/test_isa_objdump.sh) checks that mode exactly.\n";
  return out;
}

}  // namespace snr::assembler
