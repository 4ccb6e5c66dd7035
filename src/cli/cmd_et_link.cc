// snr et link --host ET.json[.gz] --device KINETO.json[.gz] -o linked.json
// Joins a PyTorch host execution trace with the Kineto trace of the same run.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>

#include "cli/command.h"
#include "et/convert/linked_trace_json.h"
#include "et/convert/trace_linker.h"
#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/kineto_trace.h"

namespace {

struct LinkArgs {
  std::string host;
  std::string device;
  std::string output;
};

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
  sub->callback([args, &ctx] {
    const auto host = snr::pytorch::read_host_trace(args->host);
    const auto device = snr::pytorch::read_kineto_trace(args->device);
    snr::et_convert::LinkStats stats;
    const auto linked = snr::et_convert::link_traces(host, device, stats);
    snr::et_convert::write_linked_trace(args->output, linked, stats,
                                        std::filesystem::path(args->device).filename().string());
    print_skipped("host trace", host.skipped);
    print_skipped("device trace", device.skipped);
    fmt::print("{}", snr::et_convert::describe(stats));
    fmt::print("{}: {} node(s)\n", args->output, linked.nodes.size());
    ctx.exit_code = 0;
  });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(et, "Chakra execution-trace tools", link, setup_et_link);
