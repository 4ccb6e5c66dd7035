// snr: one binary, verb subcommands. See command.h for how verbs register.
//
// Exit codes (docs/errors.md): 0 success, 1 an error in the inputs or the
// work (snr::Error, a file-system failure), 2 a command-line usage error,
// 70 an internal error (a bug: please report it); verbs may use others
// (snr run: 3 when the program exits non-zero).
#include <fmt/format.h>

#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/command.h"
#include "common/error.h"
#include "common/output.h"

namespace {

constexpr int kErrorExitCode = 1;
constexpr int kInternalErrorExitCode = 70;

bool is_option(const std::string& arg) { return !arg.empty() && arg[0] == '-'; }

// Finds an unknown verb before CLI11 does, so the error can suggest the
// nearest one. Descends through groups (`snr et convrt`); returns the usage
// error text or "".
std::string unknown_verb_error(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* current = &app;
  std::string path = "snr";
  for (const std::string& arg : args) {
    if (is_option(arg)) return "";
    // A verb with subcommands that also takes arguments itself (`snr sweep
    // GRID`, `snr sweep report DB`) does not require a subcommand.
    if (current->get_subcommands({}).empty() || current->get_require_subcommand_min() == 0) return "";
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : current->get_subcommands({})) {
      if (sub->get_name() == arg) next = sub;
    }
    if (next == nullptr) {
      const std::string nearest = snr::cli::nearest_verb(*current, arg);
      std::string message = fmt::format("unknown verb '{}' for `{}`", arg, path);
      if (!nearest.empty()) message += fmt::format("; did you mean `{} {}`?", path, nearest);
      message += fmt::format("\nRun `{} --help` for the list of verbs.", path);
      return message;
    }
    path += " " + arg;
    current = next;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "snr — find why ML workloads run slower than the hardware allows, and what to change.\n"
      "Run `snr <verb> --help` (or `snr help <verb>`) for the options and examples of one verb.",
      "snr"};
  app.require_subcommand(1);
  app.fallthrough(false);
  app.set_version_flag("--version", fmt::format("snr {}", SNR_VERSION), "Print the snr version and exit");
  std::vector<std::string> args(argv + 1, argv + argc);
  // `snr help` and `snr help VERB [SUBVERB]` are `--help` of that verb.
  if (!args.empty() && args[0] == "help") {
    args.erase(args.begin());
    args.emplace_back("--help");
  }
  snr::cli::CommandContext ctx;
  // The verb being run only (every verb when the first word names none).
  snr::cli::setup_commands(app, ctx, args.empty() ? std::string_view() : std::string_view(args[0]));
  snr::output::install_interrupt_cleanup();
  if (args.empty()) {
    fmt::print(stderr, "{}\nsnr: error: a verb is required\n", app.help());
    return snr::cli::kUsageExitCode;
  }
  if (const std::string error = unknown_verb_error(app, args); !error.empty()) {
    fmt::print(stderr, "snr: error: {}\n", error);
    return snr::cli::kUsageExitCode;
  }
  try {
    // CLI11 wants the arguments last-first.
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    app.exit(e);
    return snr::cli::kUsageExitCode;
  } catch (const snr::Error& e) {
    fmt::print(stderr, "snr: error: {}\n", e.what());
    return kErrorExitCode;
  } catch (const std::filesystem::filesystem_error& e) {
    // Disk full, permissions changed mid-run: the user's environment, not a bug.
    fmt::print(stderr, "snr: error: {}\n", e.what());
    return kErrorExitCode;
  } catch (const std::exception& e) {
    fmt::print(stderr, "snr: internal error: {}\n", e.what());
    return kInternalErrorExitCode;
  }
  return ctx.exit_code;
}
