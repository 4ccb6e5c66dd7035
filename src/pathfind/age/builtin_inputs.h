// The built-in technology libraries, templates and budgets: their YAML text
// for users to copy and edit, and the one rule every --tech/--arch/--budget
// option follows (a built-in name, else a file).
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/file_io.h"

namespace snr::pathfind::age {

// Throws naming `name` when no built-in input has it.
std::string builtin_input_yaml(std::string_view name);

// `builtin(name)` when `name_or_path` is one of `names`, else
// `parse(file text, path)`; `kind` ("technology library") names it in errors.
template <typename Builtin, typename Parse>
auto load_builtin_or_file(const std::string& name_or_path, const std::vector<std::string_view>& names,
                          std::string_view kind, Builtin builtin, Parse parse) {
  std::string known;
  for (std::string_view n : names) {
    if (n == name_or_path) return builtin(n);
    known += (known.empty() ? "" : ", ") + std::string(n);
  }
  if (!std::filesystem::exists(name_or_path)) {
    throw Error(fmt::format("'{}' is neither a built-in {} ({}) nor a file", name_or_path, kind, known));
  }
  return parse(read_file(name_or_path), name_or_path);
}

}  // namespace snr::pathfind::age
