#include <fmt/format.h>

#include "cli/command.h"

namespace {
void setup_version(CLI::App& app, snr::cli::CommandContext& /*ctx*/) {
  auto* sub = app.add_subcommand("version", "Print the snr version");
  snr::cli::set_examples(sub, {"snr version"});
  sub->callback([] { fmt::print("snr {}\n", SNR_VERSION); });
}
}  // namespace

SNR_REGISTER_COMMAND(version, setup_version);
