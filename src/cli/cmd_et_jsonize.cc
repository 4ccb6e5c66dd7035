// snr et jsonize x.et -o x.json — protobuf canonical JSON of a trace.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/command.h"
#include "common/output.h"
#include "et/tools/jsonize.h"

namespace {
struct JsonizeArgs {
  std::string input;
  std::string output;
  bool lenient = false;
};

void setup_et_jsonize(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<JsonizeArgs>();
  auto* sub = parent.add_subcommand("jsonize", "Write a Chakra .et trace as JSON (reverse: snr et unjsonize)");
  sub->add_option("trace", args->input, "input .et file (plain or gzip)")->required();
  sub->add_option("-o,--output", args->output, "output .json file")->required();
  sub->add_flag("--lenient", args->lenient, "skip records that do not parse (counted) instead of failing");
  snr::cli::set_examples(sub, {"snr et jsonize trace.0.et -o trace.0.json"});
  sub->callback([args, &ctx] {
    snr::cli::check_input_file(args->input, snr::cli::InputKind::kChakraTrace);
    snr::output::check_output_file(args->output);
    snr::output::check_output_is_not_input(args->output, args->input);
    auto summary = snr::et::jsonize_trace(args->input, args->output, args->lenient);
    fmt::print("{}: {} node(s)", args->output, summary.nodes);
    if (summary.skipped_records > 0) fmt::print(", {} bad record(s) skipped", summary.skipped_records);
    fmt::print("\n");
    ctx.exit_code = 0;
  });
}
}  // namespace

SNR_REGISTER_SUBCOMMAND(et, "Chakra execution-trace tools", jsonize, setup_et_jsonize);
