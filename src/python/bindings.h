// One function per submodule of `snr`, each in its own file.
#pragma once

#include <pybind11/pybind11.h>

namespace snr::python {

namespace py = pybind11;

void bind_pathfind(py::module_& snr_module);
void bind_sim(py::module_& snr_module);
void bind_readers(py::module_& snr_module);

}  // namespace snr::python
