// `snr snapshot check snap.snr`: re-executes the snapshot functionally and
// compares pc sequence and final state with what the device reached.
#include <fmt/format.h>

#include "cli/command.h"
#include "formats/snapshot/snapshot.h"
#include "record/reexecute.h"

namespace {

int check(const std::string& path) {
  snr::cli::check_input_file(path);
  const snr::snapshot::Snapshot snapshot = snr::snapshot::read_snapshot_file(path).value();
  const std::vector<std::string> problems = snr::snapshot::validate_snapshot(snapshot);
  if (!problems.empty()) {
    for (const std::string& problem : problems) fmt::print(stderr, "{}: {}\n", path, problem);
    fmt::print(stderr, "{}: invalid snapshot, not re-executed\n", path);
    return 1;
  }
  const snr::record::CheckResult result = snr::record::check_snapshot(snapshot);
  if (!result.matched) {
    for (const std::string& problem : result.problems) fmt::print(stderr, "{}: {}\n", path, problem);
    fmt::print(stderr, "{}: DIVERGED after {} re-executed instructions\n", path, result.instructions);
    return 1;
  }
  fmt::print("{}: match: {} instructions on {} chip(s) re-executed with the recorded pc sequence and final state\n",
             path, result.instructions, snapshot.header.recorded_chips_size());
  return 0;
}

void setup_snapshot_check(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto path = std::make_shared<std::string>();
  auto* sub = parent.add_subcommand("check", "Re-execute a snapshot functionally and compare with the device");
  sub->add_option("snapshot", *path, "snapshot file (.snr)")->required();
  snr::cli::set_examples(sub, {"snr snapshot check window.snr"});
  sub->callback([path, &ctx] { ctx.exit_code = check(*path); });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(snapshot, "Inspect, validate and re-execute snapshots", check, setup_snapshot_check);
