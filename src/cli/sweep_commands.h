// `snr sweep`'s subcommands beside the sweep itself (cmd_sweep_results.cc):
// `report`, `export` and `kinds`, added to the `sweep` verb by cmd_sweep.cc.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/command.h"

namespace snr::cli {

void setup_sweep_report(CLI::App& sweep, CommandContext& ctx);
void setup_sweep_export(CLI::App& sweep, CommandContext& ctx);
void setup_sweep_kinds(CLI::App& sweep, CommandContext& ctx);

}  // namespace snr::cli
