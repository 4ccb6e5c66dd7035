// snr: one binary, verb subcommands. See command.h for how verbs register.
#include <fmt/format.h>

#include <exception>

#include "cli/command.h"
#include "common/error.h"

int main(int argc, char** argv) {
  CLI::App app{
      "snr — find why ML workloads run slower than the hardware allows, and what to change.\n"
      "Run `snr <verb> --help` for the options of one verb."};
  app.require_subcommand(1);
  app.fallthrough(false);
  snr::cli::CommandContext ctx;
  snr::cli::setup_all_commands(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const snr::Error& e) {
    fmt::print(stderr, "snr: error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "snr: internal error: {}\n", e.what());
    return 2;
  }
  return ctx.exit_code;
}
