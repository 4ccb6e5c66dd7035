#include "common/assignments.h"

#include <fmt/format.h>

#include <map>

#include "common/error.h"

namespace snr {

std::vector<std::pair<std::string, std::string>> split_assignments(const std::vector<std::string>& assignments,
                                                                   std::string_view example) {
  std::vector<std::pair<std::string, std::string>> split;
  std::map<std::string, std::string> given;
  for (const std::string& assignment : assignments) {
    const size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(fmt::format("--set '{}': expected key=value (e.g. {})", assignment, example));
    }
    std::string key = assignment.substr(0, eq), value = assignment.substr(eq + 1);
    const auto [it, first] = given.emplace(key, value);
    if (!first) throw Error(fmt::format("--set: key '{}' is given twice ('{}' and '{}')", key, it->second, value));
    split.emplace_back(std::move(key), std::move(value));
  }
  return split;
}

}  // namespace snr
