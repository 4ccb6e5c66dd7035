// `snr sim`: the distributed simulator, with ASTRA-sim's option names.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "cli/command.h"
#include "common/output.h"
#include "dsim/network/registry.h"
#include "dsim/simulator.h"

namespace {

struct SimOptions {
  snr::dsim::SimulationInputs inputs;
  std::string backend{snr::dsim::kDefaultNetworkBackend};
  std::string output_dir;
  std::string timeline;
};

void add_sim_options(CLI::App* sub, SimOptions& opts) {
  sub->add_option("--workload-configuration", opts.inputs.workload_prefix,
                  "Chakra trace prefix: files <prefix>.<rank>.et")->required();
  sub->add_option("--system-configuration", opts.inputs.system_configuration, "ASTRA-sim system JSON")->required();
  sub->add_option("--network-configuration", opts.inputs.network_configuration, "ASTRA-sim analytical network YAML")
      ->required();
  sub->add_option("--remote-memory-configuration", opts.inputs.remote_memory_configuration,
                  "ASTRA-sim remote memory JSON")->required();
  sub->add_option("--comm-group-configuration", opts.inputs.comm_group_configuration,
                  "communicator groups JSON (pg_name -> NPU list)");
  sub->add_option("--perturbation-configuration", opts.inputs.perturbation_configuration,
                  "stragglers and heterogeneity JSON: per-NPU compute slow-down, per-link, per-NPU and "
                  "per-dimension bandwidth factors (docs/formats/perturbation.md)");
  sub->add_option("--network-backend", opts.backend,
                  fmt::format("network backend by name: {} (default {})",
                              fmt::join(snr::dsim::network_backend_names(), ", "), snr::dsim::kDefaultNetworkBackend));
}

void setup_sim(CLI::App& app, snr::cli::CommandContext& /*ctx*/) {
  auto opts = std::make_shared<SimOptions>();
  auto* sub = app.add_subcommand("sim", "Simulate Chakra traces on N NPUs (ASTRA-sim compatible)");
  add_sim_options(sub, *opts);
  sub->add_option("-o,--output", opts->output_dir, "directory for npus.json/csv, links.csv, summary.json, timeline.json");
  snr::cli::set_examples(sub, {"snr sim --workload-configuration out/ar --system-configuration sys.json "
                               "--network-configuration net.yml --remote-memory-configuration mem.json -o result/"});
  sub->callback([opts] {
    if (!opts->output_dir.empty()) snr::output::check_output_directory(opts->output_dir);
    opts->inputs.backend = opts->backend;
    opts->inputs.record_timeline = !opts->output_dir.empty();
    const auto result = snr::dsim::simulate_files(opts->inputs);
    fmt::print("{}", snr::dsim::astra_summary_lines(result));
    if (!opts->output_dir.empty()) {
      snr::dsim::write_result_files(result, opts->output_dir);
      snr::dsim::write_timeline(result, std::filesystem::path(opts->output_dir) / "timeline.json");
    }
  });
}

}  // namespace

SNR_REGISTER_COMMAND(sim, setup_sim);
