// What one `snr sim` run simulated, written as DIR/inputs.json beside its
// results (`snr sim -o DIR`) so that tools re-run it exactly: `snr et
// critical-path DIR` re-simulates it to find the path and its what-ifs.
//
//   {"workload_configuration": "/abs/prefix", "system_configuration": ...,
//    "network_configuration": ..., "remote_memory_configuration": ...,
//    "comm_group_configuration": "" (none), "perturbation_configuration": "",
//    "network_backend": "analytical-congestion-aware", "compute_scale": 1,
//    "comm_scale": 1, "injection_scale": 1, "dangling_dependencies": "error"}
//
// Paths are absolute when written. Reading is strict: every key is
// required, unknown keys and values out of their range are errors naming
// the file and key.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "dsim/simulator.h"

namespace snr::dsim {

inline constexpr std::string_view kInputsFileName = "inputs.json";

std::string inputs_json(const SimulationInputs& inputs);
SimulationInputs parse_inputs_json(std::string_view text, std::string_view source);
SimulationInputs read_inputs_file(const std::filesystem::path& path);

}  // namespace snr::dsim
