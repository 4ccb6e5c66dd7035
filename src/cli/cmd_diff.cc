// `snr diff a.db b.db [--json]`: compares two replays (e.g. one snapshot on
// two hardware configs): totals, cycles per op, per-DMA wait stalls.
#include <fmt/format.h>

#include "cli/command.h"
#include "export/run_diff.h"
#include "formats/rundb/reader.h"

namespace {

struct DiffArgs {
  std::string a, b;
  bool json = false;
};

int diff(const DiffArgs& args) {
  snr::cli::check_input_file(args.a);
  snr::cli::check_input_file(args.b);
  snr::rundb::RunDbReader a(args.a), b(args.b);
  const snr::exporter::RunDiff result = snr::exporter::diff_runs(a, b);
  fmt::print("{}", args.json ? snr::exporter::render_diff_json(result) : snr::exporter::render_diff_table(result));
  return 0;
}

void setup_diff(CLI::App& app, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<DiffArgs>();
  auto* cmd = app.add_subcommand("diff", "Compare two run databases (totals, per-op time, per-DMA stalls)");
  cmd->add_option("a", args->a, "baseline run database")->required();
  cmd->add_option("b", args->b, "run database to compare")->required();
  cmd->add_flag("--json", args->json, "JSON instead of a table");
  snr::cli::set_examples(cmd, {"snr diff v4.db v5e.db", "snr diff v4.db v5e.db --json"});
  cmd->callback([args, &ctx] { ctx.exit_code = diff(*args); });
}

}  // namespace

SNR_REGISTER_COMMAND(diff, setup_diff);
