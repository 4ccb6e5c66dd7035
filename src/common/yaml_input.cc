#include "common/yaml_input.h"

#include <fmt/format.h>

#include <map>
#include <string>

#include "common/error.h"

namespace snr {

void check_no_duplicate_keys(const YAML::Node& node, std::string_view source_name) {
  if (node.IsSequence()) {
    for (const YAML::Node& item : node) check_no_duplicate_keys(item, source_name);
    return;
  }
  if (!node.IsMap()) return;
  std::map<std::string, int> first_line;
  for (const auto& entry : node) {
    if (entry.first.IsScalar()) {
      const int line = entry.first.Mark().line + 1;
      auto [it, inserted] = first_line.emplace(entry.first.Scalar(), line);
      if (!inserted) {
        throw Error(fmt::format("{}:{}: duplicate key '{}' (first at line {})", source_name, line,
                                entry.first.Scalar(), it->second));
      }
    }
    check_no_duplicate_keys(entry.second, source_name);
  }
}

YAML::Node load_yaml_document(std::string_view text, std::string_view source_name, std::string_view what) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("{}:{}: invalid YAML: {}", source_name, e.mark.line + 1, e.msg));
  }
  if (!root.IsDefined() || root.IsNull()) {
    throw Error(fmt::format("{}: no YAML content (empty or only comments); expected {}", source_name, what));
  }
  check_no_duplicate_keys(root, source_name);
  return root;
}

}  // namespace snr
