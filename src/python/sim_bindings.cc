// snr.sim: the distributed simulator (`snr sim`) from Python. A config
// given as a dict goes as JSON text through the same strict reader as a
// file.
#include <pybind11/pybind11.h>

#include <filesystem>

#include "common/error.h"
#include "common/file_io.h"
#include "dsim/simulator.h"
#include "dsim/workload/workload_options.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace snr::python {
namespace {

namespace fs = std::filesystem;

// A config argument as the text the simulator's readers take: a dict's JSON
// (paths inside it resolve against the current directory) or a file's text
// (paths resolve beside the file, as for `snr sim`).
dsim::ConfigText config_text(const ConfigArg& arg) {
  if (arg.text) return {*arg.text, arg.display(), fs::current_path()};
  const fs::path path = arg.name_or_path;
  return {read_file(path), path.string(), path.parent_path()};
}

py::object run_py(const py::object& workload, const py::object& system, const py::object& network,
                  const py::object& memory, const py::object& comm_groups, const std::string& backend,
                  double compute_scale, double comm_scale, double injection_scale,
                  const std::string& dangling_dependencies) {
  dsim::SimulationInputs inputs;
  inputs.workload_prefix = py::module_::import("os").attr("fspath")(workload).cast<std::string>();
  dsim::SimulationDocuments documents{config_text(config_arg(system, "system")),
                                      config_text(config_arg(network, "network")),
                                      config_text(config_arg(memory, "memory")), std::nullopt, std::nullopt};
  const ConfigArg groups = config_arg(comm_groups, "comm_groups");
  if (groups.given()) documents.comm_groups = config_text(groups);
  inputs.backend = backend;
  inputs.scales.compute = compute_scale;
  inputs.scales.comm = comm_scale;
  inputs.injection_scale = injection_scale;
  inputs.dangling_dependencies = dsim::parse_dangling_dependencies(dangling_dependencies);
  nlohmann::ordered_json result;
  {
    py::gil_scoped_release release;
    const dsim::SimulationResult simulated = dsim::simulate_documents(inputs, documents);
    result["summary"] = dsim::summary_json(simulated);
    result["npus"] = dsim::npus_json(simulated);
  }
  return to_python(result);
}

constexpr const char* kRunDoc = R"(Simulate Chakra traces on N NPUs (`snr sim`, ASTRA-sim compatible).

Arguments:
  workload     trace prefix: files <prefix>.<rank>.et, one per NPU.
  system       ASTRA-sim system JSON: a path or a dict.
  network      analytical network YAML: a path or a dict (npus_count,
               topology, bandwidth in GB/s, latency in ns per dimension).
  memory       remote memory JSON: a path or a dict.
  comm_groups  communicator groups JSON (pg_name -> NPU list), optional.
  backend      network backend by name (default analytical-congestion-aware).
  compute_scale, comm_scale, injection_scale
               ASTRA-sim's --compute-scale, --comm-scale, --injection-scale.
  dangling_dependencies
               "error" (default) or "ignore".

Returns {"summary": {backend, npus, finish_ns, messages, events,
skipped_records, dangling_dependencies_dropped}, "npus": [{npu, total_ns,
compute_ns, exposed_communication_ns, bytes_sent, nodes_completed, cpu_ns,
communication_ns, remote_memory_ns, overlap_ns}]} — the
summary.json and npus.json `snr sim -o DIR` writes; times in ns, sizes in
bytes. Raises snr.Error for bad inputs. The GIL is released while it runs.)";

}  // namespace

void bind_sim(py::module_& snr_module) {
  py::module_ sim = snr_module.def_submodule("sim", "Distributed simulator (ASTRA-sim 2.x compatible)");
  sim.def("run", &run_py, kRunDoc, py::arg("workload"), py::arg("system"), py::arg("network"), py::arg("memory"),
          py::kw_only(), py::arg("comm_groups") = py::none(),
          py::arg("backend") = std::string(dsim::kDefaultNetworkBackend), py::arg("compute_scale") = 1.0,
          py::arg("comm_scale") = 1.0, py::arg("injection_scale") = 1.0,
          py::arg("dangling_dependencies") = "error");
}

}  // namespace snr::python
