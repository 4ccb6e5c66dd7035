// snr et generate --pattern P --npus N -o PREFIX — ready-made multi-rank
// Chakra traces (collective microbenchmarks, dp / tp / pp / hybrid).
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli/command.h"
#include "common/cli_numbers.h"
#include "common/error.h"
#include "common/output.h"
#include "common/units.h"
#include "et/generate/patterns.h"
#include "et/generate/workload_check.h"

namespace {

struct GenerateArgs {
  snr::et::PatternOptions options;
  std::string size = "1MiB";
  std::string output;
  bool list = false;
};

void setup_et_generate(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<GenerateArgs>();
  std::string patterns;
  for (const auto& [name, description] : snr::et::pattern_catalog()) {
    patterns += fmt::format("\n  {:<14} {}", name, description);
  }
  auto* sub = parent.add_subcommand("generate", "Generate multi-rank test traces: " + patterns);
  sub->add_option("--pattern", args->options.pattern, "workload pattern (see above)");
  sub->add_option("--npus", args->options.npus, "number of ranks")
      ->capture_default_str()
      ->check(snr::cli::in_range(1, snr::limits::kMaxRanks));
  sub->add_option("--layers", args->options.layers, "model layers (microbenchmarks: repetitions)")
      ->capture_default_str()
      ->check(snr::cli::in_range(1, snr::limits::kMaxLayers));
  sub->add_option("--size", args->size, "bytes per layer / collective, e.g. 1MiB, 65536")->capture_default_str();
  sub->add_option("--tp-size", args->options.tp_size, "hybrid: ranks per tensor-parallel group")
      ->capture_default_str()
      ->check(snr::cli::in_range(1, snr::limits::kMaxRanks));
  sub->add_option("--microbatches", args->options.microbatches, "pp: micro-batches per step")
      ->capture_default_str()
      ->check(snr::cli::in_range(1, snr::limits::kMaxMicrobatches));
  sub->add_option("--compute-us", args->options.compute_micros, "forward compute time of one layer, microseconds")
      ->capture_default_str()
      ->check(snr::cli::in_range(0, snr::limits::kMaxComputeMicros));
  sub->add_option("-o,--output", args->output, "output prefix: writes <prefix>.<rank>.et");
  sub->add_flag("--list", args->list, "list the patterns and exit");
  snr::cli::set_examples(sub, {"snr et generate --pattern allreduce --npus 8 -o out/ar", "snr et generate --list"});
  sub->callback([args, &ctx] {
    if (args->list) {
      for (const auto& [name, description] : snr::et::pattern_catalog()) fmt::print("{:<14} {}\n", name, description);
      return;
    }
    if (args->options.pattern.empty() || args->output.empty()) {
      throw snr::Error("snr et generate needs --pattern and -o/--output (see --list)");
    }
    args->options.size_bytes =
        snr::with_error_context("--size", [&] { return snr::parse_bytes(args->size).value().count; });
    snr::output::check_output_prefix(args->output);
    // The workload is built in memory before it is written: refuse shapes
    // whose node count alone would exhaust memory (~200 bytes per node).
    constexpr uint64_t kMaxNodes = 1ull << 27;
    const uint64_t nodes_estimate = static_cast<uint64_t>(args->options.npus) * args->options.layers *
                                    (4 + 2 * static_cast<uint64_t>(args->options.microbatches));
    if (nodes_estimate > kMaxNodes) {
      throw snr::Error(fmt::format("--npus {} x --layers {} x --microbatches {}: about {} nodes ({:.1f} GB in "
                                   "memory), more than the {} this generator builds; use fewer ranks or layers",
                                   args->options.npus, args->options.layers, args->options.microbatches,
                                   nodes_estimate, static_cast<double>(nodes_estimate) * 200 / 1e9, kMaxNodes));
    }
    const snr::et::Workload workload = snr::et::generate_pattern(args->options);
    // Generated traces must replay; a failure here is a generator bug.
    const snr::et::WorkloadCheck check = snr::et::check_workload(workload);
    if (!check.ok()) throw snr::Error("generated workload fails the cross-rank check:\n" + check.summary());
    snr::et::write_workload(workload, args->output);
    fmt::print("wrote {} rank traces {}.<0..{}>.et{}: {}\n", workload.ranks.size(), args->output,
               workload.ranks.size() - 1, workload.groups.size() > 1 ? " and " + snr::et::comm_groups_path(args->output).string() : "",
               check.summary());
    ctx.exit_code = 0;
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(et, "Chakra execution-trace tools", generate, setup_et_generate);
