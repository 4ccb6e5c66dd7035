// snr et validate PATH|PREFIX — checks one .et file or every <prefix>.<rank>.et.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/command.h"
#include "common/cli_numbers.h"
#include "et/tools/validate.h"
#include "formats/chakra/rank_files.h"

namespace {
struct ValidateArgs {
  std::string trace;
  size_t max_issues = 50;
};

void setup_et_validate(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<ValidateArgs>();
  auto* sub = parent.add_subcommand(
      "validate", "Check a Chakra trace (file or <prefix> of <prefix>.<rank>.et): framing, schema, ids, "
                  "dependencies (self, duplicate, dangling, cycles), comm attributes");
  sub->add_option("trace", args->trace, "a .et file, or the prefix of <prefix>.<rank>.et files")->required();
  sub->add_option("--max-issues", args->max_issues, "how many errors/warnings to list")
      ->capture_default_str()
      ->check(snr::cli::in_range(0, snr::limits::kMaxListed));
  snr::cli::set_examples(sub, {"snr et validate out/ar", "snr et validate out/ar.0.et --max-issues 10"});
  sub->callback([args, &ctx] {
    auto files = snr::chakra::resolve_trace_argument(args->trace);
    for (const auto& file : files) snr::cli::check_input_file(file.path.string(), snr::cli::InputKind::kChakraTrace);
    snr::et::ValidateOptions options;
    options.max_listed_issues = args->max_issues;
    auto report = snr::et::validate_traces(files, options);
    fmt::print("{}", snr::et::format_validation_report(report));
    ctx.exit_code = report.errors == 0 ? 0 : 1;
  });
}
}  // namespace

SNR_REGISTER_SUBCOMMAND(et, "Chakra execution-trace tools", validate, setup_et_validate);
