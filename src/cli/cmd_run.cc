// `snr run prog.elf`: runs a program on every chip of a simulated system
// (timing mode by default) and prints cycles, IPC, stalls, utilization and
// the console output of each chip.
#include <fmt/format.h>

#include <filesystem>

#include "cli/command.h"
#include "common/error.h"
#include "common/output.h"
#include "compiler/artifacts.h"
#include "metrics/model_profile.h"
#include "export/chakra/chakra_export.h"
#include "export/chakra/run_source.h"
#include "hw/config.h"
#include "sim/elf_loader.h"
#include "metrics/collector.h"
#include "metrics/run_report.h"
#include "sim/timing.h"

namespace {

struct RunOptions {
  std::string input;
  std::string hardware = "tpu-v4-like";
  std::vector<std::string> overrides;
  uint64_t chips = 0;  // 0 = from the config
  bool functional = false;
  bool json = false;
  std::string chakra;  // compiled models: also export the run as Chakra traces
  uint64_t max_cycles = 10'000'000'000ull;
};

// The program to run: an ELF file (a compiled model directory is handled
// by run_program before this).
snr::sim::ProgramImage load_program(const std::string& input) {
  if (std::filesystem::is_directory(input)) {
    throw snr::Error(fmt::format("{}: is a directory without a manifest.json; snr run expects an ELF program "
                                 "or a directory from snr compile",
                                 input));
  }
  return snr::sim::load_elf_program(input);
}

// `snr run outdir/`: every chip of a compiled model in timing mode, with
// the per-op profile (src/metrics/model_profile.h). The model carries its own
// hardware config; --set still overrides keys of it.
int run_compiled_model(const RunOptions& options) {
  if (options.functional || options.chips != 0 || options.hardware != RunOptions{}.hardware) {
    throw snr::Error(fmt::format("{}: a compiled model runs in timing mode on the hardware it was compiled for; "
                                 "--functional, --chips and --hw do not apply (--set does)",
                                 options.input));
  }
  if (!options.chakra.empty()) snr::output::check_output_prefix(options.chakra, "--chakra");
  fmt::print("{}", snr::metrics::run_compiled_model(options.input, options.overrides, options.json,
                                                      options.max_cycles));
  if (!options.chakra.empty()) {
    // A second run with the performance tracker listening: the profile
    // above stays what it is without one.
    snr::exporter::ExportSource source =
        snr::exporter::run_compiled_model_for_export(options.input, options.overrides, options.max_cycles);
    const auto trace =
        snr::exporter::build_chakra_trace(snr::exporter::build_op_timeline(std::move(source.data)), source.provenance);
    const auto files = snr::exporter::write_chakra_trace(trace, options.chakra);
    // Keep --json output one document: the summary goes to stderr then.
    const std::string summary = snr::exporter::describe_export(trace, files, options.chakra);
    if (options.json) {
      fmt::print(stderr, "{}", summary);
    } else {
      fmt::print("{}", summary);
    }
  }
  return 0;
}

int run_program(const RunOptions& options) {
  if (snr::compiler::is_compiled_model_directory(options.input)) return run_compiled_model(options);
  if (!options.chakra.empty()) {
    throw snr::Error(fmt::format("{}: --chakra exports a compiled model's run (a directory from snr compile)",
                                 options.input));
  }
  snr::hw::HwConfig config = snr::hw::load_preset_or_file(options.hardware);
  snr::hw::apply_overrides(config, snr::hw::with_chips_option(
                                      options.overrides, options.chips != 0 ? std::to_string(options.chips) : ""));

  snr::sim::System system(config);
  system.load(load_program(options.input));
  snr::metrics::RunMetrics metrics;
  if (options.functional) {
    metrics = snr::metrics::functional_run_metrics(snr::sim::run_functional(system, options.max_cycles));
  } else {
    snr::metrics::MetricsCollector collector(system.bus(), system.chip_count(), config.mxu_count);
    const snr::sim::RunOutcome outcome = snr::sim::TimingSimulator(system).run(options.max_cycles);
    metrics = collector.finish(outcome.cycles);
  }
  snr::metrics::RunDescription what{options.input, options.functional ? snr::metrics::RunMode::kFunctional
                                                                       : snr::metrics::RunMode::kTiming};
  fmt::print("{}", options.json ? snr::metrics::format_run_json(what, system, metrics)
                                : snr::metrics::format_run_text(what, system, metrics));
  // A non-zero exit code of chip 0 becomes the command's failure.
  return system.chip(0).exit_code == 0 ? 0 : 3;
}

void setup_run(CLI::App& app, snr::cli::CommandContext& ctx) {
  auto options = std::make_shared<RunOptions>();
  auto* sub = app.add_subcommand("run", "Run an NPU program (ELF) on a simulated multi-chip system");
  sub->add_option("program", options->input,
                  "ELF program (every chip runs it and reads its id from mhartid), or a directory from snr compile")
      ->required();
  sub->add_option("--hw", options->hardware, "hardware preset (tpu-v4-like, tpu-v5e-like) or YAML file")
      ->capture_default_str();
  sub->add_option("--set", options->overrides, "override one hardware key, e.g. --set hbm.bandwidth=1.6TB/s")
      ->take_all();
  sub->add_option("--chips", options->chips, "number of chips (same as --set chips=N)")
      ->check(snr::cli::in_range(1, 256));
  sub->add_flag("--functional", options->functional, "functional mode: exact results, no timing");
  sub->add_flag("--json", options->json, "machine-readable summary");
  sub->add_option("--chakra", options->chakra,
                  "compiled models: also write the run as Chakra traces PREFIX.<chip>.et (one rank per chip)");
  sub->add_option("--max-cycles", options->max_cycles,
                  "stop with an error after this many cycles (instructions in functional mode)")
      ->capture_default_str();
  snr::cli::set_examples(sub, {"snr run prog.elf --chips 2", "snr run model/ --set hbm.bandwidth=1.6TB/s"});
  sub->callback([options, &ctx] { ctx.exit_code = run_program(*options); });
}

}  // namespace

SNR_REGISTER_COMMAND(run, setup_run);
