// `import snr`: snr.pathfind, snr.sim, snr.et and snr.rundb over the same
// libraries as the CLI. Errors in the inputs raise snr.Error (a ValueError).
#include <pybind11/pybind11.h>

#include "common/error.h"
#include "python/bindings.h"

PYBIND11_MODULE(snr, m) {
  m.doc() = "snr: why ML workloads run slower than the hardware allows, and what to change.\n"
            "Submodules: pathfind (cross-stack model), sim (distributed simulator), et (Chakra traces), "
            "rundb (replayed NPU runs).";
  m.attr("__version__") = SNR_VERSION;
  pybind11::register_exception<snr::Error>(m, "Error", PyExc_ValueError);
  snr::python::bind_pathfind(m);
  snr::python::bind_sim(m);
  snr::python::bind_readers(m);
}
