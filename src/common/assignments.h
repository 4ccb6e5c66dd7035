// The "key=value" assignments of a --set option (hardware overrides,
// compile-spec overrides), split in order. Two values for one key
// contradict each other, so a key given twice is an error rather than
// "the last one wins".
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace snr {

// Throws snr::Error for an assignment without '=' or with an empty key
// ("--set 'x': expected key=value (e.g. EXAMPLE)") and for a key given
// twice ("--set: key 'k' is given twice ('a' and 'b')").
std::vector<std::pair<std::string, std::string>> split_assignments(const std::vector<std::string>& assignments,
                                                                   std::string_view example);

}  // namespace snr
