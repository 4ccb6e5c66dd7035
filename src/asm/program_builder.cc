#include "asm/program_builder.h"

#include <fmt/format.h>

#include "asm/expr.h"
#include "asm/instructions.h"

namespace snr::assembler {

ProgramBuilder::ProgramBuilder(uint64_t text_base) : text_base_(text_base) {
  sections_.push_back({".text", {}, 4});
  sections_.push_back({".data", {}, 4});
}

void ProgramBuilder::label(const std::string& name, bool global) {
  labels_.push_back({name, current_, offset(), global});
}

void ProgramBuilder::put_word(uint32_t word) {
  if (offset() % 4 != 0) errors_.push_back(fmt::format("instruction at unaligned offset {:#x}", offset()));
  for (int i = 0; i < 4; ++i) sections_[current_].bytes.push_back(static_cast<uint8_t>(word >> (8 * i)));
}

void ProgramBuilder::emit(const isa::DecodedInstruction& fields) {
  auto word = isa::encode(fields);
  if (!word.ok()) {
    errors_.push_back(fmt::format("at {}+{:#x}: {}", sections_[current_].name, offset(), word.error().what()));
    put_word(0);
    return;
  }
  put_word(word.value());
}

void ProgramBuilder::branch(isa::Opcode opcode, uint8_t rs1, uint8_t rs2, const std::string& target) {
  fixups_.push_back({FixupKind::kBranch, current_, offset(), {.opcode = opcode, .rs1 = rs1, .rs2 = rs2}, target});
  put_word(0);
}

void ProgramBuilder::jump(const std::string& target, uint8_t rd) {
  fixups_.push_back({FixupKind::kJal, current_, offset(), {.opcode = isa::Opcode::kJal, .rd = rd}, target});
  put_word(0);
}

void ProgramBuilder::li(uint8_t rd, int64_t value) {
  for (const auto& f : li_sequence(rd, value)) emit(f);
}

namespace {

// A name no assembly source can spell, so anonymous labels never collide.
std::string anonymous_label_name(size_t id) { return fmt::format("<anonymous label {}>", id); }

}  // namespace

ProgramBuilder::Label ProgramBuilder::new_label() { return Label{anonymous_labels_++}; }

void ProgramBuilder::bind(Label label) {
  labels_.push_back({anonymous_label_name(label.id), current_, offset(), false, true});
}

void ProgramBuilder::branch(Op opcode, uint8_t rs1, uint8_t rs2, Label target) {
  branch(opcode, rs1, rs2, anonymous_label_name(target.id));
}

void ProgramBuilder::jump(Label target) { jump(anonymous_label_name(target.id)); }

void ProgramBuilder::r(Op op, uint8_t rd, uint8_t rs1, uint8_t rs2) { emit({.opcode = op, .rd = rd, .rs1 = rs1, .rs2 = rs2}); }

void ProgramBuilder::i(Op op, uint8_t rd, uint8_t rs1, int64_t imm) { emit({.opcode = op, .rd = rd, .rs1 = rs1, .imm = imm}); }

void ProgramBuilder::s(Op op, uint8_t rs2, uint8_t rs1, int64_t imm) { emit({.opcode = op, .rs1 = rs1, .rs2 = rs2, .imm = imm}); }

void ProgramBuilder::vector(Op op, uint8_t vd, uint8_t vs1, uint8_t vs2, uint8_t vs3) {
  emit({.opcode = op, .vd = vd, .vs1 = vs1, .vs2 = vs2, .vs3 = vs3});
}

void ProgramBuilder::vbcast(uint8_t vd, uint8_t rs1) { emit({.opcode = Op::kVbcast, .rs1 = rs1, .vd = vd}); }

void ProgramBuilder::vld(uint8_t vd, uint8_t base_rs1, uint8_t stride_rs2) {
  emit({.opcode = Op::kVld, .rs1 = base_rs1, .rs2 = stride_rs2, .vd = vd});
}

void ProgramBuilder::vst(uint8_t vs, uint8_t base_rs1, uint8_t stride_rs2) {
  emit({.opcode = Op::kVst, .rs1 = base_rs1, .rs2 = stride_rs2, .vs1 = vs});
}

void ProgramBuilder::mxu_ldw(uint8_t mxu, uint8_t base_rs1, uint8_t stride_rs2) {
  emit({.opcode = Op::kMxuLdw, .rs1 = base_rs1, .rs2 = stride_rs2, .mxu = mxu});
}

void ProgramBuilder::mxu_mul(uint8_t mxu, uint8_t vs1) { emit({.opcode = Op::kMxuMul, .vs1 = vs1, .mxu = mxu}); }

void ProgramBuilder::mxu_pop(uint8_t vd, uint8_t mxu) { emit({.opcode = Op::kMxuPop, .vd = vd, .mxu = mxu}); }

void ProgramBuilder::dma(uint8_t dst_rs2, uint8_t src_rs1, uint8_t bytes_rs3, uint8_t semaphore) {
  emit({.opcode = Op::kDmaIssue, .rs1 = src_rs1, .rs2 = dst_rs2, .rs3 = bytes_rs3, .sem = semaphore});
}

void ProgramBuilder::sem_signal(uint8_t semaphore, uint32_t amount) {
  emit({.opcode = Op::kSemSignal, .sem = semaphore, .imm = amount});
}

void ProgramBuilder::sem_signal_remote(uint8_t semaphore, uint8_t chip_rs1, uint32_t amount) {
  emit({.opcode = Op::kSemSignalRemote, .rs1 = chip_rs1, .sem = semaphore, .imm = amount});
}

void ProgramBuilder::sem_wait(uint8_t semaphore, uint32_t amount) {
  emit({.opcode = Op::kSemWait, .sem = semaphore, .imm = amount});
}

void ProgramBuilder::csr_read(uint8_t rd, uint16_t csr) { emit({.opcode = Op::kCsrrs, .rd = rd, .rs1 = 0, .csr = csr}); }

void ProgramBuilder::exit(uint8_t code_register) {
  i(Op::kAddi, 10, code_register, 0);
  li(17, static_cast<int64_t>(isa::kSyscallExit));
  emit({.opcode = Op::kEcall});
}

void ProgramBuilder::write_console(uint8_t buffer_register, uint8_t length_register) {
  i(Op::kAddi, 11, buffer_register, 0);
  i(Op::kAddi, 12, length_register, 0);
  li(10, 1);
  li(17, static_cast<int64_t>(isa::kSyscallWrite));
  emit({.opcode = Op::kEcall});
}

void ProgramBuilder::la(uint8_t rd, const std::string& target) {
  fixups_.push_back({FixupKind::kPcRelPair, current_, offset(), {.opcode = isa::Opcode::kAddi, .rd = rd, .rs1 = rd}, target});
  put_word(0);
  put_word(0);
}

void ProgramBuilder::bytes(std::span<const uint8_t> data) {
  sections_[current_].bytes.insert(sections_[current_].bytes.end(), data.begin(), data.end());
}

void ProgramBuilder::u32(uint32_t value) {
  for (int i = 0; i < 4; ++i) sections_[current_].bytes.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

void ProgramBuilder::u64(uint64_t value) {
  for (int i = 0; i < 8; ++i) sections_[current_].bytes.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

void ProgramBuilder::zero(uint64_t count_bytes) { sections_[current_].bytes.resize(offset() + count_bytes, 0); }

void ProgramBuilder::align(uint64_t alignment_bytes) {
  if (alignment_bytes == 0 || (alignment_bytes & (alignment_bytes - 1)) != 0 || alignment_bytes > 4096) {
    errors_.push_back(fmt::format("alignment {} is not a power of two up to 4096", alignment_bytes));
    return;
  }
  Section& s = sections_[current_];
  s.align_bytes = std::max(s.align_bytes, alignment_bytes);
  while (s.bytes.size() % alignment_bytes != 0) {
    if (current_ == 0 && s.bytes.size() % 4 == 0) {
      u32(0x00000013);  // nop
    } else {
      s.bytes.push_back(0);
    }
  }
}

Result<elf::Image> ProgramBuilder::build() const {
  std::vector<std::string> errors = errors_;
  std::vector<uint64_t> base(sections_.size());
  uint64_t next = text_base_;
  for (size_t i = 0; i < sections_.size(); ++i) {
    base[i] = (next + 0xFFF) / 0x1000 * 0x1000;
    next = base[i] + sections_[i].bytes.size();
  }
  std::map<std::string, uint64_t> address;
  for (const DefinedLabel& l : labels_) {
    if (!address.emplace(l.name, base[l.section] + l.offset).second) errors.push_back(fmt::format("duplicate label '{}'", l.name));
  }
  std::vector<Section> sections = sections_;
  auto patch = [&](size_t section, uint64_t offset, uint32_t word) {
    for (int i = 0; i < 4; ++i) sections[section].bytes[offset + static_cast<uint64_t>(i)] = static_cast<uint8_t>(word >> (8 * i));
  };
  for (const Fixup& f : fixups_) {
    auto it = address.find(f.target);
    if (it == address.end()) {
      errors.push_back(fmt::format("undefined label '{}'", f.target));
      continue;
    }
    const uint64_t pc = base[f.section] + f.offset;
    const auto delta = static_cast<int64_t>(it->second - pc);
    std::vector<isa::DecodedInstruction> words;
    if (f.kind == FixupKind::kPcRelPair) {
      words.push_back({.opcode = isa::Opcode::kAuipc, .rd = f.fields.rd, .imm = hi20_of(delta)});
      isa::DecodedInstruction lo = f.fields;
      lo.imm = lo12_of(delta);
      words.push_back(lo);
    } else {
      isa::DecodedInstruction w = f.fields;
      w.imm = delta;
      words.push_back(w);
    }
    for (size_t i = 0; i < words.size(); ++i) {
      auto word = isa::encode(words[i]);
      if (!word.ok()) {
        errors.push_back(fmt::format("reference to '{}': {}", f.target, word.error().what()));
        break;
      }
      patch(f.section, f.offset + 4 * i, word.value());
    }
  }
  if (!errors.empty()) {
    std::string message = "program builder:";
    for (const auto& e : errors) message += "\n  " + e;
    return Error(message);
  }
  elf::Image image;
  for (size_t i = 0; i < sections.size(); ++i) {
    elf::Section s;
    s.name = sections[i].name;
    s.address = base[i];
    s.size_bytes = sections[i].bytes.size();
    s.align_bytes = sections[i].align_bytes;
    s.execute = i == 0;
    s.write = i == 1;
    s.data = std::move(sections[i].bytes);
    image.sections.push_back(std::move(s));
  }
  for (const DefinedLabel& l : labels_) {
    if (l.anonymous) continue;
    elf::Symbol sym;
    sym.name = l.name;
    sym.value = base[l.section] + l.offset;
    sym.section = static_cast<int>(l.section);
    sym.binding = l.global ? elf::SymbolBinding::kGlobal : elf::SymbolBinding::kLocal;
    sym.type = l.section == 0 ? elf::SymbolType::kFunc : elf::SymbolType::kObject;
    uint64_t end = image.sections[l.section].size_bytes;
    for (const DefinedLabel& other : labels_) {
      if (!other.anonymous && other.section == l.section && other.offset > l.offset && other.offset < end) {
        end = other.offset;
      }
    }
    sym.size_bytes = end - l.offset;
    image.symbols.push_back(std::move(sym));
  }
  image.entry = address.count("_start") ? address["_start"] : base[0];
  return image;
}

}  // namespace snr::assembler
