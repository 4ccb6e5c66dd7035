// snr et unjsonize x.json -o x.et — the reverse of `snr et jsonize`.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/command.h"
#include "common/output.h"
#include "et/tools/jsonize.h"

namespace {
struct UnjsonizeArgs {
  std::string input;
  std::string output;
  bool gzip = false;
};

void setup_et_unjsonize(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<UnjsonizeArgs>();
  auto* sub = parent.add_subcommand("unjsonize", "Write a JSON trace (from snr et jsonize) back as a Chakra .et");
  sub->add_option("json", args->input, "input .json file")->required();
  sub->add_option("-o,--output", args->output, "output .et file")->required();
  sub->add_flag("--gzip", args->gzip, "gzip-compress the output");
  snr::cli::set_examples(sub, {"snr et unjsonize trace.0.json -o trace.0.et", "snr et unjsonize t.json -o t.et --gzip"});
  sub->callback([args, &ctx] {
    snr::cli::check_input_file(args->input);
    snr::output::check_output_file(args->output);
    snr::output::check_output_is_not_input(args->output, args->input);
    snr::chakra::EtWriteOptions options;
    options.gzip = args->gzip;
    auto summary = snr::et::unjsonize_trace(args->input, args->output, options);
    fmt::print("{}: {} node(s)\n", args->output, summary.nodes);
    ctx.exit_code = 0;
  });
}
}  // namespace

SNR_REGISTER_SUBCOMMAND(et, "Chakra execution-trace tools", unjsonize, setup_et_unjsonize);
