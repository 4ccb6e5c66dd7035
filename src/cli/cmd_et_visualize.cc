// snr et visualize x.et -o out.{dot,svg,pdf} — dependency graph via Graphviz.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/command.h"
#include "common/output.h"
#include "et/tools/visualize.h"

namespace {
struct VisualizeArgs {
  std::string input;
  std::string output;
  uint64_t max_nodes = 2000;
};

void setup_et_visualize(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<VisualizeArgs>();
  auto* sub = parent.add_subcommand(
      "visualize", "Draw a trace's dependency graph (data deps solid, control deps dashed) as .dot, .svg or .pdf");
  sub->add_option("trace", args->input, "input .et file")->required();
  sub->add_option("-o,--output", args->output, "output file; format from the extension (.dot, .svg, .pdf)")
      ->required();
  sub->add_option("--max-nodes", args->max_nodes, "refuse traces with more nodes than this")
      ->capture_default_str()
      ->check(snr::cli::in_range(1, 1'000'000));
  snr::cli::set_examples(sub, {"snr et visualize trace.0.et -o trace.0.svg", "snr et visualize trace.0.et -o g.dot"});
  sub->callback([args, &ctx] {
    snr::cli::check_input_file(args->input, snr::cli::InputKind::kChakraTrace);
    snr::output::check_output_file(args->output);
    snr::output::check_output_is_not_input(args->output, args->input);
    snr::et::VisualizeOptions options;
    options.max_nodes = args->max_nodes;
    uint64_t drawn = snr::et::visualize_trace(args->input, args->output, options);
    fmt::print("{}: {} node(s)\n", args->output, drawn);
    ctx.exit_code = 0;
  });
}
}  // namespace

SNR_REGISTER_SUBCOMMAND(et, "Chakra execution-trace tools", visualize, setup_et_visualize);
