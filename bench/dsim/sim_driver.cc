// `dsim_sim`: the simulation of `snr sim` / `snr et timeline` without the
// rest of the CLI (it links only the simulator's library), for quick
// old-versus-new comparisons (compare_old_new.sh) and profiling. Prints and
// writes exactly what `snr sim` does; errors go to stderr with exit 1.
// Usage: dsim_sim sim --workload-configuration=P --system-configuration=F
//          --network-configuration=F --remote-memory-configuration=F
//          [--comm-group-configuration=F] [--network-backend=NAME] [-o DIR]
//        dsim_sim et timeline PREFIX (same options) -o FILE
// It builds against older versions of the library too, whose backend
// option was an enum (hence the __has_include below).
#include <fmt/format.h>

#include <cstring>
#include <string>
#include <string_view>

#include "dsim/simulator.h"

namespace {

bool take(std::string_view arg, std::string_view name, std::string& value) {
  if (!arg.starts_with(name) || arg.size() <= name.size() || arg[name.size()] != '=') return false;
  value = std::string(arg.substr(name.size() + 1));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const bool timeline = argc >= 3 && std::strcmp(argv[1], "et") == 0 && std::strcmp(argv[2], "timeline") == 0;
  if (!timeline && (argc < 2 || std::strcmp(argv[1], "sim") != 0)) {
    fmt::print(stderr, "usage: {} sim|'et timeline PREFIX' --OPTION=VALUE ... [-o OUT]\n", argv[0]);
    return 2;
  }
  try {
    snr::dsim::SimulationInputs inputs;
    std::string backend = "analytical-congestion-aware";
    std::string output;
    std::string value;
    for (int i = timeline ? 3 : 2; i < argc; ++i) {
      const std::string_view arg = argv[i];
      if (arg == "-o" && i + 1 < argc) {
        output = argv[++i];
      } else if (take(arg, "--workload-configuration", value)) {
        inputs.workload_prefix = value;
      } else if (take(arg, "--system-configuration", value)) {
        inputs.system_configuration = value;
      } else if (take(arg, "--network-configuration", value)) {
        inputs.network_configuration = value;
      } else if (take(arg, "--remote-memory-configuration", value)) {
        inputs.remote_memory_configuration = value;
      } else if (take(arg, "--comm-group-configuration", value)) {
        inputs.comm_group_configuration = value;
      } else if (take(arg, "--network-backend", value)) {
        backend = value;
      } else if (timeline && inputs.workload_prefix.empty() && !arg.starts_with("-")) {
        inputs.workload_prefix = std::string(arg);
      } else {
        fmt::print(stderr, "unknown argument '{}'\n", arg);
        return 2;
      }
    }
#if __has_include("dsim/network/registry.h")
    inputs.backend = backend;
#else
    inputs.backend = snr::dsim::parse_backend(backend);
#endif
    inputs.record_details = timeline || !output.empty();
    const auto result = snr::dsim::simulate_files(inputs);
    if (timeline) {
      snr::dsim::write_timeline(result, output);
      fmt::print("{} NPUs, finish {} ns, timeline -> {}\n", result.npus.size(), result.finish_ns(), output);
      return 0;
    }
    fmt::print("{}", snr::dsim::astra_summary_lines(result));
    if (!output.empty()) {
      snr::dsim::write_result_files(result, output);
      snr::dsim::write_timeline(result, std::filesystem::path(output) / "timeline.json");
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
