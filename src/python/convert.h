// Between Python values and the readers' text: a config given as a dict is
// written as JSON (which the YAML readers also accept) and goes through the
// same strict reader as a file; a result is the JSON the CLI prints, turned
// into plain dicts, lists, ints, floats and strings.
#pragma once

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace snr::python {

namespace py = pybind11;

// A config argument: a dict (its JSON text) or a str / os.PathLike (a
// built-in name or a file path).
struct ConfigArg {
  std::optional<std::string> text;  // set for a dict
  std::string name_or_path;         // set otherwise
  [[nodiscard]] bool given() const { return text.has_value() || !name_or_path.empty(); }
  // "<dict>" or the name or path, for error messages.
  [[nodiscard]] std::string display() const { return text ? "<dict " + name_or_path + ">" : name_or_path; }
};

// `what` names the argument in the TypeError raised for anything else.
ConfigArg config_arg(const py::handle& value, const std::string& what);

py::object to_python(const nlohmann::ordered_json& value);

}  // namespace snr::python
