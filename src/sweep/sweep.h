// A sweep as a library call: a grid, its validation against the run kind
// before any point runs, the points spread over the ranks of an MPI job
// (or run here) by the task farm, and the rows stored by rank 0 into the
// results database, skipping points it already holds. `snr sweep` and the
// Python bindings call run_sweep.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sweep/grid.h"
#include "sweep/run_kind.h"
#include "sweep/store.h"

namespace snr::taskfarm {
class Session;
}

namespace snr::sweep {

// A grid ready to run: its kind, the base inputs read, every key and each
// distinct value checked against them, the points expanded.
struct PreparedSweep {
  const RunKind* kind = nullptr;
  std::unique_ptr<PreparedRun> run;
  std::vector<std::string> keys;
  std::vector<Point> points;
  SweepInfo info;
};
// Throws snr::Error "<grid>:<line>: ..." naming the key: an unknown key, a
// value the base's readers refuse (unit, range, type), a base that cannot
// run.
PreparedSweep prepare_sweep(const Grid& grid);

struct SweepProgress {
  uint64_t done = 0;     // points stored by this run
  uint64_t total = 0;    // points this run has to compute
  uint64_t failed = 0;
  double elapsed_s = 0;  // since the first point started
};


struct BestPoint {
  std::string key;
  std::vector<std::pair<std::string, nlohmann::json>> parameters;
  std::string objective;  // the column
  double value = 0;
};

struct SweepSummary {
  std::string kind;
  std::filesystem::path database;
  uint64_t points = 0;     // distinct points of the grid
  uint64_t skipped = 0;    // already in the database
  uint64_t run = 0;        // computed by this run (ok + failed)
  uint64_t ok = 0;
  uint64_t failed = 0;
  uint64_t remaining = 0;  // left when stopped
  bool interrupted = false;
  int ranks = 1;
  bool mpi = false;
  double seconds = 0;
  std::optional<BestPoint> best;  // over the whole database
  bool writer = true;             // false on ranks other than 0 (nothing else is filled)
};

struct SweepOptions {
  bool retry_failed = false;  // run points stored with an error again
  // Non-zero stops the sweep (a signal handler sets it): points already
  // started finish, results so far are committed, the rest remain.
  const std::atomic<int>* stop = nullptr;
  // Rank 0, once the grid is checked and the database open: the summary so
  // far (points, skipped, ranks) and how many points this run computes.
  std::function<void(const SweepSummary&, uint64_t pending)> started;
  // Rank 0, after each stored point.
  std::function<void(const SweepProgress&)> progress;
};

// Runs the grid's pending points on every rank of `session` (call it on
// all of them); rank 0 opens `database`, stores each row as it arrives and
// returns the summary. A point that throws is stored with its error; the
// sweep goes on. Throws snr::Error for a bad grid (before any point runs)
// or a database that holds another sweep, on every rank.
SweepSummary run_sweep(const Grid& grid, const std::filesystem::path& database, const taskfarm::Session& session,
                       const SweepOptions& options = {});

// The summary as `snr sweep --json` prints it (docs/sweep.md).
nlohmann::ordered_json summary_json(const SweepSummary& summary);
// The best row of a table as a BestPoint.
std::optional<BestPoint> best_point(const ResultTable& table);

}  // namespace snr::sweep
