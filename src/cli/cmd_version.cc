#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "cli/command.h"
#include "dsim/network/ns3/ns3_backend.h"
#include "taskfarm/farm.h"

namespace {

// What this build can do beyond the core, for scripts that need to know
// before they try (the MPI tests skip without "mpi", the packet-level ones
// without "ns3").
std::vector<std::string> optional_features() {
  std::vector<std::string> features;
  if (snr::taskfarm::built_with_mpi()) features.emplace_back("mpi");
  if (snr::dsim::ns3_available()) features.emplace_back("ns3");
  return features;
}

void setup_version(CLI::App& app, snr::cli::CommandContext& /*ctx*/) {
  auto* sub = app.add_subcommand("version", "Print the snr version and the optional features this build has");
  auto json = std::make_shared<bool>(false);
  sub->add_flag("--json", *json, "print {\"version\": ..., \"features\": [...]} instead");
  snr::cli::set_examples(sub, {"snr version", "snr version --json"});
  sub->callback([json] {
    const auto features = optional_features();
    if (*json) {
      std::vector<std::string> quoted;
      for (const auto& feature : features) quoted.push_back(fmt::format("\"{}\"", feature));
      fmt::print("{{\"version\": \"{}\", \"features\": [{}]}}\n", SNR_VERSION, fmt::join(quoted, ", "));
      return;
    }
    fmt::print("snr {}\n", SNR_VERSION);
    fmt::print("features: {}\n", features.empty() ? std::string("none") : fmt::format("{}", fmt::join(features, " ")));
  });
}
}  // namespace

SNR_REGISTER_COMMAND(version, setup_version);
