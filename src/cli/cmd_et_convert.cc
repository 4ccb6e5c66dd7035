// snr et convert TRACE.json[.gz] -o PREFIX [--rank R]
// snr et convert --from text WORKLOAD.txt -o PREFIX --npus N [--passes P]
// Writes Chakra traces PREFIX.<rank>.et.
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "common/error.h"
#include "common/cli_numbers.h"
#include "common/file_io.h"
#include "common/output.h"
#include "common/progress.h"
#include "et/convert/chakra_output.h"
#include "et/convert/process_groups.h"
#include "et/convert/pytorch_to_chakra.h"
#include "et/convert/text_workload.h"
#include "formats/chakra/rank_files.h"
#include "formats/pytorch/host_trace.h"

namespace {

struct ConvertArgs {
  std::string input;
  std::string output_prefix;
  std::string from = "pytorch";
  std::optional<uint32_t> rank;
  std::optional<uint32_t> npus;
  uint32_t passes = 1;
};

void print_counts(const snr::et_convert::ConvertedGraph& graph, const std::string& path) {
  fmt::print("{}: {} node(s)\n", path, graph.nodes.size());
}

// The job's process groups from the trace's own metadata, as the
// communicator-group file snr sim reads: PREFIX.comm_groups.json.
void write_process_groups(const snr::pytorch::HostTrace& trace, const std::string& prefix) {
  const auto derivation = snr::et_convert::derive_process_groups(trace);
  for (const auto& note : derivation.notes) fmt::print("process groups: {}\n", note);
  for (const auto& name : derivation.undescribed) {
    fmt::print("process groups: collectives name group '{}', which the trace does not describe\n", name);
  }
  if (derivation.groups.empty()) return;
  const std::string path = prefix + ".comm_groups.json";
  snr::write_file_atomic(path, snr::et_convert::comm_groups_json(derivation));
  std::string names;
  for (const auto& group : derivation.groups) {
    names += fmt::format("{}'{}' ({} rank{}{})", names.empty() ? "" : ", ", group.name, group.ranks.size(),
                         group.ranks.size() == 1 ? "" : "s", group.every_rank ? ", every rank" : "");
  }
  fmt::print("process groups: {} -> {} (snr sim --comm-group-configuration)\n", names, path);
}

void convert_pytorch(const ConvertArgs& args) {
  if (args.npus) throw snr::Error("--npus applies to --from text only");
  if (args.passes != 1) throw snr::Error("--passes applies to --from text only");
  snr::cli::check_input_file(args.input, snr::cli::InputKind::kPytorchTrace);
  snr::output::check_output_prefix(args.output_prefix);
  const auto trace = snr::pytorch::read_host_trace(args.input);
  if (!trace.skipped.empty()) {
    fmt::print("{}: {} bad record(s) skipped", args.input, trace.skipped.size());
    const auto& first = trace.skipped.front();
    fmt::print(" (first: record {}{}: {})\n", first.index,
               first.id.empty() ? "" : " id " + first.id, first.reason);
  }
  snr::et_convert::PytorchConvertOptions options;
  options.rank = args.rank;
  snr::et_convert::PytorchConvertStats stats;
  const auto graph = snr::et_convert::convert_pytorch_trace(trace, options, stats);
  const auto path = snr::et_convert::write_chakra_rank(args.output_prefix, graph, "snr et convert (pytorch)");
  fmt::print("{}", snr::et_convert::describe(stats));
  write_process_groups(trace, args.output_prefix);
  if (!trace.linked) fmt::print("note: host trace only (no device nodes); run snr et link first for GPU kernels\n");
  print_counts(graph, path.string());
}

void convert_text(const ConvertArgs& args) {
  if (args.rank) throw snr::Error("--rank applies to PyTorch traces; text workloads write every rank of --npus");
  if (!args.npus || *args.npus == 0) throw snr::Error("--from text needs --npus N (N >= 1)");
  if (args.passes == 0) throw snr::Error("--passes must be at least 1");
  snr::cli::check_input_file(args.input);
  snr::output::check_output_prefix(args.output_prefix);
  const auto workload = snr::et_convert::parse_text_workload(snr::read_file(args.input), args.input);
  // Every rank is written into a staging folder and moved into place at the
  // end: an interrupted or failed run leaves no rank files that would look
  // like a complete trace set.
  snr::output::StagedPrefix staged(args.output_prefix);
  snr::ProgressMeter progress("snr et convert", *args.npus, "ranks");
  std::vector<size_t> nodes;
  for (uint32_t rank = 0; rank < *args.npus; ++rank) {
    const auto graph = snr::et_convert::convert_text_workload(workload, rank, args.passes);
    snr::et_convert::write_chakra_rank(staged.staged_prefix(), graph, "snr et convert (text)");
    if (rank == 0) {
      // One rank's size, times the rank count, must fit the disk.
      uint64_t rank_bytes = 0;
      for (const auto& entry : std::filesystem::directory_iterator(staged.staging_directory())) {
        rank_bytes += entry.file_size();
      }
      snr::output::check_output_fits(args.output_prefix, rank_bytes * *args.npus, *args.npus,
                                     fmt::format("{} rank traces", *args.npus));
    }
    nodes.push_back(graph.nodes.size());
    progress.update(rank + 1);
  }
  staged.commit();
  progress.finish();
  constexpr size_t kListedRanks = 64;
  for (size_t rank = 0; rank < nodes.size() && rank < kListedRanks; ++rank) {
    fmt::print("{}: {} node(s)\n", snr::chakra::rank_trace_path(args.output_prefix, rank).string(), nodes[rank]);
  }
  if (nodes.size() > kListedRanks) fmt::print("... and {} more rank(s)\n", nodes.size() - kListedRanks);
}

void setup_et_convert(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<ConvertArgs>();
  auto* sub = parent.add_subcommand(
      "convert", "Convert a PyTorch execution trace (plain or linked) or an ASTRA-sim text workload "
                 "to Chakra PREFIX.<rank>.et");
  sub->add_option("input", args->input, "PyTorch execution trace / linked trace, or text workload")->required();
  sub->add_option("-o,--output", args->output_prefix, "output prefix: writes PREFIX.<rank>.et")->required();
  sub->add_option("--from", args->from, "input kind")->check(CLI::IsMember({"pytorch", "text"}));
  sub->add_option("--rank", args->rank, "rank of a PyTorch trace (default: the trace's rank, else 0)")
      ->check(snr::cli::in_range(0, snr::limits::kMaxRanks - 1));
  sub->add_option("--npus", args->npus, "text workloads: number of ranks to write")
      ->check(snr::cli::in_range(1, snr::limits::kMaxRanks));
  sub->add_option("--passes", args->passes, "text workloads: training passes (default 1)")
      ->check(snr::cli::in_range(1, snr::limits::kMaxLayers));
  snr::cli::set_examples(sub, {"snr et convert linked.json -o out/trace --rank 0",
                               "snr et convert --from text workload.txt -o out/wl --npus 8"});
  sub->callback([args, &ctx] {
    if (args->from == "text") {
      convert_text(*args);
    } else {
      convert_pytorch(*args);
    }
    ctx.exit_code = 0;
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(et, "Chakra execution-trace tools", convert, setup_et_convert);
