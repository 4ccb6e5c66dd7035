#include "formats/pytorch/node_list_split.h"

#include <algorithm>

namespace snr::pytorch::detail {

namespace {

constexpr size_t kSearchBytes = size_t{4} << 20;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The '{' of "}" "," "{" around the newline at `newline`, or npos.
size_t element_start_around(std::string_view text, size_t newline, size_t first_node) {
  size_t before = newline;
  while (before > first_node && is_space(text[before - 1])) --before;
  if (before < first_node + 2 || text[before - 1] != ',') return std::string_view::npos;
  --before;
  while (before > first_node && is_space(text[before - 1])) --before;
  if (before <= first_node || text[before - 1] != '}') return std::string_view::npos;
  size_t after = newline + 1;
  while (after < text.size() && is_space(text[after])) ++after;
  return after < text.size() && text[after] == '{' ? after : std::string_view::npos;
}

}  // namespace

size_t guess_node_list_split(std::string_view text, size_t first_node) {
  if (first_node >= text.size()) return std::string_view::npos;
  const size_t middle = first_node + (text.size() - first_node) / 2;
  const size_t search_end = std::min(text.size(), middle + kSearchBytes);
  for (size_t newline = text.find('\n', middle); newline < search_end; newline = text.find('\n', newline + 1)) {
    const size_t start = element_start_around(text, newline, first_node);
    if (start != std::string_view::npos) return start;
  }
  const size_t compact = text.substr(0, search_end).find("},{", middle);
  return compact == std::string_view::npos ? compact : compact + 2;
}

}  // namespace snr::pytorch::detail
