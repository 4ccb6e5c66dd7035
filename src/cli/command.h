// The verb registry of the `snr` binary. Each verb lives in its own
// cmd_<verb>.cc beside main.cc and registers itself at start-up:
//
//   void setup_run(CLI::App& app, snr::cli::CommandContext& ctx) {
//     auto* sub = app.add_subcommand("run", "Run a program in timing mode");
//     ...
//     sub->callback([&ctx, ...] { ctx.exit_code = ...; });
//   }
//   SNR_REGISTER_COMMAND(run, setup_run);
//
// Command code translates between the command line and library calls; the
// work itself belongs in the layer libraries. Library errors (snr::Error)
// propagate to main(), which prints them and exits non-zero.
#pragma once

#include <CLI/CLI.hpp>
#include <string_view>

namespace snr::cli {

struct CommandContext {
  int exit_code = 0;
};

using CommandSetup = void (*)(CLI::App& app, CommandContext& ctx);

bool register_command(std::string_view name, CommandSetup setup);

// Verbs grouped under a parent verb (`snr et convert`, `snr snapshot info`):
// the parent is created on first use with `parent_description`, and `setup`
// receives the parent's CLI::App to add its own subcommand to. Several files
// may register under the same parent.
bool register_subcommand(std::string_view parent, std::string_view parent_description,
                         std::string_view name, CommandSetup setup);

// Calls every registered setup, in name order so help output is stable.
void setup_all_commands(CLI::App& app, CommandContext& ctx);

}  // namespace snr::cli

#define SNR_REGISTER_COMMAND(verb, setup_fn) \
  [[maybe_unused]] static const bool snr_command_registered_##verb = ::snr::cli::register_command(#verb, setup_fn)

#define SNR_REGISTER_SUBCOMMAND(parent, parent_description, verb, setup_fn)             \
  [[maybe_unused]] static const bool snr_command_registered_##parent##_##verb =          \
      ::snr::cli::register_subcommand(#parent, parent_description, #verb, setup_fn)
