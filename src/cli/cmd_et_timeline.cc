// `snr et timeline`: simulate a Chakra trace and write its per-NPU timeline;
// the simulation is `snr sim`'s (src/dsim).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "cli/command.h"
#include "common/output.h"
#include "dsim/network/registry.h"
#include "dsim/simulator.h"

namespace {

struct TimelineOptions {
  snr::dsim::SimulationInputs inputs;
  std::string prefix;
  std::string backend{snr::dsim::kDefaultNetworkBackend};
  std::string output;
};

void setup_timeline(CLI::App& parent, snr::cli::CommandContext& /*ctx*/) {
  auto opts = std::make_shared<TimelineOptions>();
  auto* sub = parent.add_subcommand("timeline", "Simulate a trace on N NPUs and write the per-NPU timeline");
  sub->add_option("prefix", opts->prefix, "Chakra trace prefix: files <prefix>.<rank>.et")->required();
  sub->add_option("--system-configuration", opts->inputs.system_configuration, "ASTRA-sim system JSON")->required();
  sub->add_option("--network-configuration", opts->inputs.network_configuration, "ASTRA-sim analytical network YAML")
      ->required();
  sub->add_option("--remote-memory-configuration", opts->inputs.remote_memory_configuration,
                  "ASTRA-sim remote memory JSON")->required();
  sub->add_option("--comm-group-configuration", opts->inputs.comm_group_configuration, "communicator groups JSON");
  sub->add_option("--perturbation-configuration", opts->inputs.perturbation_configuration,
                  "stragglers and heterogeneity JSON (docs/formats/perturbation.md)");
  sub->add_option("--network-backend", opts->backend,
                  fmt::format("network backend by name: {} (default {})",
                              fmt::join(snr::dsim::network_backend_names(), ", "), snr::dsim::kDefaultNetworkBackend));
  sub->add_option("-o,--output", opts->output, "timeline JSON (Chrome trace) to write")->required();
  snr::cli::set_examples(sub, {"snr et timeline out/ar --system-configuration sys.json --network-configuration "
                               "net.yml --remote-memory-configuration mem.json -o timeline.json"});
  sub->callback([opts] {
    snr::output::check_output_file(opts->output);
    opts->inputs.workload_prefix = opts->prefix;
    opts->inputs.backend = opts->backend;
    opts->inputs.record_details = true;
    const auto result = snr::dsim::simulate_files(opts->inputs);
    snr::dsim::write_timeline(result, opts->output);
    fmt::print("{} NPUs, finish {} ns, timeline -> {}\n", result.npus.size(), result.finish_ns(), opts->output);
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(et, "Chakra execution-trace tools", timeline, setup_timeline);
