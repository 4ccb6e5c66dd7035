// `snr demo`: runs the built-in two-chip NPU program in timing mode and
// explains what happened. Needs no input files.
#include <fmt/format.h>

#include "cli/command.h"
#include "common/error.h"
#include "hw/config.h"
#include "sim/demo_program.h"
#include "sim/run_report.h"
#include "sim/timing.h"

namespace {

struct DemoOptions {
  std::string hardware = "tpu-v4-like";
  uint64_t chips = 2;
  bool json = false;
};

int run_demo(const DemoOptions& options) {
  snr::hw::HwConfig config = snr::hw::load_preset_or_file(options.hardware);
  snr::hw::apply_overrides(config, {fmt::format("chips={}", options.chips)});
  snr::sim::System system(config);
  system.load(snr::sim::demo::build_program());
  snr::sim::demo::seed_inputs(system);
  snr::sim::RunOutcome outcome = snr::sim::TimingSimulator(system).run(100'000'000);
  const double error = snr::sim::demo::max_relative_error(system);
  snr::sim::RunDescription what{"built-in demo", snr::sim::RunMode::kTiming};
  if (options.json) {
    fmt::print("{}", snr::sim::format_run_json(what, system, outcome));
  } else {
    fmt::print("snr demo: a {}-chip NPU program in the cycle-level simulator\n\nWhat each chip does:\n", options.chips);
    int step = 1;
    for (const std::string& line : snr::sim::demo::describe_steps()) fmt::print("  {}. {}\n", step++, line);
    fmt::print("\n{}", snr::sim::format_run_text(what, system, outcome));
    fmt::print("\nresult check: max relative error vs a float64 host reference = {:.2e} ({})\n", error,
               error < 1e-5 ? "ok" : "MISMATCH");
    fmt::print("next: `snr run prog.elf --chips N` runs your own program the same way\n");
  }
  return error < 1e-5 ? 0 : 1;
}

void setup_demo(CLI::App& app, snr::cli::CommandContext& ctx) {
  auto options = std::make_shared<DemoOptions>();
  auto* sub = app.add_subcommand("demo", "Run a built-in two-chip NPU program and show cycles and utilization");
  sub->add_option("--hw", options->hardware, "hardware preset or YAML file")->capture_default_str();
  sub->add_option("--chips", options->chips, "number of chips")->capture_default_str()->check(CLI::Range(1, 256));
  sub->add_flag("--json", options->json, "machine-readable summary");
  sub->callback([options, &ctx] { ctx.exit_code = run_demo(*options); });
}

}  // namespace

SNR_REGISTER_COMMAND(demo, setup_demo);
