// snr sweep GRID.yaml [-o RESULTS.sqlite] [--retry-failed] [--json]
// Expands a grid or random sample over `pathfind` or `sim` inputs, runs
// every point not already in the database (on all ranks of an MPI job when
// started by mpirun, dynamically balanced; here otherwise), and stores
// inputs and outputs in one SQLite table. SIGINT / SIGTERM / SIGUSR1 (the
// one mpirun forwards to its ranks): the running points finish, results
// are committed, and the command exits 128 + the signal saying how many
// points remain; the same command resumes.
#include <fmt/format.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>

#include "cli/command.h"
#include "cli/sweep_commands.h"
#include "common/error.h"
#include "common/output.h"
#include "sweep/sweep.h"
#include "taskfarm/farm.h"

namespace {

struct SweepArgs {
  std::string grid;
  std::string database;
  bool retry_failed = false;
  bool json = false;
};

std::atomic<int> g_stop_signal{0};

extern "C" void on_stop_signal(int signal) { g_stop_signal.store(signal); }

// SIGINT, SIGTERM and SIGUSR1 stop the sweep instead of killing the
// process (and the open transaction) while it runs; the previous handlers
// come back after. mpirun ends its job at once on Ctrl-C but forwards
// SIGUSR1 to every rank, so that is the graceful stop of an MPI sweep.
class StopSignals {
 public:
  StopSignals() {
    g_stop_signal.store(0);
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &action, &old_[i]);
  }
  ~StopSignals() {
    for (size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGUSR1};
  std::array<struct sigaction, 3> old_{};
};

std::string parameters_text(const snr::sweep::BestPoint& best) {
  std::string out;
  for (const auto& [key, value] : best.parameters) {
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", key, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

void print_summary(const snr::sweep::SweepSummary& s) {
  fmt::print("ran {} points ({} ok, {} failed), skipped {} already in {}, in {:.2f} s on {} rank{}\n", s.run, s.ok,
             s.failed, s.skipped, s.database.string(), s.seconds, s.ranks, s.ranks == 1 ? "" : "s");
  if (s.best) {
    fmt::print("best: {} = {:.6g} at {} (point {})\n", s.best->objective, s.best->value, parameters_text(*s.best),
               s.best->key);
  } else {
    fmt::print("best: none (no successful point{})\n", s.kind == "pathfind" ? " that fits in memory" : "");
  }
  if (s.interrupted) {
    fmt::print("interrupted: {} points remain; run the same command again to resume\n", s.remaining);
  }
}

int run(const SweepArgs& a) {
  // Rank 0 alone writes; every rank reads the grid and computes.
  snr::taskfarm::Session session;
  const bool writer = session.is_writer();
  std::filesystem::path database = a.database;
  if (database.empty()) database = std::filesystem::path(a.grid).stem().string() + ".sqlite";
  snr::sweep::SweepOptions options;
  options.retry_failed = a.retry_failed;
  options.stop = &g_stop_signal;
  uint64_t next_report = 0;
  if (writer && !a.json) {
    options.started = [&](const snr::sweep::SweepSummary& s, uint64_t pending) {
      fmt::print("sweep {}: {} points of kind {}, {} already in {}, {} to run on {} rank{}\n", a.grid, s.points, s.kind,
                 s.skipped, database.string(), pending, s.ranks, s.ranks == 1 ? "" : "s");
      std::fflush(stdout);
    };
    options.progress = [&](const snr::sweep::SweepProgress& p) {
      // A line at every tenth of the work (stdout may be a log file); none
      // for a few dozen points, which take less time than reading it.
      const uint64_t step = std::max<uint64_t>(1, p.total / 10);
      if (p.total < 50 || (p.done < std::max(next_report, step) && p.done != p.total)) return;
      next_report = p.done + step;
      fmt::print("  {}/{} points, {} failed, {:.0f} points/s\n", p.done, p.total, p.failed,
                 p.elapsed_s > 0 ? static_cast<double>(p.done) / p.elapsed_s : 0.0);
      std::fflush(stdout);
    };
  }
  snr::sweep::SweepSummary summary;
  try {
    const snr::sweep::Grid grid = snr::sweep::load_grid(a.grid);
    if (writer) snr::output::check_output_file(database);
    StopSignals signals;
    summary = snr::sweep::run_sweep(grid, database, session, options);
  } catch (const snr::Error&) {
    if (writer) throw;
    return 1;  // rank 0 reports it
  }
  if (!writer) return g_stop_signal.load() != 0 ? 128 + g_stop_signal.load() : 0;
  if (a.json) {
    fmt::print("{}\n", snr::sweep::summary_json(summary).dump());
  } else {
    print_summary(summary);
  }
  if (!summary.interrupted) return 0;
  const int signal = g_stop_signal.load();
  return 128 + (signal != 0 ? signal : SIGINT);
}

void setup_sweep(CLI::App& app, snr::cli::CommandContext& ctx) {
  auto args = std::make_shared<SweepArgs>();
  auto* sub = app.add_subcommand(
      "sweep", "Run a grid or random sample of pathfind / sim points into SQLite (resumable; under `mpirun -np N` "
               "spread over the ranks); `sweep report`, `sweep export`, `sweep kinds`");
  sub->add_option("grid", args->grid, "grid YAML: kind, base inputs, grid: and/or random: (docs/formats/sweep-grid.md)");
  sub->add_option("-o,--output", args->database, "results database (default: <grid file name>.sqlite here)");
  sub->add_flag("--retry-failed", args->retry_failed, "run the points stored with an error again");
  sub->add_flag("--json", args->json,
                "print one JSON summary (points, skipped, run, ok, failed, remaining, interrupted, best, ...)");
  snr::cli::setup_sweep_report(*sub, ctx);
  snr::cli::setup_sweep_export(*sub, ctx);
  snr::cli::setup_sweep_kinds(*sub, ctx);
  snr::cli::set_examples(sub, {"snr sweep examples/sweep/hbm-parallelism.yaml -o results.sqlite",
                               "snr sweep report results.sqlite -o report/",
                               "snr sweep export results.sqlite -o results.csv",
                               "snr sweep examples/sweep/random-pathfind.yaml -o random.sqlite --json"});
  sub->callback([sub, args, &ctx] {
    if (!sub->get_subcommands().empty()) return;  // report / export / kinds did the work
    if (args->grid.empty()) throw CLI::RequiredError("grid (or one of report, export, kinds)");
    ctx.exit_code = run(*args);
  });
}

}  // namespace

SNR_REGISTER_COMMAND(sweep, setup_sweep);
