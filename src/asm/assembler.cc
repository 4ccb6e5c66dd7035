// Two-pass assembler: pass 1 splits lines, sizes every statement and
// places labels at (section, offset); layout assigns section addresses;
// pass 2 evaluates expressions and encodes.
#include "asm/assembler.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <set>

#include "asm/expr.h"
#include "asm/instructions.h"
#include "asm/source_line.h"

namespace snr::assembler {
namespace {

constexpr size_t kMaxErrors = 20;
constexpr uint64_t kSectionAlignBytes = 0x1000;
constexpr uint32_t kNopWord = 0x00000013;

struct SectionState {
  std::string name;
  bool write = false, execute = false, nobits = false;
  uint64_t size_bytes = 0;
  uint64_t align_bytes = 4;
  uint64_t base = 0;
  std::vector<uint8_t> bytes;
};

enum class StatementKind { kInstruction, kData, kBytes, kFill, kSize };

struct Statement {
  StatementKind kind = StatementKind::kInstruction;
  int line = 0;
  size_t section = 0;
  uint64_t offset = 0;
  uint64_t size_bytes = 0;
  Token mnemonic;
  std::vector<Token> operands;
  unsigned element_bytes = 0;        // kData
  std::vector<uint8_t> literal;      // kBytes
  uint8_t fill_byte = 0;             // kFill
  bool fill_with_nops = false;       // kFill in code
};

struct Label {
  std::string name;
  size_t section = 0;
  uint64_t offset = 0;
  int line = 0;
};

struct SymbolAttributes {
  std::optional<elf::SymbolType> type;
  std::optional<Token> size_expression;  // evaluated at the .size statement
  int line = 0;
};

class Assembler {
 public:
  explicit Assembler(const AssembleOptions& options) : options_(options) {}

  Result<elf::Image> run(std::string_view source) {
    current_section_ = section_index(".text", 0);
    int line_number = 0;
    size_t begin = 0;
    while (begin <= source.size()) {
      size_t end = source.find('\n', begin);
      if (end == std::string_view::npos) end = source.size();
      ++line_number;
      first_pass_line(line_number, source.substr(begin, end - begin));
      begin = end + 1;
      if (errors_.size() >= kMaxErrors) break;
    }
    layout();
    if (errors_.size() < kMaxErrors) second_pass();
    elf::Image image = build_image();
    if (!errors_.empty()) {
      std::string message;
      for (const auto& e : errors_) message += (message.empty() ? "" : "\n") + e;
      return Error(message);
    }
    return image;
  }

 private:
  // Line 0: an error of the whole file (layout), said without a location.
  void error(int line, int column, const std::string& message) {
    if (errors_.size() >= kMaxErrors) return;
    errors_.push_back(line == 0 ? fmt::format("{}: {}", options_.source_name, message)
                                : fmt::format("{}:{}:{}: {}", options_.source_name, line, column, message));
  }

  size_t section_index(const std::string& name, int line, std::string_view flags = {}, bool flags_given = false) {
    for (size_t i = 0; i < sections_.size(); ++i) {
      if (sections_[i].name == name) return i;
    }
    SectionState s;
    s.name = name;
    auto starts = [&](std::string_view prefix) { return name == prefix || name.starts_with(std::string(prefix) + "."); };
    if (flags_given) {
      s.write = flags.find('w') != std::string_view::npos;
      s.execute = flags.find('x') != std::string_view::npos;
      s.nobits = starts(".bss") || starts(".sbss");
    } else if (starts(".text")) {
      s.execute = true;
    } else if (starts(".data") || starts(".sdata")) {
      s.write = true;
    } else if (starts(".bss") || starts(".sbss")) {
      s.write = s.nobits = true;
    } else if (!starts(".rodata") && !starts(".srodata")) {
      throw LocatedError(1, fmt::format("section '{}' needs flags: .section {},\"aw\" (a, w, x)", name, name));
    }
    (void)line;
    sections_.push_back(std::move(s));
    return sections_.size() - 1;
  }

  ExprContext constants_context() const {
    ExprContext ctx;
    ctx.lookup = [this](std::string_view name) -> std::optional<int64_t> {
      auto it = constants_.find(std::string(name));
      if (it == constants_.end()) return std::nullopt;
      return it->second;
    };
    return ctx;
  }

  int64_t constant(const Token& t) {
    auto v = evaluate(t.text, constants_context());
    if (!v.ok()) throw LocatedError(t.column, fmt::format("{} (a constant defined earlier is required)", v.error().what()));
    return v.value();
  }

  Statement& add_statement(StatementKind kind, int line, uint64_t size_bytes) {
    SectionState& s = sections_[current_section_];
    Statement st;
    st.kind = kind;
    st.line = line;
    st.section = current_section_;
    st.offset = s.size_bytes;
    st.size_bytes = size_bytes;
    s.size_bytes += size_bytes;
    statements_.push_back(std::move(st));
    return statements_.back();
  }

  void first_pass_line(int line, std::string_view text) {
    try {
      SourceLine parsed = split_line(text);
      for (const Token& label : parsed.labels) define_label(line, label);
      if (parsed.mnemonic.text.empty()) return;
      if (parsed.mnemonic.text[0] == '.' && !is_known_mnemonic(parsed.mnemonic.text)) {
        directive(line, parsed);
        return;
      }
      if (sections_[current_section_].nobits) {
        throw LocatedError(parsed.mnemonic.column, fmt::format("instruction in {} (a no-bits section)",
                                                               sections_[current_section_].name));
      }
      const uint64_t size = instruction_size_bytes(parsed.mnemonic, parsed.operands, constants_context());
      if (sections_[current_section_].size_bytes % isa::kInstructionBytes != 0) {
        throw LocatedError(parsed.mnemonic.column, "instruction is not 4-byte aligned (add .align 2)");
      }
      Statement& st = add_statement(StatementKind::kInstruction, line, size);
      st.mnemonic = std::move(parsed.mnemonic);
      st.operands = std::move(parsed.operands);
    } catch (const LocatedError& e) {
      error(line, e.column(), e.what());
    }
  }

  void define_label(int line, const Token& label) {
    if (auto it = label_index_.find(label.text); it != label_index_.end()) {
      throw LocatedError(label.column, fmt::format("duplicate label '{}' (first defined at line {})", label.text,
                                                   labels_[it->second].line));
    }
    if (constants_.count(label.text) != 0) {
      throw LocatedError(label.column, fmt::format("label '{}' is already a .equ/.set constant", label.text));
    }
    label_index_[label.text] = labels_.size();
    labels_.push_back({label.text, current_section_, sections_[current_section_].size_bytes, line});
  }

  void need_operands(const SourceLine& p, size_t min, size_t max, std::string_view syntax) {
    if (p.operands.size() < min || p.operands.size() > max) {
      throw LocatedError(p.mnemonic.column, fmt::format("'{}' expects {}", p.mnemonic.text, syntax));
    }
  }

  void align_to(int line, uint64_t alignment, const Token& at, std::optional<uint8_t> fill) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > kSectionAlignBytes) {
      throw LocatedError(at.column, fmt::format("alignment {} is not a power of two up to 4096", alignment));
    }
    SectionState& s = sections_[current_section_];
    s.align_bytes = std::max(s.align_bytes, alignment);
    const uint64_t pad = (alignment - s.size_bytes % alignment) % alignment;
    if (pad == 0) return;
    const bool code = s.execute && !fill && pad % 4 == 0 && s.size_bytes % 4 == 0;
    Statement& st = add_statement(StatementKind::kFill, line, pad);
    st.fill_byte = fill.value_or(0);
    st.fill_with_nops = code;
  }

  void directive(int line, SourceLine& p) {
    const std::string& d = p.mnemonic.text;
    auto& ops = p.operands;
    auto data = [&](unsigned bytes) {
      if (ops.empty()) throw LocatedError(p.mnemonic.column, fmt::format("'{}' expects at least one value", d));
      if (sections_[current_section_].nobits) throw LocatedError(p.mnemonic.column, "data in a no-bits section");
      Statement& st = add_statement(StatementKind::kData, line, bytes * ops.size());
      st.element_bytes = bytes;
      st.mnemonic = p.mnemonic;
      st.operands = ops;
    };
    if (d == ".text" || d == ".data" || d == ".rodata" || d == ".bss") {
      need_operands(p, 0, 0, "no operands");
      current_section_ = section_index(d, line);
    } else if (d == ".section") {
      need_operands(p, 1, 3, "name[,\"flags\"[,@type]]");
      std::string flags;
      if (ops.size() >= 2) flags = decode_string_literal(ops[1]);
      try {
        current_section_ = section_index(ops[0].text, line, flags, ops.size() >= 2);
      } catch (const LocatedError& e) {
        throw LocatedError(ops[0].column, e.what());
      }
    } else if (d == ".globl" || d == ".global") {
      need_operands(p, 1, 64, "symbol names");
      for (const auto& op : ops) globals_.insert({op.text, {line, op.column}});
    } else if (d == ".local") {
      need_operands(p, 1, 64, "symbol names");
    } else if (d == ".align" || d == ".p2align") {
      need_operands(p, 1, 2, "log2(alignment)[,fill]");
      const int64_t log2 = constant(ops[0]);
      if (log2 < 0 || log2 > 12) throw LocatedError(ops[0].column, "alignment exponent must be 0..12");
      std::optional<uint8_t> fill;
      if (ops.size() == 2) fill = static_cast<uint8_t>(constant(ops[1]));
      align_to(line, uint64_t{1} << log2, ops[0], fill);
    } else if (d == ".balign") {
      need_operands(p, 1, 2, "alignment[,fill]");
      std::optional<uint8_t> fill;
      if (ops.size() == 2) fill = static_cast<uint8_t>(constant(ops[1]));
      align_to(line, static_cast<uint64_t>(constant(ops[0])), ops[0], fill);
    } else if (d == ".byte") {
      data(1);
    } else if (d == ".half" || d == ".2byte" || d == ".short") {
      data(2);
    } else if (d == ".word" || d == ".4byte" || d == ".long") {
      data(4);
    } else if (d == ".dword" || d == ".8byte" || d == ".quad") {
      data(8);
    } else if (d == ".zero" || d == ".space" || d == ".skip") {
      need_operands(p, 1, 2, "bytes[,fill]");
      const int64_t n = constant(ops[0]);
      if (n < 0 || n > (int64_t{1} << 28)) throw LocatedError(ops[0].column, fmt::format("size {} out of range", n));
      Statement& st = add_statement(StatementKind::kFill, line, static_cast<uint64_t>(n));
      if (ops.size() == 2) st.fill_byte = static_cast<uint8_t>(constant(ops[1]));
    } else if (d == ".ascii" || d == ".asciz" || d == ".string") {
      need_operands(p, 1, 64, "string literals");
      if (sections_[current_section_].nobits) throw LocatedError(p.mnemonic.column, "data in a no-bits section");
      std::vector<uint8_t> bytes;
      for (const auto& op : ops) {
        std::string s = decode_string_literal(op);
        bytes.insert(bytes.end(), s.begin(), s.end());
        if (d != ".ascii") bytes.push_back(0);
      }
      Statement& st = add_statement(StatementKind::kBytes, line, bytes.size());
      st.literal = std::move(bytes);
    } else if (d == ".equ" || d == ".set") {
      need_operands(p, 2, 2, "name, value");
      if (ops[0].text.empty() || !is_symbol_start(ops[0].text[0]) ||
          !std::all_of(ops[0].text.begin(), ops[0].text.end(), is_symbol_char)) {
        throw LocatedError(ops[0].column, fmt::format("bad symbol name '{}'", ops[0].text));
      }
      if (label_index_.count(ops[0].text) != 0) {
        throw LocatedError(ops[0].column, fmt::format("'{}' is already a label", ops[0].text));
      }
      constants_[ops[0].text] = constant(ops[1]);
    } else if (d == ".type") {
      need_operands(p, 2, 2, "symbol, @function|@object|@notype");
      static const std::map<std::string, elf::SymbolType, std::less<>> kTypes = {
          {"@function", elf::SymbolType::kFunc}, {"%function", elf::SymbolType::kFunc},
          {"@object", elf::SymbolType::kObject}, {"%object", elf::SymbolType::kObject},
          {"@notype", elf::SymbolType::kNoType}, {"%notype", elf::SymbolType::kNoType}};
      auto it = kTypes.find(ops[1].text);
      if (it == kTypes.end()) throw LocatedError(ops[1].column, fmt::format("unknown symbol type '{}'", ops[1].text));
      attributes_[ops[0].text].type = it->second;
      attributes_[ops[0].text].line = line;
    } else if (d == ".size") {
      need_operands(p, 2, 2, "symbol, size");
      Statement& st = add_statement(StatementKind::kSize, line, 0);
      st.mnemonic = ops[0];
      st.operands = {ops[1]};
      attributes_[ops[0].text].line = line;
    } else if (d == ".option") {
      static const std::set<std::string, std::less<>> kOptions = {"nopic", "pic", "norvc", "rvc", "push", "pop",
                                                                  "relax", "norelax"};
      need_operands(p, 1, 1, "one option");
      if (kOptions.count(ops[0].text) == 0) throw LocatedError(ops[0].column, fmt::format("unknown .option '{}'", ops[0].text));
    } else {
      throw LocatedError(p.mnemonic.column, fmt::format("unknown directive '{}'", d));
    }
  }

  void layout() {
    uint64_t next = options_.text_base;
    for (auto& s : sections_) {
      const uint64_t align = std::max(kSectionAlignBytes, s.align_bytes);
      s.base = (next + align - 1) / align * align;
      next = s.base + s.size_bytes;
      if (next > isa::kScalarLimit) {
        error(0, 0, fmt::format("section {} ends at {:#x}, beyond the scalar space (limit {:#x}; --text-base {:#x})",
                                s.name, next, isa::kScalarLimit, options_.text_base));
      }
      if (!s.nobits) s.bytes.reserve(s.size_bytes);
    }
  }

  uint64_t label_address(const Label& l) const { return sections_[l.section].base + l.offset; }

  ExprContext full_context(uint64_t pc) const {
    ExprContext ctx;
    ctx.pc = pc;
    ctx.lookup = [this, pc](std::string_view name) -> std::optional<int64_t> {
      if (name == ".") return static_cast<int64_t>(pc);
      if (auto it = label_index_.find(std::string(name)); it != label_index_.end()) {
        return static_cast<int64_t>(label_address(labels_[it->second]));
      }
      if (auto it = constants_.find(std::string(name)); it != constants_.end()) return it->second;
      return std::nullopt;
    };
    ctx.pcrel_hi_offset_at = [this](std::string_view label) -> std::optional<int64_t> {
      auto it = label_index_.find(std::string(label));
      if (it == label_index_.end()) return std::nullopt;
      auto hi = pcrel_hi_.find(label_address(labels_[it->second]));
      if (hi == pcrel_hi_.end()) return std::nullopt;
      return hi->second;
    };
    return ctx;
  }

  void emit(SectionState& s, uint64_t value, unsigned bytes) {
    for (unsigned i = 0; i < bytes; ++i) s.bytes.push_back(static_cast<uint8_t>(value >> (8 * i)));
  }

  void second_pass() {
    for (const Statement& st : statements_) {
      SectionState& s = sections_[st.section];
      const uint64_t pc = s.base + st.offset;
      try {
        encode_statement(st, s, pc);
      } catch (const LocatedError& e) {
        error(st.line, e.column(), e.what());
        if (!s.nobits) s.bytes.resize(st.offset + st.size_bytes, 0);
      }
      if (errors_.size() >= kMaxErrors) return;
    }
  }

  void encode_statement(const Statement& st, SectionState& s, uint64_t pc) {
    const ExprContext ctx = full_context(pc);
    switch (st.kind) {
      case StatementKind::kInstruction: {
        if (st.mnemonic.text == "auipc" && st.operands.size() == 2) remember_pcrel_hi(st.operands[1], ctx, pc);
        const std::vector<uint32_t> words = encode_instruction(st.mnemonic, st.operands, ctx);
        if (words.size() * isa::kInstructionBytes != st.size_bytes) {
          throw LocatedError(st.mnemonic.column, "instruction size changed between passes (li value depends on a label)");
        }
        for (uint32_t w : words) emit(s, w, 4);
        break;
      }
      case StatementKind::kData:
        for (const Token& op : st.operands) {
          auto v = evaluate(op.text, ctx);
          if (!v.ok()) throw LocatedError(op.column, v.error().what());
          const int64_t value = v.value();
          if (st.element_bytes < 8) {
            const int bits = static_cast<int>(st.element_bytes * 8);
            if (value < -(int64_t{1} << (bits - 1)) || value >= (int64_t{1} << bits)) {
              throw LocatedError(op.column, fmt::format("value {} does not fit in {} byte{}", value, st.element_bytes,
                                                        st.element_bytes == 1 ? "" : "s"));
            }
          }
          emit(s, static_cast<uint64_t>(value), st.element_bytes);
        }
        break;
      case StatementKind::kBytes: s.bytes.insert(s.bytes.end(), st.literal.begin(), st.literal.end()); break;
      case StatementKind::kFill:
        if (s.nobits) break;
        if (st.fill_with_nops) {
          for (uint64_t i = 0; i < st.size_bytes / 4; ++i) emit(s, kNopWord, 4);
        } else {
          s.bytes.insert(s.bytes.end(), st.size_bytes, st.fill_byte);
        }
        break;
      case StatementKind::kSize: {
        if (label_index_.count(st.mnemonic.text) == 0) {
          throw LocatedError(st.mnemonic.column, fmt::format(".size for undefined symbol '{}'", st.mnemonic.text));
        }
        auto v = evaluate(st.operands[0].text, ctx);
        if (!v.ok()) throw LocatedError(st.operands[0].column, v.error().what());
        if (v.value() < 0) throw LocatedError(st.operands[0].column, "negative symbol size");
        sizes_[st.mnemonic.text] = static_cast<uint64_t>(v.value());
        break;
      }
    }
  }

  // "%pcrel_hi(expr)" on an auipc: remember the offset for %pcrel_lo.
  void remember_pcrel_hi(const Token& operand, const ExprContext& ctx, uint64_t pc) {
    const std::string& t = operand.text;
    if (!t.starts_with("%pcrel_hi(") || t.back() != ')') return;
    auto target = evaluate(t.substr(10, t.size() - 11), ctx);
    if (target.ok()) pcrel_hi_[pc] = static_cast<int64_t>(static_cast<uint64_t>(target.value()) - pc);
  }

  elf::Image build_image() {
    elf::Image image;
    for (const auto& s : sections_) {
      elf::Section out;
      out.name = s.name;
      out.kind = s.nobits ? elf::SectionKind::kNoBits : elf::SectionKind::kProgBits;
      out.address = s.base;
      out.size_bytes = s.size_bytes;
      out.align_bytes = s.align_bytes;
      out.write = s.write;
      out.execute = s.execute;
      if (!s.nobits) out.data = s.bytes;
      image.sections.push_back(std::move(out));
    }
    for (const auto& [name, where] : globals_) {
      if (label_index_.count(name) == 0) {
        errors_.push_back(fmt::format("{}:{}:{}: .globl '{}' is never defined", options_.source_name, where.first,
                                      where.second, name));
      }
    }
    for (const auto& [name, attr] : attributes_) {
      if (label_index_.count(name) == 0 && errors_.size() < kMaxErrors) {
        errors_.push_back(fmt::format("{}:{}:1: .type/.size for undefined symbol '{}'", options_.source_name, attr.line, name));
      }
    }
    for (const Label& l : labels_) image.symbols.push_back(symbol_for(l));
    const auto start = label_index_.find("_start");
    image.entry = start != label_index_.end() ? label_address(labels_[start->second]) : sections_[0].base;
    return image;
  }

  elf::Symbol symbol_for(const Label& l) const {
    elf::Symbol sym;
    sym.name = l.name;
    sym.value = label_address(l);
    sym.section = static_cast<int>(l.section);
    sym.binding = globals_.count(l.name) ? elf::SymbolBinding::kGlobal : elf::SymbolBinding::kLocal;
    const bool internal = l.name.starts_with(".L");
    sym.type = internal ? elf::SymbolType::kNoType
               : sections_[l.section].execute ? elf::SymbolType::kFunc
                                               : elf::SymbolType::kObject;
    auto attr = attributes_.find(l.name);
    if (attr != attributes_.end() && attr->second.type) sym.type = *attr->second.type;
    if (auto size = sizes_.find(l.name); size != sizes_.end()) {
      sym.size_bytes = size->second;
    } else if (sym.type != elf::SymbolType::kNoType) {
      // Up to the next non-internal label at a higher address, or the section end.
      uint64_t end = sections_[l.section].size_bytes;
      for (const Label& other : labels_) {
        if (other.section == l.section && other.offset > l.offset && other.offset < end && !other.name.starts_with(".L")) {
          end = other.offset;
        }
      }
      sym.size_bytes = end - l.offset;
    }
    return sym;
  }

  const AssembleOptions& options_;
  std::vector<SectionState> sections_;
  size_t current_section_ = 0;
  std::vector<Statement> statements_;
  std::vector<Label> labels_;
  std::map<std::string, size_t, std::less<>> label_index_;
  std::map<std::string, int64_t, std::less<>> constants_;
  std::map<std::string, std::pair<int, int>, std::less<>> globals_;  // name -> (line, column)
  std::map<std::string, SymbolAttributes, std::less<>> attributes_;
  std::map<std::string, uint64_t, std::less<>> sizes_;
  std::map<uint64_t, int64_t> pcrel_hi_;
  std::vector<std::string> errors_;
};

}  // namespace

Result<elf::Image> assemble(std::string_view source, const AssembleOptions& options) {
  Assembler assembler(options);
  auto image = assembler.run(source);
  return image;
}

Result<std::vector<uint8_t>> assemble_to_elf(std::string_view source, const AssembleOptions& options) {
  auto image = assemble(source, options);
  if (!image.ok()) return image.error();
  // An executable without code (an empty file, only comments or data)
  // would load and then fault at its entry point; refuse to write it.
  bool has_code = false;
  for (const elf::Section& section : image.value().sections) has_code |= section.execute && section.size_bytes > 0;
  if (!has_code) {
    return Error(fmt::format("{}: no instructions (empty source, or only comments and data): an executable needs code "
                             "in .text",
                             options.source_name));
  }
  return elf::write_elf(image.value());
}

}  // namespace snr::assembler
