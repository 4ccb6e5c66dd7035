// `snr rewrite snap.snr --moves moves.json [-o out.snr] [--verify]`: applies
// code moves to a snapshot's text, checks that the rewritten order keeps
// every dependency of the recorded window, writes the rewritten snapshot
// and, with --verify, replays both and reports the measured saving.
#include <fmt/format.h>

#include "cli/command.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/hash.h"
#include "common/output.h"
#include "formats/snapshot/shared_snapshot.h"
#include "formats/snapshot/snapshot.h"
#include "replay/replay_input.h"
#include "rewrite/legality.h"
#include "rewrite/moves_file.h"
#include "rewrite/plan.h"
#include "rewrite/verify.h"

namespace {

struct RewriteArgs {
  std::string snapshot;
  std::string moves;
  std::string output;
  bool verify = false;
  std::string hw;
  std::vector<std::string> overrides;
};

int rewrite(const RewriteArgs& args) {
  // The hardware only matters to --verify's replays; without it the options
  // used to be dropped unread (a misspelt --hw file included).
  if (!args.verify && (!args.hw.empty() || !args.overrides.empty())) {
    throw snr::Error("--hw and --set choose the hardware of --verify's replays; add --verify");
  }
  snr::cli::check_input_file(args.snapshot);
  snr::cli::check_input_file(args.moves);
  if (!args.output.empty()) snr::output::check_output_file(args.output);
  const std::vector<uint8_t> bytes = snr::read_file_bytes(args.snapshot);
  const snr::snapshot::Snapshot snapshot = snr::snapshot::decode_snapshot(bytes, args.snapshot).value();
  if (const std::vector<std::string> problems = snr::snapshot::validate_snapshot(snapshot); !problems.empty()) {
    for (const std::string& problem : problems) fmt::print(stderr, "{}: {}\n", args.snapshot, problem);
    throw snr::Error(fmt::format("{}: invalid snapshot, not rewritten", args.snapshot));
  }
  const std::vector<uint8_t> moves_bytes = snr::read_file_bytes(args.moves);
  const std::vector<snr::analyze::CodeMove> moves = snr::rewrite::parse_moves_json(
      std::string_view(reinterpret_cast<const char*>(moves_bytes.data()), moves_bytes.size()), args.moves);
  const std::string identity = snr::snapshot::snapshot_identity(
      args.snapshot, snr::fnv1a64(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
  const snr::replay::ReplayInput input = snr::replay::replay_input_from_snapshot(snapshot, identity);

  const snr::rewrite::RewritePlan plan = snr::rewrite::plan_moves(input, moves);
  if (!plan.valid) {
    fmt::print(stderr, "{}: illegal rewrite: {}\n", args.snapshot, plan.problem);
    return 1;
  }
  // --verify runs the legality pass itself (before its replays).
  snr::analyze::Verification v;
  std::string checked;
  if (args.verify) {
    snr::rewrite::VerifyOptions options;
    options.replay.hw_preset_or_file = args.hw;
    options.replay.overrides = args.overrides;
    v = snr::with_error_context(fmt::format("verifying {}", args.snapshot),
                                [&] { return snr::rewrite::verify(input, moves, options); });
    if (!v.legal) {
      fmt::print(stderr, "{}: illegal rewrite: {}\n", args.snapshot, v.illegal_reason);
      return 1;
    }
  } else {
    const snr::rewrite::LegalityResult legality = snr::with_error_context(
        fmt::format("checking {}", args.snapshot), [&] { return snr::rewrite::check_legality(input, plan); });
    if (!legality.legal) {
      fmt::print(stderr, "{}: illegal rewrite: {}\n", args.snapshot, legality.reason);
      return 1;
    }
    checked = fmt::format("; {} re-executed instructions, {} region traversal(s) checked", legality.instructions,
                          legality.span_traversals);
  }
  std::string regions;
  for (const snr::rewrite::Span& span : plan.spans) {
    regions += fmt::format("{}{:#x}-{:#x}", regions.empty() ? "" : ", ", span.start, span.end);
  }
  fmt::print("{}: legal: {} instruction(s) moved by {} move(s) in {} region(s) ({}), {} word(s) re-encoded{}\n",
             args.snapshot, plan.moved_instructions, moves.size(), plan.spans.size(), regions, plan.reencoded_words,
             checked);
  if (!args.output.empty()) {
    snr::snapshot::write_snapshot_file(args.output, snr::rewrite::apply_plan(snapshot, plan));
    fmt::print("wrote {}\n", args.output);
  }
  if (args.verify) {
    const double percent = v.baseline_cycles == 0 ? 0.0
                                                  : 100.0 * static_cast<double>(v.measured_saving_cycles) /
                                                        static_cast<double>(v.baseline_cycles);
    fmt::print("verified: {} -> {} cycles, saving {} cycles ({:.1f}%); moved DMAs' wait stalls {} -> {} cycles; "
               "end state {}\n",
               v.baseline_cycles, v.rewritten_cycles, v.measured_saving_cycles, percent, v.target_stall_cycles_before,
               v.target_stall_cycles_after, v.final_state_matched ? "matched" : "DIFFERS");
    if (!v.final_state_matched) return 1;
  }
  return 0;
}

void setup_rewrite(CLI::App& app, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<RewriteArgs>();
  auto* cmd = app.add_subcommand("rewrite", "Move instructions of a snapshot's code, check legality, verify the saving");
  cmd->add_option("snapshot", args->snapshot, "snapshot file (.snr)")->required();
  cmd->add_option("--moves", args->moves, "moves file (JSON: {\"moves\": [{\"pcs\": [...], \"before_pc\": ...}]})")
      ->required();
  cmd->add_option("-o,--output", args->output, "rewritten snapshot to write (only when legal)");
  cmd->add_flag("--verify", args->verify, "replay original and rewritten window and report the measured saving");
  cmd->add_option("--hw", args->hw, "hardware preset or YAML file for --verify instead of the recorded config");
  cmd->add_option("--set", args->overrides, "hardware override key=value for --verify (repeatable)");
  snr::cli::set_examples(cmd, {"snr rewrite window.snr --moves moves.json --verify",
                               "snr rewrite window.snr --moves moves.json -o rewritten.snr"});
  cmd->callback([args, &ctx] { ctx.exit_code = rewrite(*args); });
}

}  // namespace

SNR_REGISTER_COMMAND(rewrite, setup_rewrite);
