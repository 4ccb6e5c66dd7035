// Splitting one line of GNU-as-style source into labels, a mnemonic or
// directive, and comma-separated operands, keeping 1-based columns so
// errors can point at the exact operand.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace snr::assembler {

struct Token {
  std::string text;
  int column = 1;  // 1-based column of the first character
};

struct SourceLine {
  std::vector<Token> labels;   // "name:" prefixes
  Token mnemonic;              // empty text when the line has only labels/comments
  std::vector<Token> operands; // trimmed, split at top-level commas
};

// An error that knows its column; the assembler adds file:line.
class LocatedError : public Error {
 public:
  LocatedError(int column, std::string message) : Error(std::move(message)), column_(column) {}
  [[nodiscard]] int column() const { return column_; }

 private:
  int column_;
};

// Throws LocatedError on malformed input (unterminated string, bad label).
SourceLine split_line(std::string_view line);

// Decodes a "..." string literal with C escapes (\n \t \\ \" \0 \xNN \NNN).
std::string decode_string_literal(const Token& token);

}  // namespace snr::assembler
