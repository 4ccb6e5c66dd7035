// snr et synthesize fit|sample|compare — fitted synthetic traces.
//   fit PREFIX... -o model.json      learn the communication model
//   sample model.json --npus N --seed S -o PREFIX
//   compare PREFIX_A PREFIX_B         type-mix and size distances
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "common/error.h"
#include "common/cli_numbers.h"
#include "common/file_io.h"
#include "common/output.h"
#include "et/generate/workload_check.h"
#include "et/synth/comm_model.h"
#include "et/synth/sampler.h"
#include "et/synth/trace_stats.h"
#include "formats/chakra/attributes.h"

namespace {

using namespace snr::et;
using namespace snr::et::synth;

void print_model(const CommModel& model) {
  for (const auto& in : model.inputs) {
    fmt::print("input {}: {} ranks, {} collectives", in.name, in.npus, in.collectives);
    if (in.skipped_point_to_point > 0) fmt::print(", {} send/recv skipped (not modelled)", in.skipped_point_to_point);
    if (in.skipped_irregular_groups > 0) {
      fmt::print(", {} collectives on irregular process groups skipped", in.skipped_irregular_groups);
    }
    fmt::print("\n");
  }
  uint64_t total = 0;
  for (const auto& t : model.types) total += t.count;
  for (const auto& t : model.types) {
    const auto& sizes = t.sizes_bytes;
    fmt::print("{:<16} {:6.2f}%  sizes {}..{} bytes, {}\n", snr::chakra::comm_type_name(t.comm_type),
               100.0 * static_cast<double>(t.count) / static_cast<double>(total), sizes.min_value, sizes.max_value,
               sizes.atoms.empty() ? fmt::format("{}-component log2 mixture", sizes.mixture.components.size())
                                   : fmt::format("{} distinct values", sizes.atoms.size()));
  }
  std::string scopes;
  for (const auto& s : model.scopes) scopes += (scopes.empty() ? "" : ", ") + scope_name(s);
  fmt::print("process-group scopes: {}\n", scopes);
}

std::vector<MasterTrace> masters_of(const std::vector<std::string>& prefixes) {
  std::vector<MasterTrace> masters;
  for (const auto& p : prefixes) {
    masters.push_back(snr::with_error_context(p, [&] { return extract_master_trace(read_workload(p)); }));
  }
  return masters;
}

void setup_et_synthesize(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto* sub = parent.add_subcommand("synthesize", "Fit a communication model to traces and sample new ones");
  sub->require_subcommand(1);
  snr::cli::set_examples(sub, {"snr et synthesize fit in/ar -o model.json",
                               "snr et synthesize sample model.json --npus 64 -o out/s"});

  struct FitArgs {
    std::vector<std::string> prefixes;
    std::string output;
  };
  auto fit_args = std::make_shared<FitArgs>();
  auto* fit = sub->add_subcommand("fit", "Fit the model to one or more trace sets (<prefix>.<rank>.et)");
  fit->add_option("prefixes", fit_args->prefixes, "trace prefixes")->required();
  fit->add_option("-o,--output", fit_args->output, "model JSON to write")->required();
  snr::cli::set_examples(fit, {"snr et synthesize fit in/ar -o model.json", "snr et synthesize fit in/a in/b -o m.json"});
  fit->callback([fit_args, &ctx] {
    snr::output::check_output_file(fit_args->output);
    std::vector<std::pair<std::string, Workload>> inputs;
    for (const auto& p : fit_args->prefixes) {
      inputs.emplace_back(p, snr::with_error_context(p, [&] { return read_workload(p); }));
    }
    const CommModel model = fit_comm_model(inputs);
    snr::write_file_atomic(fit_args->output, comm_model_to_json(model));
    print_model(model);
    fmt::print("wrote {}\n", fit_args->output);
    ctx.exit_code = 0;
  });

  struct SampleArgs {
    std::string model;
    SampleOptions options;
    uint64_t length = 0;
    std::string output;
  };
  auto sample_args = std::make_shared<SampleArgs>();
  auto* sample = sub->add_subcommand("sample", "Sample traces for any NPU count from a fitted model");
  sample->add_option("model", sample_args->model, "model JSON from `fit`")->required();
  sample->add_option("--npus", sample_args->options.npus, "number of ranks to generate")
      ->required()
      ->check(snr::cli::in_range(1, snr::limits::kMaxRanks));
  sample->add_option("--seed", sample_args->options.seed, "random seed")->capture_default_str();
  sample->add_option("--length", sample_args->length, "collectives per rank (default: drawn from the fitted lengths)")
      ->check(snr::cli::in_range(1, snr::limits::kMaxCollectivesPerRank));
  sample->add_option("-o,--output", sample_args->output, "output prefix: writes <prefix>.<rank>.et")->required();
  snr::cli::set_examples(sample, {"snr et synthesize sample model.json --npus 64 -o out/s",
                                  "snr et synthesize sample model.json --npus 1024 --seed 7 --length 200 -o out/big"});
  sample->callback([sample_args, &ctx] {
    snr::cli::check_input_file(sample_args->model);
    snr::output::check_output_prefix(sample_args->output);
    const CommModel model = comm_model_from_json(snr::read_file(sample_args->model), sample_args->model);
    if (sample_args->options.npus == 0) throw snr::Error("--npus must be at least 1");
    SampleOptions options = sample_args->options;
    if (sample_args->length > 0) options.length = sample_args->length;
    const MasterTrace master = sample_master_trace(model, options);
    write_master_trace(master, options.npus, sample_args->output);
    fmt::print("wrote {} rank traces {}.<0..{}>.et with {} collectives each\n", options.npus, sample_args->output,
               options.npus - 1, master.records.size());
    ctx.exit_code = 0;
  });

  struct CompareArgs {
    std::string reference, candidate;
  };
  auto compare_args = std::make_shared<CompareArgs>();
  auto* compare = sub->add_subcommand("compare", "Distances between the collectives of two trace sets");
  compare->add_option("reference", compare_args->reference, "trace prefix, e.g. the fitted input")->required();
  compare->add_option("candidate", compare_args->candidate, "trace prefix, e.g. sampled traces")->required();
  snr::cli::set_examples(compare, {"snr et synthesize compare in/ar out/s"});
  compare->callback([compare_args, &ctx] {
    const auto a = summarize(masters_of({compare_args->reference}));
    const auto b = summarize(masters_of({compare_args->candidate}));
    if (a.collectives == 0 || b.collectives == 0) throw snr::Error("compare: a trace set has no collectives on rank 0");
    fmt::print("collectives: {} vs {}\n", a.collectives, b.collectives);
    fmt::print("type_mix_total_variation: {:.4f}\n", total_variation_distance(a.type_counts, b.type_counts));
    fmt::print("log2_size_ks: {:.4f}\n", ks_statistic(a.log2_sizes, b.log2_sizes));
    ctx.exit_code = 0;
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(et, "Chakra execution-trace tools", synthesize, setup_et_synthesize);
