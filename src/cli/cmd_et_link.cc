// snr et link --host ET.json[.gz] --device KINETO.json[.gz] -o linked.json
// Joins a PyTorch host execution trace with the Kineto trace of the same run.
#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <memory>
#include <string>

#include "cli/command.h"
#include "common/error.h"
#include "common/output.h"
#include "common/parallel.h"
#include "et/convert/linked_trace_json.h"
#include "et/convert/trace_linker.h"
#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/kineto_trace.h"

namespace {

struct LinkArgs {
  std::string host;
  std::string device;
  std::string output;
  std::optional<double> min_linked;
  double min_matched = snr::et_convert::LinkOptions{}.min_linked_fraction;
  bool force = false;
};

// Below this fraction of GPU activities linked, while the host side linked
// well, the Kineto window covers more than the host trace (other iterations):
// say so, since the linked trace then carries one iteration's GPU time.
constexpr double kWarnLinkedFraction = 0.5;

void print_skipped(const std::string& what, const std::vector<snr::pytorch::SkippedRecord>& skipped) {
  if (skipped.empty()) return;
  fmt::print("{}: {} bad record(s) skipped\n", what, skipped.size());
  constexpr size_t kShown = 5;
  for (size_t i = 0; i < skipped.size() && i < kShown; ++i) {
    const auto& s = skipped[i];
    fmt::print("  record {}{}: {}\n", s.index, s.id.empty() ? "" : " (id " + s.id + ")", s.reason);
  }
  if (skipped.size() > kShown) fmt::print("  ... and {} more\n", skipped.size() - kShown);
}

void setup_et_link(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<LinkArgs>();
  auto* sub = parent.add_subcommand(
      "link", "Join a PyTorch execution trace with its Kineto trace (input of snr et convert)");
  sub->add_option("--host", args->host, "PyTorch host execution trace (.json or .json.gz)")->required();
  sub->add_option("--device", args->device, "Kineto trace of the same run (.json or .json.gz)")->required();
  sub->add_option("-o,--output", args->output, "linked trace to write (.json)")->required();
  sub->add_option("--min-linked", args->min_linked,
                  "fail (and write nothing) when fewer than this fraction of GPU activities link to a host op")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--min-matched", args->min_matched,
                  "refuse (and write nothing) when fewer than this fraction of host ops find their Kineto op "
                  "(default 0.5)")
      ->check(CLI::Range(0.0, 1.0));
  sub->add_flag("--force", args->force,
                "write the linked trace even when the pair looks wrong (pid, time, rank or op names differ, or "
                "--min-matched is not reached); --min-linked still applies");
  snr::cli::set_examples(sub, {"snr et link --host et.json --device kineto.json -o linked.json",
                               "snr et link --host et.json.gz --device kineto.json.gz -o linked.json --min-linked 0.9",
                               "snr et link --host et.json --device other_run.json -o linked.json --force"});
  sub->callback([args, &ctx] {
    snr::cli::check_input_file(args->host);
    snr::cli::check_input_file(args->device);
    snr::output::check_output_file(args->output);
    snr::output::check_output_is_not_input(args->output, args->host);
    snr::output::check_output_is_not_input(args->output, args->device);
    // The two traces are independent until they are linked, so they are read
    // at once where there are two cores (each read is most of a big link's
    // time). What is printed, and which error a broken pair gives (the host
    // trace's first), is what reading one after the other gives.
    snr::pytorch::HostTrace host;
    snr::pytorch::KinetoTrace device;
    snr::rethrow_first(snr::run_jobs({[&] { host = snr::pytorch::read_host_trace(args->host); },
                                      [&] { device = snr::pytorch::read_kineto_trace(args->device); }},
                                     snr::hardware_threads()));
    snr::et_convert::LinkOptions options;
    options.min_linked_fraction = args->min_matched;
    snr::et_convert::LinkStats stats;
    // Linked in place: the linked trace keeps the host trace's skipped records.
    auto linked = snr::et_convert::link_traces(std::move(host), device, options, stats);
    print_skipped("host trace", linked.skipped);
    print_skipped("device trace", device.skipped);
    fmt::print("{}", snr::et_convert::describe(stats));
    const double fraction = stats.gpu_activities == 0 ? 0.0
                                                      : static_cast<double>(stats.gpu_linked) /
                                                            static_cast<double>(stats.gpu_activities);
    const std::string linked_text = fmt::format("{} of {} GPU activities ({:.1f}%) linked to a host op",
                                                stats.gpu_linked, stats.gpu_activities, 100.0 * fraction);
    if (stats.refused()) {
      std::string reasons;
      for (const auto& problem : stats.problems) reasons += "\n  " + problem;
      if (!args->force) {
        throw snr::Error(fmt::format("{} and {} do not look like one run of one rank; {} not written "
                                     "(--force writes it anyway):{}",
                                     args->host, args->device, args->output, reasons));
      }
      fmt::print(stderr, "snr et link: WARNING: writing despite --force:{}\n", reasons);
    }
    if (args->min_linked && fraction < *args->min_linked) {
      throw snr::Error(fmt::format("{} and {}: only {}, below --min-linked {}; {} not written (are both traces from "
                                   "the same run and rank?)",
                                   args->host, args->device, linked_text, *args->min_linked, args->output));
    }
    if (fraction < kWarnLinkedFraction && !stats.refused() && stats.gpu_activities > 0) {
      fmt::print(stderr,
                 "snr et link: note: only {}; the host ops link ({:.1f}%) but {} of {} Kineto CPU ops are not in "
                 "the host trace: the Kineto trace covers more (other iterations or threads).\n",
                 linked_text, 100.0 * stats.matched_fraction(), stats.kineto_cpu_ops - stats.kineto_cpu_ops_matched,
                 stats.kineto_cpu_ops);
    } else if (fraction < kWarnLinkedFraction && stats.gpu_activities > 0) {
      fmt::print(stderr,
                 "snr et link: WARNING: only {}. The host and device traces are probably from different runs or "
                 "ranks; the linked trace will miss most GPU time. Use --min-linked FRACTION to make this an error.\n",
                 linked_text);
    }
    snr::et_convert::write_linked_trace(args->output, linked, stats,
                                        std::filesystem::path(args->device).filename().string());
    fmt::print("{}: {} node(s)\n", args->output, linked.nodes.size());
    snr::cli::keep_until_exit(std::move(linked));
    snr::cli::keep_until_exit(std::move(device));
    ctx.exit_code = 0;
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(et, "Chakra execution-trace tools", link, setup_et_link);
