// `snr hw export-network --hw PRESET --chips N -o DIR`: the NPU system as
// the ASTRA-sim network, system and remote-memory configs `snr sim` reads
// (src/hw/network_export.h), so a trace exported from a run of this
// hardware (snr export --chakra) simulates on the same machine.
#include <fmt/format.h>

#include <optional>
#include <string>

#include "cli/command.h"
#include "common/error.h"
#include "common/output.h"
#include "hw/config.h"
#include "hw/network_export.h"
#include "hw/topology.h"

namespace {

struct ExportNetworkArgs {
  std::string hardware = "tpu-v4-like";
  std::optional<std::string> chips;  // absent: the config's; else as `--set chips=N` (ranges checked there)
  std::vector<std::string> overrides;
  std::string output;
};

int export_network(const ExportNetworkArgs& args) {
  snr::output::check_output_directory(args.output);
  snr::hw::HwConfig config = snr::hw::load_preset_or_file(args.hardware);
  if (args.chips && args.chips->empty()) throw snr::Error("--chips: expected a chip count");
  snr::hw::apply_overrides(config, snr::hw::with_chips_option(args.overrides, args.chips.value_or("")));
  const auto files = snr::hw::export_network(config);
  snr::hw::write_network_config(files, args.output);
  fmt::print("{}: network.yml, system.json, remote_memory.json for {} ({})\n", args.output,
             snr::hw::Topology(config).describe(), config.preset_name);
  return 0;
}

void setup_hw_export_network(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<ExportNetworkArgs>();
  auto* sub = parent.add_subcommand(
      "export-network", "Write the ASTRA-sim network/system/remote-memory configs of an NPU system (for snr sim)");
  sub->add_option("--hw", args->hardware, "hardware preset (tpu-v4-like, tpu-v5e-like) or YAML file")
      ->capture_default_str();
  sub->add_option("--chips", args->chips, "number of chips (same as --set chips=N)");
  sub->add_option("--set", args->overrides, "override one hardware key, e.g. --set topology.kind=torus2d")
      ->take_all();
  sub->add_option("-o,--output", args->output, "directory for network.yml, system.json, remote_memory.json")
      ->required();
  snr::cli::set_examples(sub, {"snr hw export-network --hw tpu-v4-like --chips 4 -o net",
                               "snr hw export-network --hw tpu-v4-like --chips 16 --set topology.kind=torus2d -o net16"});
  sub->callback([args, &ctx] { ctx.exit_code = export_network(*args); });
}

[[maybe_unused]] const bool registered =
    snr::cli::register_subcommand("hw", "Hardware configuration tools", "export-network", setup_hw_export_network);

}  // namespace
