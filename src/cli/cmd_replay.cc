// `snr replay snap.snr -o run.db [--hw PRESET|FILE] [--set key=value ...]`:
// replays a snapshot in timing mode with the performance tracker, checks
// every pc against the recording and writes the run data to SQLite.
#include <fmt/format.h>
#include <string>

#include "cli/command.h"
#include "common/error.h"
#include "common/output.h"
#include "formats/rundb/writer.h"
#include "formats/snapshot/shared_snapshot.h"
#include "metrics/run_metrics.h"
#include "metrics/run_report.h"
#include "replay/replayer.h"

namespace {

struct ReplayArgs {
  std::string snapshot;
  std::string output;
  std::string hw;
  std::vector<std::string> overrides;
  bool quiet = false;
};

int replay(const ReplayArgs& args) {
  snr::cli::check_input_file(args.snapshot);
  snr::output::check_output_is_not_input(args.output, args.snapshot);
  snr::output::StagedFile output(args.output);
  // Saved memory stays in the decoded sections (no copies into messages).
  const snr::snapshot::SharedSnapshot snapshot = snr::snapshot::read_snapshot_shared(args.snapshot).value();
  if (const std::vector<std::string> problems = snr::snapshot::validate_shared_snapshot(snapshot); !problems.empty()) {
    for (const std::string& problem : problems) fmt::print(stderr, "{}: {}\n", args.snapshot, problem);
    throw snr::Error(fmt::format("{}: invalid snapshot, not replayed", args.snapshot));
  }
  const std::string identity = snr::snapshot::snapshot_identity(args.snapshot, snapshot);
  const snr::replay::ReplayInput input = snr::replay::replay_input_from_snapshot(snapshot, identity);
  snr::replay::ReplayOptions options;
  options.hw_preset_or_file = args.hw;
  options.overrides = args.overrides;
  const snr::replay::ReplayResult result = snr::with_error_context(
      fmt::format("replaying {}", args.snapshot), [&] { return snr::replay::run_replay(input, options); });
  if (!result.final_state_problems.empty()) {
    for (const std::string& problem : result.final_state_problems) fmt::print(stderr, "{}: {}\n", args.snapshot, problem);
    throw snr::Error(fmt::format("{}: the replay did not reach the device's end state; {} not written", args.snapshot,
                                 args.output));
  }
  snr::rundb::write_run_db(output.path().string(), result.data);
  output.commit();
  if (!args.quiet) {
    const snr::metrics::RunMetrics metrics = snr::metrics::metrics_of(
        result.data, result.system->config().mxu_count, static_cast<uint32_t>(input.chips.size()));
    const uint32_t recorded = metrics.recorded_chip_count();
    fmt::print("{}: replayed {} instructions on {} chip(s) in {} cycles; pc sequence and end state match\n",
               args.snapshot, result.instructions,
               recorded == metrics.chips.size() ? std::to_string(recorded)
                                                : fmt::format("{} of {}", recorded, metrics.chips.size()),
               result.data.total_cycles);
    for (uint32_t c = 0; c < metrics.chips.size(); ++c) {
      if (!metrics.chips[c].recorded) continue;
      fmt::print("chip {}: {} instructions, IPC {:.3f}\n{}", c, metrics.chips[c].instructions, metrics.ipc(c),
                 snr::metrics::format_chip_metrics(metrics, c));
    }
    fmt::print("run data: {} ({} DMAs, {} dependency edges)\n", args.output, result.data.dmas.size(),
               result.data.dependencies.size());
  }
  return 0;
}

void setup_replay(CLI::App& app, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<ReplayArgs>();
  auto* cmd = app.add_subcommand("replay", "Replay a snapshot cycle by cycle and write run data (SQLite)");
  cmd->add_option("snapshot", args->snapshot, "snapshot file (.snr)")->required();
  cmd->add_option("-o,--output", args->output, "run database to write (run.db)")->required();
  cmd->add_option("--hw", args->hw, "hardware preset or YAML file instead of the recorded config");
  cmd->add_option("--set", args->overrides, "hardware override key=value (repeatable)");
  cmd->add_flag("-q,--quiet", args->quiet, "print nothing on success");
  snr::cli::set_examples(cmd, {"snr replay window.snr -o run.db", "snr replay window.snr -o v5e.db --hw tpu-v5e-like"});
  cmd->callback([args, &ctx] { ctx.exit_code = replay(*args); });
}

}  // namespace

SNR_REGISTER_COMMAND(replay, setup_replay);
