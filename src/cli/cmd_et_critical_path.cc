// `snr et critical-path INPUT`: the critical path of a job, attributed to
// compute / communication / host / idle per rank, with a Perfetto timeline
// that highlights it and a what-if re-simulation (src/et/critical_path,
// docs/critical-path.md). INPUT is a directory written by `snr sim -o`
// (re-simulated from its inputs.json), a trace prefix with the simulator's
// configurations (simulated), or a trace prefix alone whose nodes carry
// measured start times (a PyTorch job from `snr et convert`).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <memory>
#include <optional>

#include "cli/command.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/output.h"
#include "dsim/inputs_file.h"
#include "dsim/network/registry.h"
#include "dsim/simulator.h"
#include "et/critical_path/builders.h"
#include "et/critical_path/report.h"
#include "et/critical_path/timeline.h"

namespace {

namespace cp = snr::et::critical_path;

struct CriticalPathOptions {
  std::string input;
  snr::dsim::SimulationInputs sim;
  std::string backend{snr::dsim::kDefaultNetworkBackend};
  double what_if_compute = 1;
  double what_if_comm = 1;
  std::string perfetto;
  bool json = false;
  size_t top = 10;
};

struct Baseline {
  cp::TimedJob job;
  std::optional<snr::dsim::SimulationInputs> sim;  // how to re-simulate it
  uint64_t untimed_nodes = 0;
};

cp::TimedJob simulate(snr::dsim::SimulationInputs inputs) {
  inputs.record_details = true;
  return cp::from_simulation(snr::dsim::simulate_files(inputs));
}

Baseline load(const CriticalPathOptions& opts) {
  Baseline out;
  const std::filesystem::path input(opts.input);
  if (std::filesystem::is_directory(input)) {
    const auto inputs_file = input / snr::dsim::kInputsFileName;
    if (!std::filesystem::exists(inputs_file)) {
      throw snr::Error(fmt::format("{}: a directory, but not one written by `snr sim -o` ({} is missing)",
                                   input.string(), inputs_file.string()));
    }
    out.sim = snr::dsim::read_inputs_file(inputs_file);
  } else if (!opts.sim.system_configuration.empty() || !opts.sim.network_configuration.empty() ||
             !opts.sim.remote_memory_configuration.empty()) {
    if (opts.sim.system_configuration.empty() || opts.sim.network_configuration.empty() ||
        opts.sim.remote_memory_configuration.empty()) {
      throw snr::Error("simulating a trace needs --system-configuration, --network-configuration and "
                       "--remote-memory-configuration together");
    }
    out.sim = opts.sim;
    out.sim->workload_prefix = input;
    out.sim->backend = opts.backend;
  }
  if (out.sim) {
    out.job = simulate(*out.sim);
  } else {
    auto measured = cp::from_measured_trace(input);
    out.job = std::move(measured.job);
    out.untimed_nodes = measured.untimed_nodes;
  }
  return out;
}

void setup_critical_path(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto opts = std::make_shared<CriticalPathOptions>();
  auto* sub = parent.add_subcommand(
      "critical-path", "The critical path of a simulated or measured job, by category and rank, with a what-if");
  sub->add_option("input", opts->input,
                  "a directory written by snr sim -o, or a trace prefix (PREFIX.<rank>.et): simulated with the "
                  "configurations below, else read with its measured start times")
      ->required();
  sub->add_option("--system-configuration", opts->sim.system_configuration, "ASTRA-sim system JSON");
  sub->add_option("--network-configuration", opts->sim.network_configuration, "ASTRA-sim analytical network YAML");
  sub->add_option("--remote-memory-configuration", opts->sim.remote_memory_configuration,
                  "ASTRA-sim remote memory JSON");
  sub->add_option("--comm-group-configuration", opts->sim.comm_group_configuration, "communicator groups JSON");
  sub->add_option("--perturbation-configuration", opts->sim.perturbation_configuration,
                  "stragglers and heterogeneity JSON (docs/formats/perturbation.md)");
  sub->add_option("--network-backend", opts->backend,
                  fmt::format("network backend by name: {} (default {})",
                              fmt::join(snr::dsim::network_backend_names(), ", "), snr::dsim::kDefaultNetworkBackend));
  sub->add_option("--what-if-compute-scale", opts->what_if_compute,
                  "re-simulate with every compute node's time multiplied by this")
      ->check(snr::cli::in_real_range(0, 1e6));
  // A communication size needs a positive scale.
  sub->add_option("--what-if-comm-scale", opts->what_if_comm,
                  "re-simulate with every communication size multiplied by this")
      ->check(snr::cli::in_real_range(0, 1e6, true));
  sub->add_option("--perfetto", opts->perfetto, "write the timeline with the path highlighted (Chrome-trace JSON)");
  sub->add_option("--top", opts->top, "ops listed by their time on the path (default 10)")
      ->check(CLI::Range(size_t{0}, size_t{1000}));
  sub->add_flag("--json", opts->json, "print the report as JSON");
  snr::cli::set_examples(sub, {"snr et critical-path result/   # a directory written by snr sim -o",
                               "snr et critical-path result/ --what-if-compute-scale 0.5 --perfetto path.json",
                               "snr et critical-path ddp   # a converted PyTorch job: its measured times",
                               "snr et critical-path out/ar --system-configuration sys.json --network-configuration "
                               "net.yml --remote-memory-configuration mem.json"});
  sub->callback([opts, &ctx] {
    if (!opts->perfetto.empty()) snr::output::check_output_file(opts->perfetto);
    const bool what_if = opts->what_if_compute != 1 || opts->what_if_comm != 1;
    Baseline baseline = load(*opts);
    if (what_if && !baseline.sim) {
      throw snr::Error("a what-if re-simulates the job: give a directory written by snr sim -o, or the simulator's "
                       "configurations");
    }
    const cp::CriticalPath path = cp::find_critical_path(baseline.job);
    std::optional<cp::WhatIf> scenario;
    if (what_if) {
      snr::dsim::SimulationInputs inputs = *baseline.sim;
      inputs.scales.compute *= opts->what_if_compute;
      inputs.scales.comm *= opts->what_if_comm;
      snr::dsim::check_workload_scales(inputs.scales);
      scenario.emplace();
      scenario->compute_scale = opts->what_if_compute;
      scenario->comm_scale = opts->what_if_comm;
      scenario->job = simulate(inputs);
      scenario->path = cp::find_critical_path(scenario->job);
    }
    const cp::Report report{.job = &baseline.job,
                            .path = &path,
                            .what_if = scenario ? &*scenario : nullptr,
                            .top = opts->top};
    if (!opts->perfetto.empty()) cp::write_critical_path_timeline(baseline.job, path, opts->perfetto);
    if (opts->json) {
      auto json = cp::render_json(report);
      json["untimed_nodes"] = baseline.untimed_nodes;
      fmt::print("{}\n", json.dump(2));
    } else {
      fmt::print("{}", cp::render_text(report));
      if (baseline.untimed_nodes > 0) {
        fmt::print("note: {} node(s) without a measured start time were taken as instants\n",
                   baseline.untimed_nodes);
      }
      if (!opts->perfetto.empty()) fmt::print("timeline with the path: {}\n", opts->perfetto);
    }
    ctx.exit_code = 0;
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(et, "Chakra execution-trace tools", critical_path, setup_critical_path);
