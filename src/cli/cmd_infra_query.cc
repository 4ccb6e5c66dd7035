// snr infra query FILE [--path A B] [--neighbours N] [--hops] [--bisection]
// — graph queries as one JSON object.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command.h"
#include "common/error.h"
#include "infra/load.h"
#include "infra/queries.h"

namespace {

struct QueryArgs {
  std::string input;
  std::string annotations;
  std::vector<std::string> path;
  std::vector<std::string> neighbours;
  bool hops = false;
  bool bisection = false;
};

snr::infra::NodeId node_or_throw(const snr::infra::Graph& g, const std::string& name) {
  auto n = g.find_node(name);
  if (!n) throw snr::Error(fmt::format("'{}' is not a node of the graph (names are <instance>.<i>.<component>.<j>)", name));
  return *n;
}

void setup_infra_query(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<QueryArgs>();
  auto* sub = parent.add_subcommand("query", "Query the fully qualified graph (paths, neighbours, hops, bisection); JSON");
  sub->add_option("file", args->input, "InfraGraph YAML or JSON")->required();
  sub->add_option("--annotations", args->annotations, "annotation file (rank attributes choose the endpoints)");
  sub->add_option("--path", args->path, "shortest path between two nodes")->expected(2);
  sub->add_option("--neighbours", args->neighbours, "the neighbours of these nodes and the links to them");
  sub->add_flag("--hops", args->hops, "histogram of hop counts between all pairs of ranked endpoints");
  sub->add_flag("--bisection", args->bisection, "bisection bandwidth between the first and second half of the ranks");
  snr::cli::set_examples(sub, {"snr infra query clos.yaml --hops",
                               "snr infra query clos.yaml --bisection"});
  sub->callback([args, &ctx] {
    const auto loaded = snr::infra::load(args->input, args->annotations);
    const auto& g = loaded.graph;
    nlohmann::ordered_json out;
    out["nodes"] = g.node_count();
    out["edges"] = g.edge_count();
    out["ranks"] = loaded.annotations.ranked_nodes.size();
    if (!args->path.empty()) {
      const auto p = snr::infra::shortest_path(g, node_or_throw(g, args->path[0]), node_or_throw(g, args->path[1]));
      auto& j = out["path"];
      j["from"] = args->path[0];
      j["to"] = args->path[1];
      j["hops"] = p.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.size() - 1);
      j["nodes"] = nlohmann::ordered_json::array();
      for (auto n : p) j["nodes"].push_back(g.node_name(n));
    }
    if (!args->neighbours.empty()) {
      auto& j = out["neighbours"];
      for (const auto& name : args->neighbours) {
        auto& list = j[name] = nlohmann::ordered_json::array();
        for (const auto& adj : g.neighbours(node_or_throw(g, name))) {
          list.push_back({{"node", g.node_name(adj.node)},
                          {"link", g.links()[g.edges()[adj.edge].link].qualified_name()}});
        }
      }
    }
    if (args->hops) {
      const auto h = snr::infra::hop_histogram(g, loaded.annotations.ranked_nodes);
      auto& j = out["hops"];
      j["pairs_by_hops"] = nlohmann::ordered_json::object();
      for (const auto& [hops, count] : h.pairs_by_hops) j["pairs_by_hops"][std::to_string(hops)] = count;
      j["unreachable_pairs"] = h.unreachable_pairs;
    }
    if (args->bisection) {
      const auto b = snr::infra::bisection_bandwidth(g, loaded.annotations.ranked_nodes);
      auto& j = out["bisection"];
      j["endpoints_per_half"] = b.endpoints_per_half;
      j["bits_per_s"] = b.bits_per_s;
      j["unbounded"] = b.unbounded;
    }
    fmt::print("{}\n", out.dump(2));
    ctx.exit_code = 0;
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(infra, "InfraGraph infrastructure descriptions", query, setup_infra_query);
