// `snr demo`: the main job (src/workflow/demo.h): compile the default LLM
// decode step, serve it, record a window, replay, analyze, verify, report.
// `snr demo --builtin` runs the small built-in two-chip program in timing
// mode instead and explains what happened (src/sim/demo_program.h).
#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <filesystem>

#include "cli/command.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/cli_numbers.h"
#include "common/output.h"
#include "compiler/spec.h"
#include "hw/config.h"
#include "sim/demo_program.h"
#include "metrics/collector.h"
#include "metrics/run_report.h"
#include "sim/timing.h"
#include "workflow/demo.h"

namespace {

struct DemoArgs {
  std::string output = "snr-demo";
  std::string spec;
  std::string break_at;
  uint64_t count = 0;
  std::string chips;
  size_t verify_top = 3;
  bool no_verify = false;
  bool builtin = false;
  std::string hardware = "tpu-v4-like";
  bool json = false;
};

int run_builtin(const DemoArgs& args) {
  uint64_t chips = 2;
  const snr::hw::LoadedHardware hardware = snr::hw::load_hardware(args.hardware);
  snr::hw::HwConfig config = hardware.config;
  if (!args.chips.empty()) {
    auto [end, ec] = std::from_chars(args.chips.data(), args.chips.data() + args.chips.size(), chips);
    if (ec != std::errc() || end != args.chips.data() + args.chips.size() || chips < 1 || chips > 256) {
      throw snr::Error(fmt::format("--chips {}: the built-in demo takes a chip count from 1 to 256", args.chips));
    }
  } else if (hardware.gives_chips) {
    chips = config.chip_count;  // kept, as `snr run --hw` keeps it
  }
  snr::hw::apply_overrides(config, {fmt::format("chips={}", chips)});
  snr::sim::System system(config);
  system.load(snr::sim::demo::build_program());
  snr::sim::demo::seed_inputs(system);
  snr::metrics::MetricsCollector collector(system.bus(), system.chip_count(), config.mxu_count);
  const snr::sim::RunOutcome outcome = snr::sim::TimingSimulator(system).run(100'000'000);
  const snr::metrics::RunMetrics metrics = collector.finish(outcome.cycles);
  const double error = snr::sim::demo::max_relative_error(system);
  snr::metrics::RunDescription what{"built-in demo", snr::metrics::RunMode::kTiming};
  if (args.json) {
    fmt::print("{}", snr::metrics::format_run_json(what, system, metrics));
  } else {
    fmt::print("snr demo --builtin: a {}-chip NPU program in the cycle-level simulator\n\nWhat each chip does:\n", chips);
    int step = 1;
    for (const std::string& line : snr::sim::demo::describe_steps()) fmt::print("  {}. {}\n", step++, line);
    fmt::print("\n{}", snr::metrics::format_run_text(what, system, metrics));
    fmt::print("\nresult check: max relative error vs a float64 host reference = {:.2e} ({})\n", error,
               error < 1e-5 ? "ok" : "MISMATCH");
    fmt::print("next: `snr run prog.elf --chips N` runs your own program the same way\n");
  }
  return error < 1e-5 ? 0 : 1;
}

std::optional<std::vector<uint32_t>> parse_chip_list(const std::string& text) {
  if (text.empty() || text == "all") return std::nullopt;
  std::vector<uint32_t> chips;
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::string_view item = rest.substr(0, rest.find(','));
    uint32_t chip = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), chip);
    if (ec != std::errc() || end != item.data() + item.size()) {
      throw snr::Error(fmt::format("--chips '{}': expected 'all' or a list like 0,2,3", text));
    }
    chips.push_back(chip);
    rest.remove_prefix(std::min(item.size() + 1, rest.size()));
  }
  return chips;
}

int run_main_demo(const DemoArgs& args) {
  snr::workflow::DemoOptions options;
  options.output_dir = args.output;
  snr::output::check_output_directory(args.output);
  if (!args.spec.empty()) {
    // An empty --spec must not fall back to the built-in example.
    snr::cli::check_input_file(args.spec);
    options.spec_yaml = snr::read_file(args.spec);
    options.spec_name = args.spec;
    // Parsed here too so a bad spec fails before the output directory exists.
    (void)snr::compiler::parse_spec_yaml(options.spec_yaml, options.spec_name);
  }
  options.break_at = args.break_at;
  options.count = args.count;
  options.chips = parse_chip_list(args.chips);
  options.verify_top = args.no_verify ? 0 : args.verify_top;
  options.analyze.top_suggestions = std::max<size_t>(options.verify_top, 5);
  fmt::print("snr demo: compile an LLM decode step, serve it, record a window through the debugger protocol,\n"
             "replay it cycle by cycle, analyze, verify suggestions by replaying rewritten code, report\n\n");
  std::fflush(stdout);
  // All or nothing: model/, window.snr, run.db and report/ are built in a
  // staging directory and moved into place together at the end (run.db
  // names its snapshot by file name, the report links relatively, so both
  // survive the move); an error or Ctrl-C leaves nothing behind. Paths are
  // shown as they will be.
  snr::output::StagedDirectory staged(args.output);
  options.output_dir = staged.path();
  const snr::workflow::Progress progress = [&staged](const std::string& line) {
    fmt::print("[demo] {}\n", snr::output::shown_path_text(line, staged));
    std::fflush(stdout);
  };
  const snr::workflow::DemoResult result = snr::workflow::run_demo(options, progress);
  staged.commit();
  const auto placed = [&](const std::filesystem::path& path) {
    return snr::output::shown_path_text(path.string(), staged);
  };
  fmt::print("\n{}", snr::workflow::format_summary(result.analysis.analysis, 3));
  fmt::print("\nstage wall times: {}\n", snr::workflow::format_stage_times(result.stages, result.wall_s));
  fmt::print("snapshot: {}\nrun data: {}\nreport: {}\n", placed(result.snapshot_path), placed(result.run_db_path),
             placed(result.analysis.report_path));
  fmt::print("next: open the report in a browser; `snr analyze {} -o other/` re-analyzes\n",
             placed(result.run_db_path));
  return 0;
}

void setup_demo(CLI::App& app, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<DemoArgs>();
  auto* sub = app.add_subcommand(
      "demo", "The main job: compile, serve, record, replay, analyze and report an LLM decode step (no inputs needed)");
  sub->add_option("-o,--output", args->output, "output directory (model/, window.snr, run.db, report/)")
      ->capture_default_str();
  sub->add_option("--spec", args->spec, "workload spec to use instead of the built-in examples/llm-decode.yaml");
  sub->add_option("--break", args->break_at, "op to start recording at (default: the first op of layer 1)");
  sub->add_option("--count", args->count, "instructions to record per chip (default: one layer's window)")
      ->check(snr::cli::in_range(1, 1ull << 40));
  sub->add_option("--chips", args->chips,
                  "chips to record: all, or a list like 0,1 (with --builtin: the number of chips, default 2, or "
                  "the --hw file's chips)");
  sub->add_option("--verify-top", args->verify_top, "suggestions to verify by replaying rewritten code")
      ->capture_default_str()
      ->check(snr::cli::in_range(0, snr::limits::kMaxListed));
  sub->add_flag("--no-verify", args->no_verify, "skip verification");
  sub->add_flag("--builtin", args->builtin, "run the small built-in two-chip program instead");
  sub->add_option("--hw", args->hardware, "with --builtin: hardware preset or YAML file")->capture_default_str();
  sub->add_flag("--json", args->json, "with --builtin: machine-readable summary");
  snr::cli::set_examples(sub, {"snr demo -o snr-demo/", "snr demo --builtin --chips 4"});
  sub->callback([args, &ctx] { ctx.exit_code = args->builtin ? run_builtin(*args) : run_main_demo(*args); });
}

}  // namespace

SNR_REGISTER_COMMAND(demo, setup_demo);
