// Whitespace handling for text inputs: blanks (spaces, tabs and the
// carriage return of Windows line ends) for line-oriented files (ASTRA-sim's
// text workloads, ns-3 configuration and topology files, CSV rows), and any
// whitespace around a single value (a quantity such as "40 GB/s").
#pragma once

#include <cctype>
#include <string_view>
#include <vector>

namespace snr {

[[nodiscard]] constexpr bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

[[nodiscard]] inline std::string_view trim_blanks(std::string_view text) {
  while (!text.empty() && is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank(text.back())) text.remove_suffix(1);
  return text;
}

// `text` without the whitespace (std::isspace) around it.
[[nodiscard]] inline std::string_view trim_space(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// The words of `line`, separated by runs of blanks.
[[nodiscard]] inline std::vector<std::string_view> split_blanks(std::string_view line) {
  std::vector<std::string_view> words;
  size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && is_blank(line[at])) ++at;
    const size_t start = at;
    while (at < line.size() && !is_blank(line[at])) ++at;
    if (at > start) words.push_back(line.substr(start, at - start));
  }
  return words;
}

}  // namespace snr
