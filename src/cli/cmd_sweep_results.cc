// snr sweep report RESULTS.sqlite -o DIR   — HTML report with SVG figures
// snr sweep export RESULTS.sqlite [-o FILE.csv] — the table as CSV
// snr sweep kinds                          — run kinds, their keys and outputs
#include <fmt/format.h>

#include <memory>

#include "cli/sweep_commands.h"
#include "common/file_io.h"
#include "common/output.h"
#include "sweep/report.h"
#include "sweep/run_kind.h"
#include "sweep/store.h"

namespace snr::cli {

void setup_sweep_report(CLI::App& sweep, CommandContext& /*ctx*/) {
  struct Args {
    std::string database, output;
  };
  auto args = std::make_shared<Args>();
  auto* sub = sweep.add_subcommand("report", "Self-contained HTML report (inline SVG) of a sweep's results");
  sub->add_option("database", args->database, "results database of snr sweep")->required();
  sub->add_option("-o,--output", args->output, "directory for index.html and one .svg per figure")->required();
  set_examples(sub, {"snr sweep report results.sqlite -o report/"});
  sub->callback([args] {
    check_input_file(args->database);
    output::check_output_directory(args->output);
    const sweep::SweepReport report = sweep::build_report(sweep::read_results(args->database));
    sweep::write_report(report, args->output);
    fmt::print("wrote {}/index.html and {} figures\n", args->output, report.figures.size());
  });
}

void setup_sweep_export(CLI::App& sweep, CommandContext& /*ctx*/) {
  struct Args {
    std::string database, output;
  };
  auto args = std::make_shared<Args>();
  auto* sub = sweep.add_subcommand("export", "A sweep's results table as CSV (one row per point, by point)");
  sub->add_option("database", args->database, "results database of snr sweep")->required();
  sub->add_option("-o,--output", args->output, "CSV file (default: stdout)")->check(not_dash_for_stdout());
  set_examples(sub, {"snr sweep export results.sqlite -o results.csv"});
  sub->callback([args] {
    check_input_file(args->database);
    if (!args->output.empty()) output::check_output_file(args->output);
    const std::string csv = sweep::results_csv(sweep::read_results(args->database));
    if (args->output.empty()) {
      fmt::print("{}", csv);
    } else {
      write_file_atomic(args->output, csv);
    }
  });
}

void setup_sweep_kinds(CLI::App& sweep, CommandContext& /*ctx*/) {
  auto* sub = sweep.add_subcommand("kinds", "List the run kinds, the keys a grid may vary and the output columns");
  set_examples(sub, {"snr sweep kinds"});
  sub->callback([] {
    for (const std::string& name : sweep::run_kind_names()) {
      const sweep::RunKind& kind = sweep::find_run_kind(name);
      fmt::print("{}: {}\n  keys:\n", name, kind.summary());
      for (const sweep::KeySpec& key : kind.keys()) {
        fmt::print("    {:<28} {}\n", key.has_fields ? key.name + "[.<field>]" : key.name, key.help);
      }
      fmt::print("  outputs (best point: lowest {}{}):\n", kind.objective(),
                 kind.feasible().empty() ? "" : fmt::format(" with {} = 1", kind.feasible()));
      for (const sweep::OutputColumn& c : kind.outputs()) {
        fmt::print("    {:<28} {:<8} {}\n", c.name, sweep::column_type_name(c.type), c.help);
      }
      if (!kind.varying_output_prefix().empty()) {
        fmt::print("    {:<28} {:<8} {}\n", std::string(kind.varying_output_prefix()) + "<cause>", "REAL",
                   "seconds of each cause of time the point has");
      }
    }
  });
}

}  // namespace snr::cli
