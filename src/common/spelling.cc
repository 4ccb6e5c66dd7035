#include "common/spelling.h"

#include <algorithm>
#include <vector>

namespace snr {

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the optimal-string-alignment table.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::string nearest_name(std::string_view typed, std::span<const std::string_view> names, size_t max_distance) {
  std::string_view best;
  size_t best_distance = max_distance + 1;
  for (std::string_view name : names) {
    if (name == typed) return "";
    const size_t distance = edit_distance(typed, name);
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  return std::string(best);
}

}  // namespace snr
