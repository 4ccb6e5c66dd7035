// Suggestions for mistyped names (a CLI verb, a configuration key, a
// collective): the edit distance of two words and the nearest of a list.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace snr {

// Letter insertions, deletions, substitutions and swaps of neighbours
// ("sim" and "smi" are one apart).
[[nodiscard]] size_t edit_distance(std::string_view a, std::string_view b);

// The name of `names` nearest to `typed`, when at most `max_distance`
// edits away and not `typed` itself; "" otherwise. Ties go to the first.
[[nodiscard]] std::string nearest_name(std::string_view typed, std::span<const std::string_view> names,
                                       size_t max_distance);

}  // namespace snr
