#include "python/convert.h"

#include <pybind11/stl.h>

namespace snr::python {

ConfigArg config_arg(const py::handle& value, const std::string& what) {
  ConfigArg arg;
  if (value.is_none()) return arg;
  if (py::isinstance<py::dict>(value)) {
    arg.text = py::module_::import("json").attr("dumps")(value).cast<std::string>();
    arg.name_or_path = what;
    return arg;
  }
  const py::object fspath = py::module_::import("os").attr("fspath");
  if (py::isinstance<py::str>(value) || py::hasattr(value, "__fspath__")) {
    arg.name_or_path = fspath(value).cast<std::string>();
    return arg;
  }
  throw py::type_error(what + ": expected a dict, a str (built-in name or path) or a path, got " +
                       py::str(py::type::of(value)).cast<std::string>());
}

py::object to_python(const nlohmann::ordered_json& value) {
  switch (value.type()) {
    case nlohmann::ordered_json::value_t::null:
      return py::none();
    case nlohmann::ordered_json::value_t::boolean:
      return py::bool_(value.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer:
      return py::int_(value.get<int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned:
      return py::int_(value.get<uint64_t>());
    case nlohmann::ordered_json::value_t::number_float:
      return py::float_(value.get<double>());
    case nlohmann::ordered_json::value_t::string:
      return py::str(value.get_ref<const std::string&>());
    case nlohmann::ordered_json::value_t::array: {
      py::list list;
      for (const auto& item : value) list.append(to_python(item));
      return list;
    }
    case nlohmann::ordered_json::value_t::object: {
      py::dict dict;
      for (const auto& [key, item] : value.items()) dict[py::str(key)] = to_python(item);
      return dict;
    }
    default:
      return py::none();  // binary and discarded values never come out of the writers
  }
}

}  // namespace snr::python
