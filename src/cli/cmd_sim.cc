// `snr sim`: the distributed simulator, with ASTRA-sim's option names. Every
// option ASTRA-sim 2.x's analytical frontends read is accepted; the ones
// snr does not model refuse a value other than ASTRA-sim's default with the
// reason (docs/simulator-distributed.md, "ASTRA-sim options").
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
#include "dsim/network/ns3/astra_sim_ns3_input.h"
#include "dsim/network/registry.h"
#include "dsim/simulator.h"
#include "dsim/system/load_store/load_store_collective.h"
#include "infra/load.h"
#include "infra/translate/translator.h"

namespace {

// The load-store collective algorithm lives outside snr_dsim (it needs the
// GPU model); every verb that reads a system configuration (sim, et
// timeline, et critical-path) runs in this binary, so registering it once
// at start-up makes its name and keys known to all of them.
[[maybe_unused]] const bool kLoadStoreRegistered = [] {
  snr::dsim::load_store::register_load_store_algorithm();
  return true;
}();

struct SimOptions {
  snr::dsim::SimulationInputs inputs;
  std::string backend{snr::dsim::kDefaultNetworkBackend};
  std::string comm_groups;
  std::string output_dir;
  std::string dangling = "error";
  int num_queues_per_dim = 1;
  bool rendezvous_protocol = false;
  std::string logging_configuration = "empty";
  std::string logging_folder = "log";
  std::string infragraph;
  std::string infragraph_annotations;
  std::string logical_topology;
};

void add_sim_options(CLI::App* sub, SimOptions& opts) {
  sub->add_option("--workload-configuration", opts.inputs.workload_prefix,
                  "Chakra trace prefix: files <prefix>.<rank>.et, one per NPU")->required();
  sub->add_option("--system-configuration", opts.inputs.system_configuration, "ASTRA-sim system JSON")->required();
  auto* network = sub->add_option("--network-configuration", opts.inputs.network_configuration,
                                  "ASTRA-sim analytical network YAML, a backend's own configuration, or "
                                  "ASTRA-sim's ns-3 config.txt with --network-backend ns3 (or --infragraph)");
  auto* infragraph = sub->add_option("--infragraph", opts.infragraph,
                                     "InfraGraph description (YAML or JSON) translated for the network backend "
                                     "instead of --network-configuration (docs/infragraph.md)");
  sub->add_option("--infragraph-annotations", opts.infragraph_annotations,
                  "ranks, roles and switch tiers for --infragraph (docs/infragraph.md)")
      ->needs(infragraph);
  network->excludes(infragraph);
  sub->add_option("--logical-topology-configuration", opts.logical_topology,
                  "ASTRA-sim's ns-3 frontend: the logical dimensions JSON ({\"logical-dims\": [\"8\", \"2\"]}) for "
                  "ASTRA-sim's ns-3 network configuration (docs/simulator-distributed.md)")
      ->excludes(infragraph);
  sub->add_option("--remote-memory-configuration", opts.inputs.remote_memory_configuration,
                  "ASTRA-sim remote memory JSON")->required();
  sub->add_option("--comm-group-configuration", opts.comm_groups,
                  "communicator groups JSON (pg_name -> NPU list); 'empty' (ASTRA-sim's default) means none");
  sub->add_option("--perturbation-configuration", opts.inputs.perturbation_configuration,
                  "stragglers and heterogeneity JSON: per-NPU compute slow-down, per-link, per-NPU and "
                  "per-dimension bandwidth factors (docs/formats/perturbation.md)");
  sub->add_option("--network-backend", opts.backend,
                  fmt::format("network backend by name: {} (default {})",
                              fmt::join(snr::dsim::network_backend_names(), ", "), snr::dsim::kDefaultNetworkBackend));
  sub->add_option("--dangling-dependencies", opts.dangling,
                  "a dependency on a node that is not in its trace: 'error' (default) or 'ignore' (dropped, counted "
                  "in summary.json and on stderr)")
      ->check(CLI::IsMember({"error", "ignore"}));
  // ASTRA-sim's remaining options (analytical frontends, 2.x).
  sub->add_option("--compute-scale", opts.inputs.scales.compute,
                  "multiplies every compute node's duration (default 1)")
      ->check(snr::cli::in_real_range(0, snr::dsim::kMaxScale));
  sub->add_option("--comm-scale", opts.inputs.scales.comm, "multiplies every communication size (default 1)")
      ->check(snr::cli::in_real_range(1e-9, snr::dsim::kMaxScale));
  sub->add_option("--injection-scale", opts.inputs.injection_scale,
                  "multiplies the system configuration's endpoint-delay, as ASTRA-sim does (default 1)")
      ->check(snr::cli::in_real_range(0, 1e6));
  sub->add_option("--num-queues-per-dim", opts.num_queues_per_dim,
                  "collective queues per dimension; only ASTRA-sim's default 1 is modelled")
      ->check(CLI::Range(1, 1 << 16));
  sub->add_flag("--rendezvous-protocol", opts.rendezvous_protocol,
                "rendezvous handshake before each send; only ASTRA-sim's default false is modelled");
  sub->add_option("--logging-configuration", opts.logging_configuration,
                  "ASTRA-sim's spdlog configuration; accepted and checked, not applied (snr's results are the stdout "
                  "lines and -o)");
  sub->add_option("--logging-folder", opts.logging_folder,
                  "ASTRA-sim's log folder; snr writes no log files (results go to -o)");
}

// The ASTRA-sim options snr does not model: ASTRA-sim's default is
// accepted, anything else is refused with the reason.
void check_astra_sim_options(const SimOptions& opts) {
  if (opts.num_queues_per_dim != 1) {
    throw snr::Error(fmt::format(
        "--num-queues-per-dim {}: not modelled by snr (ASTRA-sim spreads a dimension's chunks over several "
        "queues; snr runs one queue per dimension, ASTRA-sim's default 1)",
        opts.num_queues_per_dim));
  }
  if (opts.rendezvous_protocol) {
    throw snr::Error(
        "--rendezvous-protocol: not modelled by snr (ASTRA-sim then makes each send wait for a handshake with its "
        "receive; snr sends eagerly, ASTRA-sim's default false)");
  }
  if (opts.logging_configuration != "empty") {
    snr::cli::check_input_file(opts.logging_configuration);
    fmt::print(stderr,
               "snr: note: --logging-configuration {} is accepted for compatibility and not applied: snr prints "
               "ASTRA-sim's per-NPU lines on stdout and writes its results with -o\n",
               opts.logging_configuration);
  }
}

// The run, with the network either read from its file or translated from
// another description (InfraGraph, ASTRA-sim's ns-3 inputs) that `source`
// names; the backend's reader parses either.
snr::dsim::SimulationResult simulate(const snr::dsim::SimulationInputs& inputs,
                                     const std::optional<snr::infra::SimNetworkTranslation>& translation,
                                     const std::string& source) {
  if (!translation) return snr::dsim::simulate_files(inputs);
  snr::dsim::ConfigText network{translation->network_text,
                                fmt::format("{} (translated by '{}')", source, translation->translator),
                                std::filesystem::path(source).parent_path()};
  return snr::dsim::simulate_documents(inputs, snr::dsim::read_simulation_documents(inputs, std::move(network)));
}

// ASTRA-sim's ns-3 frontend takes its fork's config.txt (which names the
// topology file) and the logical dimensions: read into snr's ns-3
// configuration, written as network.ns3.yaml beside the results. nullopt
// when the network file is not that format (and no logical topology was
// given).
std::optional<snr::infra::SimNetworkTranslation> translate_astra_sim_ns3(const SimOptions& opts) {
  const std::filesystem::path& path = opts.inputs.network_configuration;
  const std::string text = snr::read_file(path);
  if (!snr::dsim::is_astra_sim_ns3_config(text)) {
    if (!opts.logical_topology.empty()) {
      throw snr::Error(fmt::format(
          "--logical-topology-configuration goes with ASTRA-sim's ns-3 network configuration (\"KEY value\" lines "
          "naming TOPOLOGY_FILE); {} is not one (snr's own ns-3 configuration takes logical_dims)",
          path.string()));
    }
    return std::nullopt;
  }
  if (opts.backend != "ns3") {
    throw snr::Error(fmt::format("{} is ASTRA-sim's ns-3 network configuration: run it with --network-backend ns3",
                                 path.string()));
  }
  std::vector<uint32_t> dims;
  if (!opts.logical_topology.empty()) {
    dims = snr::dsim::parse_astra_sim_logical_dims(snr::read_file(opts.logical_topology), opts.logical_topology);
  }
  const auto input = snr::dsim::read_astra_sim_ns3_input(text, path, dims);
  for (const std::string& note : input.notes) fmt::print(stderr, "snr: note: {}\n", note);
  snr::infra::SimNetworkTranslation translation;
  translation.translator = "astra-sim-ns3";
  translation.network_file = "network.ns3.yaml";
  translation.network_text = snr::dsim::ns3_network_yaml(
      input.config, fmt::format("Read from ASTRA-sim's ns-3 inputs: {} (topology {}){}", path.string(),
                                input.topology_file.string(),
                                opts.logical_topology.empty() ? std::string()
                                                              : fmt::format(", logical topology {}",
                                                                            opts.logical_topology)));
  translation.files.push_back({translation.network_file, translation.network_text});
  return translation;
}

void setup_sim(CLI::App& app, snr::cli::CommandContext& /*ctx*/) {
  auto opts = std::make_shared<SimOptions>();
  auto* sub = app.add_subcommand("sim", "Simulate Chakra traces on N NPUs (ASTRA-sim compatible)");
  add_sim_options(sub, *opts);
  sub->add_option("-o,--output", opts->output_dir,
                  "directory for npus.json/csv, links.csv, summary.json, timeline.json and inputs.json (what was "
                  "simulated, for snr et critical-path DIR)");
  snr::cli::set_examples(sub, {"snr sim --workload-configuration out/ar --system-configuration sys.json "
                               "--network-configuration net.yml --remote-memory-configuration mem.json -o result/",
                               "snr sim --workload-configuration=feeder/chakra --system-configuration=sys.json "
                               "--network-configuration=one_npu.yml --remote-memory-configuration=mem.json "
                               "--comm-group-configuration=empty --dangling-dependencies=ignore",
                               "snr sim --workload-configuration out/ar --system-configuration sys.json --infragraph "
                               "clos.yaml --remote-memory-configuration mem.json -o result/"});
  sub->callback([opts] {
    if (!opts->output_dir.empty()) snr::output::check_output_directory(opts->output_dir);
    check_astra_sim_options(*opts);
    // ASTRA-sim's default value of the option is the word "empty": no groups.
    opts->inputs.comm_group_configuration = opts->comm_groups == "empty" ? std::string() : opts->comm_groups;
    opts->inputs.dangling_dependencies = snr::dsim::parse_dangling_dependencies(opts->dangling);
    opts->inputs.backend = opts->backend;
    opts->inputs.record_details = !opts->output_dir.empty();
    if (opts->infragraph.empty() && opts->inputs.network_configuration.empty()) {
      throw snr::Error("sim: give the network as --network-configuration FILE or --infragraph FILE");
    }
    std::optional<snr::infra::SimNetworkTranslation> translation;
    std::string translated_from;
    snr::dsim::find_network_backend(opts->inputs.backend);  // a bad name before any description is read
    if (opts->infragraph.empty()) {
      translation = translate_astra_sim_ns3(*opts);
      translated_from = opts->inputs.network_configuration.string();
    } else {
      const auto loaded = snr::infra::load(opts->infragraph, opts->infragraph_annotations);
      translation = snr::infra::translate_for_sim_backend(loaded.graph, loaded.annotations, opts->inputs.backend);
      translated_from = opts->infragraph;
    }
    // inputs.json names the translated file written beside the results, so
    // a re-run (snr et critical-path DIR) reads the same network.
    if (translation && !opts->output_dir.empty()) {
      opts->inputs.network_configuration =
          std::filesystem::absolute(std::filesystem::path(opts->output_dir) / translation->network_file);
    }
    const auto result = simulate(opts->inputs, translation, translated_from);
    fmt::print("{}", snr::dsim::astra_summary_lines(result));
    for (const std::string& note : result.notes) fmt::print(stderr, "snr: note: {}\n", note);
    if (const auto traces = snr::dsim::write_memory_traces(result); !traces.empty()) {
      fmt::print(stderr, "snr: memory traces (track-local-mem): {} .. {}\n", traces.front().string(),
                 traces.back().string());
    }
    if (result.dangling_dependencies_dropped > 0) {
      fmt::print(stderr, "snr: warning: {} dependencies on nodes not in their trace were dropped "
                         "(--dangling-dependencies=ignore)\n",
                 result.dangling_dependencies_dropped);
    }
    if (!opts->output_dir.empty()) {
      // All or nothing: the files appear together, or not at all.
      snr::output::StagedDirectory staged(opts->output_dir);
      snr::dsim::write_result_files(result, staged.path());
      if (translation) {
        for (const auto& file : translation->files) snr::write_file_atomic(staged.path() / file.name, file.content);
      }
      snr::dsim::write_timeline(result, staged.path() / "timeline.json");
      snr::write_file_atomic(staged.path() / snr::dsim::kInputsFileName, snr::dsim::inputs_json(opts->inputs));
      staged.commit();
    }
  });
}

}  // namespace

SNR_REGISTER_COMMAND(sim, setup_sim);
