// snr infra draw FILE -o out.svg — the graph drawn with Graphviz (devices
// clustered, link classes styled by bandwidth, large fabrics per tier).
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>

#include "cli/command.h"
#include "common/file_io.h"
#include "infra/draw.h"
#include "infra/load.h"

namespace {

struct DrawArgs {
  std::string input;
  std::string output;
  std::string level = "auto";
  std::string annotations;
};

void setup_infra_draw(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<DrawArgs>();
  auto* sub = parent.add_subcommand("draw", "Draw an InfraGraph description as SVG (Graphviz) or DOT");
  sub->add_option("file", args->input, "InfraGraph YAML or JSON")->required();
  sub->add_option("-o,--output", args->output, "output .svg (needs Graphviz 'dot') or .dot")->required();
  sub->add_option("--level", args->level, "auto, component, device or tier")->capture_default_str();
  sub->add_option("--annotations", args->annotations, "annotation file");
  snr::cli::set_examples(sub, {"snr infra draw ../shared/data/infragraph/examples/infragraph-gh-pages/closfabric.yaml -o clos.svg",
                               "snr infra draw clos.yaml --level tier -o clos.dot"});
  sub->callback([args, &ctx] {
    snr::infra::DrawOptions options;
    options.level = snr::infra::parse_draw_level(args->level);
    const auto loaded = snr::infra::load(args->input, args->annotations);
    const std::string dot = snr::infra::to_dot(loaded.graph, loaded.annotations, options);
    const bool as_dot = std::filesystem::path(args->output).extension() == ".dot";
    snr::write_file_atomic(args->output, as_dot ? dot : snr::infra::render_svg(dot));
    fmt::print("{}: {} level, {} nodes, {} edges\n", args->output,
               snr::infra::draw_level_name(snr::infra::resolve_draw_level(loaded.graph, options)),
               loaded.graph.node_count(), loaded.graph.edge_count());
    ctx.exit_code = 0;
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(infra, "InfraGraph infrastructure descriptions", draw, setup_infra_draw);
