// snr pathfind generate [--tech T] [--arch A] [--budget B] [--json] [-o device.yaml]
// The micro-architecture generator (seed 004 §4): technology library,
// architecture template and budgets -> MCUs, clock, memory capacities and
// bandwidths, network bandwidth, each with the budget that bound it. The
// device it writes is what `pathfind gemm/train/predict --hw` read.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/command.h"
#include "cli/pathfind_generated_report.h"
#include "common/file_io.h"
#include "common/output.h"
#include "pathfind/age/builtin_inputs.h"
#include "pathfind/age/generate.h"
#include "pathfind/inputs/device_writer.h"

namespace {

struct GenerateArgs {
  std::string tech = "n7";
  std::string arch = "gpu-16x16";
  std::string budget = "a100-like";
  std::string output;
  std::string print_input;
  bool json = false;
};

void run_generate(const GenerateArgs& a) {
  using namespace snr::pathfind::age;
  if (!a.print_input.empty()) {
    fmt::print("{}", builtin_input_yaml(a.print_input));
    return;
  }
  if (!a.output.empty()) {
    snr::output::check_output_file(a.output);
    for (const std::string* input : {&a.tech, &a.arch, &a.budget}) {
      snr::output::check_output_is_not_input(a.output, *input, "-o");
    }
  }
  GeneratedArchitecture g =
      generate_architecture(load_technology(a.tech), load_template(a.arch), load_budget(a.budget));
  if (!a.output.empty()) snr::write_file_atomic(a.output, snr::pathfind::format_device_yaml(g.device));
  if (a.json) {
    nlohmann::ordered_json j;
    j["device"] = g.device.name;
    j["peak_flops_per_s"] = g.peak_flops_per_s;
    j["frequency_hz"] = g.device.frequency_hz;
    j["bundles"] = g.device.bundles;
    j["mcus"] = g.device.mcu_count();
    nlohmann::ordered_json components = nlohmann::ordered_json::array();
    for (const auto& c : g.components) components.push_back(snr::cli::component_json(c));
    j["components"] = components;
    fmt::print("{}\n", j.dump());
    return;
  }
  snr::cli::print_generated(g);
  if (!a.output.empty()) fmt::print("device written to {}\n", a.output);
}

void setup_pathfind_generate(CLI::App& parent, snr::cli::CommandContext& /*ctx*/) {
  auto args = std::make_shared<GenerateArgs>();
  auto* sub = parent.add_subcommand(
      "generate", "Generate a device from a technology library, an architecture template and budgets (AGE)");
  sub->add_option("--tech", args->tech, "technology library: built-in name (n7) or YAML file")->capture_default_str();
  sub->add_option("--arch", args->arch, "architecture template: built-in name (gpu-16x16) or YAML file")
      ->capture_default_str();
  sub->add_option("--budget", args->budget, "area/power/perimeter budgets: built-in name (a100-like) or YAML file")
      ->capture_default_str();
  sub->add_option("-o,--output", args->output, "write the generated device as YAML (readable by --hw)");
  sub->add_option("--print-input", args->print_input, "print a built-in library, template or budget as YAML and exit");
  sub->add_flag("--json", args->json, "print one JSON object (device, peak_flops_per_s, components with bounds)");
  snr::cli::set_examples(sub, {"snr pathfind generate", "snr pathfind generate --print-input a100-like > budget.yaml",
                               "snr pathfind generate --budget budget.yaml -o chip.yaml && "
                               "snr pathfind gemm 8192 8192 8192 --hw chip.yaml"});
  sub->callback([args] { run_generate(*args); });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(pathfind, "Cross-stack performance model: kernels, training iterations, generated hardware",
                        generate, setup_pathfind_generate);
