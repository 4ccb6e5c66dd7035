// snr.sim: the distributed simulator (`snr sim`) from Python. A config
// given as a dict is written to a private temporary folder and read by the
// same strict reader as a file (paths inside it must be absolute).
#include <pybind11/pybind11.h>

#include <filesystem>
#include <random>

#include "common/error.h"
#include "common/file_io.h"
#include "dsim/simulator.h"
#include "dsim/workload/workload_options.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace snr::python {
namespace {

namespace fs = std::filesystem;

// A folder that exists for one run and is removed after it, whatever happens.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::random_device random;
    path_ = fs::temp_directory_path() / ("snr-python-" + std::to_string(random()) + std::to_string(random()));
    fs::create_directories(path_);
  }
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

fs::path config_path(const ConfigArg& arg, const ScratchFolder& scratch, const std::string& file_name) {
  if (!arg.text) return arg.name_or_path;
  const fs::path path = scratch.path() / file_name;
  write_file_atomic(path, *arg.text);
  return path;
}

py::object run_py(const py::object& workload, const py::object& system, const py::object& network,
                  const py::object& memory, const py::object& comm_groups, const std::string& backend,
                  double compute_scale, double comm_scale, double injection_scale,
                  const std::string& dangling_dependencies) {
  const ScratchFolder scratch;
  dsim::SimulationInputs inputs;
  inputs.workload_prefix = py::module_::import("os").attr("fspath")(workload).cast<std::string>();
  inputs.system_configuration = config_path(config_arg(system, "system"), scratch, "system.json");
  inputs.network_configuration = config_path(config_arg(network, "network"), scratch, "network.yml");
  inputs.remote_memory_configuration = config_path(config_arg(memory, "memory"), scratch, "memory.json");
  const ConfigArg groups = config_arg(comm_groups, "comm_groups");
  if (groups.given()) inputs.comm_group_configuration = config_path(groups, scratch, "groups.json");
  inputs.backend = backend;
  inputs.scales.compute = compute_scale;
  inputs.scales.comm = comm_scale;
  inputs.injection_scale = injection_scale;
  inputs.dangling_dependencies = dsim::parse_dangling_dependencies(dangling_dependencies);
  nlohmann::ordered_json result;
  {
    py::gil_scoped_release release;
    const dsim::SimulationResult simulated = dsim::simulate_files(inputs);
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
compute_ns, exposed_communication_ns, bytes_sent, nodes_completed}]} — the
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
