// Times each phase of verifying one suggestion on a recorded snapshot:
// snapshot decode, static plan, legality pass (functional re-execution +
// dependency check), the baseline replay with and without the performance
// tracker, and verify() against the precomputed baseline (plan + legality +
// rewritten replay). CPU seconds (user + sys) of this process per phase.
// Usage: verify_bench SNAPSHOT MOVES_JSON
#include <fmt/format.h>
#include <sys/resource.h>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/snapshot/snapshot.h"
#include "replay/replay_input.h"
#include "replay/replayer.h"
#include "rewrite/legality.h"
#include "rewrite/moves_file.h"
#include "rewrite/plan.h"
#include "rewrite/verify.h"

namespace {

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

template <typename F>
auto timed(const char* phase, F&& f) {
  const double start = cpu_seconds();
  auto result = f();
  fmt::print("{:<58} {:8.2f} s CPU\n", phase, cpu_seconds() - start);
  std::fflush(stdout);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    fmt::print(stderr, "usage: verify_bench SNAPSHOT MOVES_JSON\n");
    return 2;
  }
  try {
    using namespace snr;
    const snapshot::Snapshot snap = timed("decode snapshot", [&] { return snapshot::read_snapshot_file(argv[1]).value(); });
    const replay::ReplayInput input = replay::replay_input_from_snapshot(snap, argv[1]);
    const std::vector<uint8_t> text = read_file_bytes(argv[2]);
    const auto moves =
        rewrite::parse_moves_json(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()), argv[2]);
    const rewrite::RewritePlan plan = timed("plan (static moves and fix-ups)", [&] { return rewrite::plan_moves(input, moves); });
    if (!plan.valid) throw Error("plan: " + plan.problem);
    uint64_t span_slots = 0;
    for (const rewrite::Span& span : plan.spans) span_slots += (span.end - span.start) / 4;
    fmt::print("  {} moves, {} instructions moved, spans of {} instructions in all\n", moves.size(),
               plan.moved_instructions, span_slots);
    const rewrite::LegalityResult legality =
        timed("legality (functional re-execution + dependency check)", [&] { return rewrite::check_legality(input, plan); });
    fmt::print("  {}; {} instructions, {} span traversals, {} accesses indexed, {} pairs examined\n",
               legality.legal ? "legal" : "illegal: " + legality.reason, legality.instructions,
               legality.span_traversals, legality.recorded_accesses, legality.pairs_examined);
    replay::ReplayOptions bare;
    bare.collect_run_data = false;
    const replay::ReplayResult timing_only =
        timed("replay without tracker (collect_run_data = false)", [&] { return replay::run_replay(input, bare); });
    fmt::print("  {} cycles\n", timing_only.data.total_cycles);
    const rewrite::ReplaySummary baseline =
        timed("baseline for verification (replay_summary)", [&] { return rewrite::replay_summary(input, {}); });
    const analyze::Verification v =
        timed("verify() against that baseline", [&] { return rewrite::verify(input, baseline, moves, {}); });
    fmt::print("  legal {}, {} -> {} cycles (saving {}), target stalls {} -> {}, end state {}\n", v.legal,
               v.baseline_cycles, v.rewritten_cycles, v.measured_saving_cycles, v.target_stall_cycles_before,
               v.target_stall_cycles_after, v.final_state_matched ? "matched" : "differs");
    if (!v.legal) fmt::print("  reason: {}\n", v.illegal_reason);
  } catch (const snr::Error& e) {
    fmt::print(stderr, "verify_bench: {}\n", e.what());
    return 1;
  }
  return 0;
}
