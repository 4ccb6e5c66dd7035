// `snr et retarget PREFIX --npus M [--tp T --dp D --pp P] -o OUT`: a trace
// grown or shrunk from N to M ranks by the symmetry of its parallel groups
// (src/et/retarget/retarget.h, docs/et-retarget.md).
#include <fmt/format.h>

#include "cli/command.h"
#include "common/cli_numbers.h"
#include "common/output.h"
#include "dsim/workload/workload_options.h"
#include "et/retarget/retarget.h"

namespace {

struct RetargetArgs {
  std::string prefix;
  snr::et::RetargetOptions options;
  std::string output;
};

void setup_et_retarget(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<RetargetArgs>();
  auto* sub = parent.add_subcommand("retarget", "Grow or shrink a trace to M ranks by its parallel groups' symmetry");
  sub->add_option("prefix", args->prefix, "input trace prefix (PREFIX.<rank>.et)")->required();
  sub->add_option("--npus", args->options.npus, "ranks of the output, M")
      ->required()
      ->check(snr::cli::in_range(1, snr::limits::kMaxRanks));
  // 0 means "not given" inside; given, every count is at least 1.
  const auto ranks = snr::cli::in_range(1, snr::limits::kMaxRanks);
  sub->add_option("--tp", args->options.tp, "tensor-parallel group size (default: the input's)")->check(ranks);
  sub->add_option("--dp", args->options.dp, "data-parallel replicas (default: M / (tp x pp))")->check(ranks);
  sub->add_option("--input-tp", args->options.input_tp,
                  "tensor-parallel group size of the input (default: its consecutive-rank groups' size, else its "
                  "strided groups' stride, else all ranks); 1 reads a data-parallel job such as DDP")
      ->check(ranks);
  sub->add_option("--pp", args->options.pp, "pipeline stages: each runs the traced step and hands its activation on")
      ->capture_default_str()
      ->check(ranks);
  sub->add_option("--activation-bytes", args->options.activation_bytes,
                  "bytes a pipeline stage sends to the next (default: the last collective's output tensor)")
      ->transform(snr::cli::bytes_in_range(1, snr::dsim::kMaxMessageBytes));  // the largest message snr sim takes
  sub->add_option("-o,--output", args->output, "output trace prefix (OUT.<rank>.et)")->required();
  snr::cli::set_examples(sub, {"snr et retarget decode --npus 64 -o decode64",
                               "snr et retarget decode --npus 16 --tp 2 -o decode16",
                               "snr et retarget decode --npus 64 --tp 4 --pp 4 -o decode64-pp4",
                               "snr et retarget ddp8 --input-tp 1 --npus 512 -o ddp512"});
  sub->callback([args, &ctx] {
    snr::output::check_output_prefix(args->output);
    const auto s = snr::et::retarget_trace(args->prefix, args->options, args->output);
    const std::string stages = s.output.pp > 1 ? fmt::format(", pp {}", s.output.pp) : "";
    fmt::print("{}.<0..{}>.et: {} ranks (tp {}, dp {}{}) from {} ranks (tp {}, dp {}), {} nodes\n", args->output,
               s.output.ranks - 1, s.output.ranks, s.output.tp, s.output.dp, stages, s.input.ranks, s.input.tp,
               s.input.dp, s.nodes_written);
    if (!s.comm_groups.empty()) fmt::print("{}: communicator groups\n", s.comm_groups.string());
    ctx.exit_code = 0;
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(et, "Chakra execution-trace tools", retarget, setup_et_retarget);
