// snr infra expand FILE [--json] [--list] — the fully qualified graph of an
// InfraGraph description; snr infra check FILE... — validate descriptions.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "common/error.h"
#include "infra/load.h"

namespace {

struct ExpandArgs {
  std::string input;
  std::string annotations;
  bool json = false;
  bool list = false;
};

void setup_infra_expand(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<ExpandArgs>();
  auto* sub = parent.add_subcommand("expand", "Expand an InfraGraph description into its fully qualified graph");
  sub->add_option("file", args->input, "InfraGraph YAML or JSON (Infrastructure or Device)")->required();
  sub->add_option("--annotations", args->annotations, "annotation file (nodes/links with attributes, e.g. rank)");
  sub->add_flag("--json", args->json, "print {\"nodes\": N, \"edges\": E, ...} as JSON");
  sub->add_flag("--list", args->list, "print every node (name, type, rank) and edge (a, b, link)");
  snr::cli::set_examples(sub, {"snr infra expand ../shared/data/infragraph/examples/infragraph-gh-pages/closfabric.yaml --json",
                               "snr infra expand clos.yaml --list"});
  sub->callback([args, &ctx] {
    const auto loaded = snr::infra::load(args->input, args->annotations);
    const auto& g = loaded.graph;
    if (args->json) {
      fmt::print("{}", snr::infra::summary_json(loaded));
    } else {
      fmt::print("{}: {} nodes, {} edges, {} device instances, {} ranks\n", args->input, g.node_count(), g.edge_count(),
                 g.device_instance_count(), loaded.annotations.ranked_nodes.size());
    }
    if (args->list) {
      for (snr::infra::NodeId n = 0; n < g.node_count(); ++n) {
        const int32_t rank = loaded.annotations.node_rank[n];
        fmt::print("node {} {}{}\n", g.node_name(n), g.node_type(n).name, rank >= 0 ? fmt::format(" rank={}", rank) : "");
      }
      for (const auto& e : g.edges()) {
        fmt::print("edge {} {} {}\n", g.node_name(e.a), g.node_name(e.b), g.links()[e.link].qualified_name());
      }
    }
    ctx.exit_code = 0;
  });
}

struct CheckArgs {
  std::vector<std::string> inputs;
};

void setup_infra_check(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<CheckArgs>();
  auto* sub = parent.add_subcommand("check", "Validate InfraGraph descriptions (schema, references, slices, counts)");
  sub->add_option("files", args->inputs, "InfraGraph YAML or JSON files")->required();
  snr::cli::set_examples(sub, {"snr infra check ../shared/data/infragraph/examples/infragraph-gh-pages/closfabric.yaml clos.yaml"});
  sub->callback([args, &ctx] {
    int failed = 0;
    for (const auto& input : args->inputs) {
      try {
        const auto loaded = snr::infra::load(input);
        const auto& g = loaded.graph;
        size_t isolated = 0;
        for (snr::infra::NodeId n = 0; n < g.node_count(); ++n) isolated += g.neighbours(n).empty() ? 1 : 0;
        fmt::print("{}: ok ({} nodes, {} edges{})\n", input, g.node_count(), g.edge_count(),
                   isolated > 0 ? fmt::format(", {} nodes without edges", isolated) : "");
      } catch (const snr::Error& e) {
        fmt::print(stderr, "{}\n", e.what());
        ++failed;
      }
    }
    ctx.exit_code = failed == 0 ? 0 : 1;
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(infra, "InfraGraph infrastructure descriptions", expand, setup_infra_expand);
SNR_REGISTER_SUBCOMMAND(infra, "InfraGraph infrastructure descriptions", check, setup_infra_check);
