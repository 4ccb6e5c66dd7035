// snr et convert TRACE.json[.gz] -o PREFIX [--rank R]
// snr et convert RANK0.json RANK1.json ... -o PREFIX   (one trace per rank of a job)
// snr et convert --from text WORKLOAD.txt -o PREFIX --npus N [--passes P]
// Writes Chakra traces PREFIX.<rank>.et.
#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "common/error.h"
#include "common/cli_numbers.h"
#include "common/file_io.h"
#include "common/output.h"
#include "common/parallel.h"
#include "common/progress.h"
#include "et/convert/chakra_output.h"
#include "et/convert/job_process_groups.h"
#include "et/convert/pytorch_to_chakra.h"
#include "et/convert/text_workload.h"
#include "formats/chakra/rank_files.h"
#include "formats/pytorch/host_trace.h"

namespace {

struct ConvertArgs {
  std::vector<std::string> inputs;
  std::string output_prefix;
  std::string from = "pytorch";
  std::optional<uint32_t> rank;
  std::optional<uint32_t> npus;
  uint32_t passes = 1;
  uint32_t jobs = 0;  // 0: one per hardware thread
};

void print_counts(const snr::et_convert::ConvertedGraph& graph, const std::string& path) {
  fmt::print("{}: {} node(s)\n", path, graph.nodes.size());
}

void print_skipped(const std::string& input, const snr::pytorch::HostTrace& trace) {
  if (trace.skipped.empty()) return;
  fmt::print("{}: {} bad record(s) skipped", input, trace.skipped.size());
  const auto& first = trace.skipped.front();
  fmt::print(" (first: record {}{}: {})\n", first.index, first.id.empty() ? "" : " id " + first.id, first.reason);
}

// The job's process groups, across its ranks, into every rank's trace (a
// METADATA node snr sim reads) and PREFIX.comm_groups.json.
// `world_size`: the job's ranks (0: one trace of a larger job, sized by what
// it names).
void write_process_groups(std::vector<snr::et_convert::JobRank>& ranks, int64_t world_size,
                          const std::string& prefix) {
  const auto groups = snr::et_convert::unify_process_groups(ranks, world_size);
  for (const auto& note : groups.notes) fmt::print("process groups: {}\n", note);
  if (groups.groups.empty()) return;
  const std::string path = prefix + ".comm_groups.json";
  snr::write_file_atomic(path, snr::et_convert::job_comm_groups_json(groups));
  std::string names;
  for (const auto& group : groups.groups) {
    names += fmt::format("{}'{}' ({} rank{}, {})", names.empty() ? "" : ", ", group.name, group.ranks.size(),
                         group.ranks.size() == 1 ? "" : "s", group.source);
  }
  fmt::print("process groups: {} -> each rank's trace (process_group:init) and {}\n", names, path);
  if (groups.renamed_nodes > 0) {
    fmt::print("process groups: {} communication node(s) renamed to the job's group names\n", groups.renamed_nodes);
  }
}

void convert_pytorch(const ConvertArgs& args) {
  if (args.npus) throw snr::Error("--npus applies to --from text only");
  if (args.passes != 1) throw snr::Error("--passes applies to --from text only");
  if (args.rank && args.inputs.size() > 1) {
    throw snr::Error("--rank applies to one trace; with several, each trace's rank comes from the trace");
  }
  for (const auto& input : args.inputs) snr::cli::check_input_file(input, snr::cli::InputKind::kPytorchTrace);
  snr::output::check_output_prefix(args.output_prefix);
  // Each rank's trace is read and converted on its own (on up to --jobs
  // threads); what is printed, and the error a broken job gives, is then
  // taken in input order, as converting one after the other would give.
  const size_t count = args.inputs.size();
  std::vector<snr::pytorch::HostTrace> traces(count);
  std::vector<snr::et_convert::ConvertedGraph> graphs(count);
  std::vector<snr::et_convert::PytorchConvertStats> stats(count);
  std::vector<std::function<void()>> jobs;
  for (size_t i = 0; i < count; ++i) {
    jobs.emplace_back([&, i] {
      // The converter writes no strides or extra attributes back.
      traces[i] = snr::pytorch::read_host_trace(args.inputs[i], {.keep_strides = false, .keep_extra_attrs = false});
      snr::et_convert::PytorchConvertOptions options;
      options.rank = args.rank;
      graphs[i] = snr::with_error_context(
          args.inputs[i], [&] { return snr::et_convert::convert_pytorch_trace(traces[i], options, stats[i]); });
    });
  }
  const auto errors = snr::run_jobs(jobs, args.jobs == 0 ? snr::hardware_threads() : args.jobs);
  std::map<int64_t, std::string> input_of_rank;
  for (size_t i = 0; i < count; ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    print_skipped(args.inputs[i], traces[i]);
    if (count > 1) fmt::print("{}:\n", args.inputs[i]);
    fmt::print("{}", snr::et_convert::describe(stats[i]));
    if (!traces[i].linked) {
      fmt::print("note: host trace only (no device nodes); run snr et link first for GPU kernels\n");
    }
    // The traces of a job are its ranks 0 .. N-1: the process groups are
    // derived for those ranks and the simulator wants one file per NPU.
    if (count > 1 && graphs[i].rank >= static_cast<int64_t>(count)) {
      throw snr::Error(fmt::format("{}: rank {} ({}) is not a rank of a job of {} traces: the traces of a job are "
                                   "its ranks 0 .. {}, one each",
                                   args.inputs[i], graphs[i].rank, stats[i].rank_source, count, count - 1));
    }
    const auto [it, inserted] = input_of_rank.emplace(graphs[i].rank, args.inputs[i]);
    if (!inserted) {
      throw snr::Error(fmt::format("{} and {} are both rank {} (one trace per rank; a trace without a rank "
                                   "needs a rank field in its collective records or a root \"rank\")",
                                   it->second, args.inputs[i], graphs[i].rank));
    }
  }
  std::vector<snr::et_convert::JobRank> ranks;
  for (size_t i = 0; i < graphs.size(); ++i) ranks.push_back({&traces[i], &graphs[i]});
  write_process_groups(ranks, count > 1 ? static_cast<int64_t>(count) : 0, args.output_prefix);
  for (const auto& graph : graphs) {
    const auto path = snr::et_convert::write_chakra_rank(args.output_prefix, graph, "snr et convert (pytorch)");
    print_counts(graph, path.string());
  }
  snr::cli::keep_until_exit(std::move(traces));
  snr::cli::keep_until_exit(std::move(graphs));
}

void convert_text(const ConvertArgs& args) {
  if (args.rank) throw snr::Error("--rank applies to PyTorch traces; text workloads write every rank of --npus");
  if (!args.npus || *args.npus == 0) throw snr::Error("--from text needs --npus N (N >= 1)");
  if (args.passes == 0) throw snr::Error("--passes must be at least 1");
  if (args.inputs.size() != 1) throw snr::Error("--from text converts one workload file");
  const std::string& input = args.inputs.front();
  snr::cli::check_input_file(input);
  snr::output::check_output_prefix(args.output_prefix);
  const auto workload = snr::et_convert::parse_text_workload(snr::read_file(input), input);
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
  sub->add_option("input", args->inputs,
                  "PyTorch execution trace / linked trace (several: one per rank of a job), or text workload")
      ->required();
  sub->add_option("-o,--output", args->output_prefix, "output prefix: writes PREFIX.<rank>.et")->required();
  sub->add_option("--from", args->from, "input kind")->check(CLI::IsMember({"pytorch", "text"}));
  sub->add_option("--rank", args->rank, "rank of a PyTorch trace (default: the trace's rank, else 0)")
      ->check(snr::cli::in_range(0, snr::limits::kMaxRanks - 1));
  sub->add_option("--npus", args->npus, "text workloads: number of ranks to write")
      ->check(snr::cli::in_range(1, snr::limits::kMaxRanks));
  sub->add_option("--passes", args->passes, "text workloads: training passes (default 1)")
      ->check(snr::cli::in_range(1, snr::limits::kMaxLayers));
  sub->add_option("-j,--jobs", args->jobs,
                  "PyTorch traces read and converted at once (default 0: one per hardware thread; 1 reads one "
                  "at a time, which holds one trace's text in memory at a time)")
      ->check(snr::cli::in_range(0, 1024));
  snr::cli::set_examples(sub, {"snr et convert linked.json -o out/trace --rank 0",
                               "snr et convert rank0.linked.json rank1.linked.json -o out/job",
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
