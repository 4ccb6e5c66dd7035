// `snr snapshot validate snap.snr`: framing, checksums and semantic checks.
#include <fmt/format.h>

#include "cli/command.h"
#include "common/error.h"
#include "formats/snapshot/snapshot.h"
#include "record/reexecute.h"

namespace {

int validate(const std::string& path) {
  snr::cli::check_input_file(path);
  const snr::snapshot::Snapshot snapshot = snr::snapshot::read_snapshot_file(path).value();
  std::vector<std::string> problems = snr::snapshot::validate_snapshot(snapshot);
  // The hardware the snapshot replays on (what check and replay would
  // refuse later).
  if (!snapshot.header.hw_config_yaml().empty()) {
    try {
      (void)snr::record::snapshot_hardware(snapshot.header);
    } catch (const snr::Error& e) {
      problems.push_back(e.what());
    }
  }
  for (const std::string& problem : problems) fmt::print(stderr, "{}: {}\n", path, problem);
  if (!problems.empty()) {
    fmt::print(stderr, "{}: invalid ({} problems)\n", path, problems.size());
    return 1;
  }
  fmt::print("{}: valid ({} chip sections, {} instructions)\n", path, snapshot.chips.size(),
             snapshot.header.stats().instructions());
  return 0;
}

void setup_snapshot_validate(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto path = std::make_shared<std::string>();
  auto* sub = parent.add_subcommand("validate", "Check a snapshot's framing, checksums and contents");
  sub->add_option("snapshot", *path, "snapshot file (.snr)")->required();
  snr::cli::set_examples(sub, {"snr snapshot validate window.snr"});
  sub->callback([path, &ctx] { ctx.exit_code = validate(*path); });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(snapshot, "Inspect, validate and re-execute snapshots", validate, setup_snapshot_validate);
