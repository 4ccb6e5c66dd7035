// `snr analyze run.db -o report/`: the analyses of seed 000 §5 over one
// replay, suggestions verified by rewriting and replaying the snapshot,
// and a report directory (src/workflow/analyze_run.h).
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli/command.h"
#include "common/cli_numbers.h"
#include "common/output.h"
#include "workflow/analyze_run.h"

namespace {

struct AnalyzeArgs {
  std::string run_db;
  std::string output;
  std::string snapshot;
  bool no_verify = false;
  size_t verify_top = 3;
  size_t top = 5;
  bool quiet = false;
};

int analyze(const AnalyzeArgs& args) {
  snr::cli::check_input_file(args.run_db);
  snr::output::check_output_directory(args.output);
  // All or nothing: the report is built in a staging directory and moved
  // into place only when complete (its links are relative, so it moves).
  snr::output::StagedDirectory staged(args.output);
  snr::workflow::AnalyzeRunOptions options;
  options.output_dir = staged.path();
  options.snapshot_path = args.snapshot;
  options.verify_top = args.no_verify ? 0 : args.verify_top;
  options.analyze.top_suggestions = std::max<size_t>(args.top, options.verify_top);
  options.title = fmt::format("snr analysis of {}", args.run_db);
  snr::workflow::Progress progress;
  if (!args.quiet) {
    progress = [&staged](const std::string& line) {
      fmt::print(stderr, "snr analyze: {}\n", snr::output::shown_path_text(line, staged));
    };
  }
  const snr::workflow::AnalyzeRunResult result = snr::workflow::analyze_run_db(args.run_db, options, progress);
  staged.commit();
  const auto placed = [&](const std::filesystem::path& path) {
    return snr::output::shown_path_text(path.string(), staged);
  };
  fmt::print("{}", snr::workflow::format_summary(result.analysis, args.top));
  if (!result.verify_note.empty()) fmt::print("suggestions not verified: {}\n", result.verify_note);
  fmt::print("tables: {}\ntimeline: {}\nreport: {}\n", placed(result.tables_dir), placed(result.timeline_path),
             placed(result.report_path));
  return 0;
}

void setup_analyze(CLI::App& app, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<AnalyzeArgs>();
  auto* cmd = app.add_subcommand("analyze", "Analyze a replay (DMA stalls, utilization, VMEM, suggestions) into a report");
  cmd->add_option("run_db", args->run_db, "run database from snr replay")->required();
  cmd->add_option("-o,--output", args->output, "report directory (index.html, tables/, timeline.json)")->required();
  cmd->add_option("--snapshot", args->snapshot,
                  "the snapshot run.db was replayed from, to verify suggestions (default: found via run.db meta source)");
  cmd->add_flag("--no-verify", args->no_verify, "do not verify suggestions by rewriting and replaying");
  cmd->add_option("--verify-top", args->verify_top, "suggestions to verify, best predicted first")
      ->capture_default_str()
      ->check(snr::cli::in_range(0, snr::limits::kMaxListed));
  cmd->add_option("--top", args->top, "stalls and suggestions listed in the text summary")
      ->capture_default_str()
      ->check(snr::cli::in_range(0, snr::limits::kMaxListed));
  cmd->add_flag("-q,--quiet", args->quiet, "no progress lines on stderr");
  snr::cli::set_examples(cmd, {"snr analyze run.db -o report/", "snr analyze run.db -o report/ --no-verify --top 10"});
  cmd->callback([args, &ctx] { ctx.exit_code = analyze(*args); });
}

}  // namespace

SNR_REGISTER_COMMAND(analyze, setup_analyze);
