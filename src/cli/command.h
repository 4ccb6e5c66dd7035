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
// propagate to main(), which prints them and exits 1; command-line usage
// errors exit 2 (docs/errors.md).
//
// Conventions every verb follows:
//   - every unsigned option rejects a sign (setup_commands adds the
//     check to each one), and counts and sizes carry a range: add
//     `->check(snr::cli::in_range(min, max))` with limits from
//     common/cli_numbers.h;
//   - outputs are checked before any work (common/output.h);
//   - `--help` ends with real examples: set_examples().
#pragma once

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <string_view>
#include <type_traits>
#include <utility>

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

// Calls the setup of the verb named `verb` (a group: all of its verbs) when
// one is registered by that name, else every registered setup, in name
// order so help output is stable; then adds the no-sign check to every
// unsigned option set up. Why not always all: building every verb's options
// costs a run more than its own verb does (7 M instructions, a third of
// `snr --version`).
void setup_commands(CLI::App& app, CommandContext& ctx, std::string_view verb);

// Exit code of command-line usage errors (unknown verb or option, a value
// out of range); snr::Error from the work itself exits 1.
inline constexpr int kUsageExitCode = 2;

// An integer option's range (decimal or 0x hex, no sign), checked while
// parsing so a bad value is a usage error naming the option.
CLI::Validator in_range(uint64_t min, uint64_t max);
// A byte count's range, as in_range or with a size unit ("64KiB", "1MiB",
// "1.5GB"; common/units.h): use it with ->transform(), which leaves the
// option's text as the plain number of bytes.
CLI::Validator bytes_in_range(uint64_t min, uint64_t max);
// A real option's range: finite, min .. max (above min when `above_min`).
// CLI::Range lets NaN through, and a NaN then fails every later test of
// the value, so it would read as "not given".
CLI::Validator in_real_range(double min, double max, bool above_min = false);

// For an -o whose absence means stdout: "-" is refused (a usage error)
// rather than written as a file named "-"; no verb reads "-" as stdout.
CLI::Validator not_dash_for_stdout();

// Ends `sub`'s --help with an "Examples:" section; each example is a
// complete command line starting with "snr " (checked by an e2e test).
void set_examples(CLI::App* sub, std::initializer_list<std::string_view> examples);

// What an input file is expected to be, for check_input_file's hints.
enum class InputKind { kAny, kChakraTrace, kPytorchTrace };

// Fails early, naming the file, when `path` is missing, a directory or
// empty, or is obviously the wrong kind of file (JSON given to a .et tool,
// a Kineto trace given where a host execution trace belongs), with the
// command that would help.
void check_input_file(const std::string& path, InputKind kind = InputKind::kAny);

// Takes `object` and never destroys it: the process is about to exit, and
// the kernel takes its memory back at once, where freeing a verb's last big
// value (a trace of millions of allocations) one piece at a time costs a
// tenth of the verb's time. What is kept stays reachable from a global, so
// leak checkers do not report it. Only for values a verb is done with.
void keep_pointer_until_exit(const void* object);
template <typename T>
void keep_until_exit(T&& object) {
  keep_pointer_until_exit(new std::decay_t<T>(std::forward<T>(object)));
}

// The registered verb closest to `typed` among `app`'s subcommands, or ""
// when none is close enough to suggest.
std::string nearest_verb(const CLI::App& app, std::string_view typed);

}  // namespace snr::cli

#define SNR_REGISTER_COMMAND(verb, setup_fn) \
  [[maybe_unused]] static const bool snr_command_registered_##verb = ::snr::cli::register_command(#verb, setup_fn)

#define SNR_REGISTER_SUBCOMMAND(parent, parent_description, verb, setup_fn)             \
  [[maybe_unused]] static const bool snr_command_registered_##parent##_##verb =          \
      ::snr::cli::register_subcommand(#parent, parent_description, #verb, setup_fn)
