#include "asm/source_line.h"

#include <cctype>
#include <fmt/format.h>

#include "asm/expr.h"

namespace snr::assembler {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// Removes a '#' comment (outside string and character literals).
std::string_view strip_comment(std::string_view line) {
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '\'' && i + 2 < line.size() && line[i + 2] == '\'') {
      i += 2;
    } else if (c == '#') {
      return line.substr(0, i);
    }
  }
  if (in_string) throw LocatedError(static_cast<int>(line.size()), "unterminated string literal");
  return line;
}

Token trimmed(std::string_view line, size_t begin, size_t end) {
  while (begin < end && is_space(line[begin])) ++begin;
  while (end > begin && is_space(line[end - 1])) --end;
  return Token{std::string(line.substr(begin, end - begin)), static_cast<int>(begin) + 1};
}

}  // namespace

SourceLine split_line(std::string_view raw) {
  const std::string_view line = strip_comment(raw);
  SourceLine out;
  size_t pos = 0;
  for (;;) {
    while (pos < line.size() && is_space(line[pos])) ++pos;
    size_t end = pos;
    while (end < line.size() && is_symbol_char(line[end])) ++end;
    if (end > pos && end < line.size() && line[end] == ':' && is_symbol_start(line[pos])) {
      out.labels.push_back(Token{std::string(line.substr(pos, end - pos)), static_cast<int>(pos) + 1});
      pos = end + 1;
      continue;
    }
    if (end > pos && end < line.size() && line[end] == ':') {
      throw LocatedError(static_cast<int>(pos) + 1,
                         fmt::format("bad label '{}': must start with a letter, '_', '.' or '$'",
                                     line.substr(pos, end - pos)));
    }
    break;
  }
  if (pos >= line.size()) return out;
  size_t end = pos;
  while (end < line.size() && !is_space(line[end])) ++end;
  out.mnemonic = Token{std::string(line.substr(pos, end - pos)), static_cast<int>(pos) + 1};
  // Operands: split at commas outside parentheses and string literals.
  size_t start = end;
  int depth = 0;
  bool in_string = false;
  bool any = false;
  for (size_t i = end; i <= line.size(); ++i) {
    const char c = i < line.size() ? line[i] : ',';
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if (c == ',' && depth <= 0) {
      Token t = trimmed(line, start, std::min(i, line.size()));
      if (!t.text.empty() || any || i < line.size()) {
        if (t.text.empty()) throw LocatedError(t.column, "empty operand");
        out.operands.push_back(std::move(t));
      }
      any = true;
      start = i + 1;
    }
  }
  return out;
}

std::string decode_string_literal(const Token& token) {
  const std::string& t = token.text;
  if (t.size() < 2 || t.front() != '"' || t.back() != '"') {
    throw LocatedError(token.column, "string literal in double quotes expected");
  }
  std::string out;
  for (size_t i = 1; i + 1 < t.size(); ++i) {
    char c = t[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i + 1 >= t.size()) throw LocatedError(token.column + static_cast<int>(i), "dangling backslash");
    c = t[i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      case '\'': out += '\''; break;
      case 'x': {
        int value = 0, digits = 0;
        while (i + 1 + 1 < t.size() && std::isxdigit(static_cast<unsigned char>(t[i + 1])) && digits < 2) {
          const char d = static_cast<char>(std::tolower(static_cast<unsigned char>(t[++i])));
          value = value * 16 + (std::isdigit(static_cast<unsigned char>(d)) ? d - '0' : d - 'a' + 10);
          ++digits;
        }
        if (digits == 0) throw LocatedError(token.column + static_cast<int>(i), "\\x needs hex digits");
        out += static_cast<char>(value);
        break;
      }
      default:
        if (c >= '0' && c <= '7') {
          int value = c - '0', digits = 1;
          while (digits < 3 && i + 1 + 1 < t.size() && t[i + 1] >= '0' && t[i + 1] <= '7') {
            value = value * 8 + (t[++i] - '0');
            ++digits;
          }
          out += static_cast<char>(value & 0xFF);
        } else {
          throw LocatedError(token.column + static_cast<int>(i), fmt::format("unknown escape '\\{}'", c));
        }
    }
  }
  return out;
}

}  // namespace snr::assembler
