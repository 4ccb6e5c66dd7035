#include "asm/expr.h"

#include <cctype>
#include <fmt/format.h>

namespace snr::assembler {
namespace {

// Recursive-descent evaluator; precedence (low to high): | ^ & << >> + - * / %.
class Parser {
 public:
  Parser(std::string_view text, const ExprContext& context) : text_(text), context_(context) {}

  int64_t parse_all() {
    const int64_t value = parse_binary(0);
    skip_space();
    if (pos_ != text_.size()) throw Error(fmt::format("unexpected '{}' in expression", text_.substr(pos_)));
    return value;
  }

 private:
  static int precedence(std::string_view op) {
    if (op == "|") return 1;
    if (op == "^") return 2;
    if (op == "&") return 3;
    if (op == "<<" || op == ">>") return 4;
    if (op == "+" || op == "-") return 5;
    if (op == "*" || op == "/" || op == "%") return 6;
    return 0;
  }

  std::string_view peek_operator() {
    skip_space();
    if (pos_ >= text_.size()) return {};
    const std::string_view rest = text_.substr(pos_);
    if (rest.starts_with("<<") || rest.starts_with(">>")) return rest.substr(0, 2);
    if (std::string_view("|^&+-*/%").find(rest[0]) != std::string_view::npos) {
      // '%' followed by a letter is a relocation operator, not modulo.
      if (rest[0] == '%' && rest.size() > 1 && std::isalpha(static_cast<unsigned char>(rest[1]))) return {};
      return rest.substr(0, 1);
    }
    return {};
  }

  int64_t parse_binary(int min_precedence) {
    int64_t lhs = parse_unary();
    for (;;) {
      const std::string_view op = peek_operator();
      const int p = precedence(op);
      if (op.empty() || p <= min_precedence) return lhs;
      pos_ += op.size();
      const int64_t rhs = parse_binary(p);
      lhs = apply(op, lhs, rhs);
    }
  }

  static int64_t apply(std::string_view op, int64_t a, int64_t b) {
    const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    if (op == "+") return static_cast<int64_t>(ua + ub);
    if (op == "-") return static_cast<int64_t>(ua - ub);
    if (op == "*") return static_cast<int64_t>(ua * ub);
    if (op == "/" || op == "%") {
      if (b == 0) throw Error("division by zero in expression");
      if (a == INT64_MIN && b == -1) return op == "/" ? a : 0;
      return op == "/" ? a / b : a % b;
    }
    // A count outside 0..63 has no 64-bit meaning (GNU as warns and uses
    // 0); `1 << 64` silently assembling as 0 is an error instead.
    if ((op == "<<" || op == ">>") && (b < 0 || b > 63)) {
      throw Error(fmt::format("shift count {} out of range 0..63 in expression", b));
    }
    if (op == "<<") return static_cast<int64_t>(ua << b);
    if (op == ">>") return a >> b;
    if (op == "&") return a & b;
    if (op == "^") return a ^ b;
    return a | b;
  }

  int64_t parse_unary() {
    skip_space();
    if (pos_ >= text_.size()) throw Error("expression expected");
    const char c = text_[pos_];
    if (++unary_chain_ > kMaxDepth) throw Error("expression nested too deeply");
    if (c == '-') { ++pos_; return static_cast<int64_t>(0 - static_cast<uint64_t>(parse_unary())); }
    if (c == '+') { ++pos_; return parse_unary(); }
    if (c == '~') { ++pos_; return ~parse_unary(); }
    if (c == '(') {
      ++pos_;
      if (++depth_ > kMaxDepth) throw Error("expression nested too deeply");
      const int64_t v = parse_binary(0);
      --depth_;
      expect(')');
      return v;
    }
    if (c == '%') return parse_relocation();
    if (c == '\'') return parse_char();
    if (std::isdigit(static_cast<unsigned char>(c))) return parse_number();
    if (is_symbol_start(c)) return symbol_value(parse_name());
    throw Error(fmt::format("unexpected '{}' in expression", c));
  }

  int64_t parse_relocation() {
    ++pos_;
    const std::string name = parse_name();
    expect('(');
    if (name == "pcrel_lo") {
      skip_space();
      const std::string label = parse_name();
      expect(')');
      if (!context_.pcrel_hi_offset_at) throw Error("%pcrel_lo is not allowed here");
      auto offset = context_.pcrel_hi_offset_at(label);
      if (!offset) throw Error(fmt::format("%pcrel_lo({}): no %pcrel_hi instruction at that label", label));
      return lo12_of(*offset);
    }
    const int64_t v = parse_binary(0);
    expect(')');
    if (name == "hi") return hi20_of(v);
    if (name == "lo") return lo12_of(v);
    if (name == "pcrel_hi") return hi20_of(static_cast<int64_t>(static_cast<uint64_t>(v) - context_.pc));
    throw Error(fmt::format("unknown relocation operator %{}", name));
  }

  int64_t parse_char() {
    if (pos_ + 2 >= text_.size() || text_[pos_ + 2] != '\'') throw Error("bad character constant");
    const auto value = static_cast<unsigned char>(text_[pos_ + 1]);
    pos_ += 3;
    return value;
  }

  int64_t parse_number() {
    int base = 10;
    if (text_.substr(pos_).starts_with("0x") || text_.substr(pos_).starts_with("0X")) { base = 16; pos_ += 2; }
    else if (text_.substr(pos_).starts_with("0b") || text_.substr(pos_).starts_with("0B")) { base = 2; pos_ += 2; }
    const size_t start = pos_;
    uint64_t value = 0;
    while (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) {
      const char d = static_cast<char>(std::tolower(static_cast<unsigned char>(text_[pos_])));
      int digit = d >= '0' && d <= '9' ? d - '0' : d >= 'a' && d <= 'f' ? d - 'a' + 10 : 99;
      if (digit >= base) throw Error(fmt::format("bad digit '{}' in number", text_[pos_]));
      const uint64_t next = value * static_cast<uint64_t>(base) + static_cast<uint64_t>(digit);
      if (next / static_cast<uint64_t>(base) != value) throw Error("number does not fit in 64 bits");
      value = next;
      ++pos_;
    }
    if (pos_ == start) throw Error("digits expected after base prefix");
    return static_cast<int64_t>(value);
  }

  std::string parse_name() {
    skip_space();
    const size_t start = pos_;
    if (pos_ < text_.size() && is_symbol_start(text_[pos_])) {
      while (pos_ < text_.size() && is_symbol_char(text_[pos_])) ++pos_;
    }
    if (pos_ == start) throw Error("name expected in expression");
    return std::string(text_.substr(start, pos_ - start));
  }

  int64_t symbol_value(const std::string& name) {
    auto v = context_.lookup ? context_.lookup(name) : std::nullopt;
    if (!v) throw Error(fmt::format("undefined symbol '{}'", name));
    return *v;
  }

  void expect(char c) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != c) throw Error(fmt::format("'{}' expected in expression", c));
    ++pos_;
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  static constexpr int kMaxDepth = 256;
  std::string_view text_;
  const ExprContext& context_;
  size_t pos_ = 0;
  int depth_ = 0;
  int unary_chain_ = 0;  // total unary operators: bounds recursion on "----...1"
};

}  // namespace

bool is_symbol_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
}
bool is_symbol_char(char c) { return is_symbol_start(c) || std::isdigit(static_cast<unsigned char>(c)); }

Result<int64_t> evaluate(std::string_view text, const ExprContext& context) {
  try {
    return Parser(text, context).parse_all();
  } catch (const Error& e) {
    return e;
  }
}

}  // namespace snr::assembler
