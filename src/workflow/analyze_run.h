// `snr analyze`'s pipeline as library code: run data -> analysis
// (src/analyze) -> verification of the top suggestions by rewriting and
// replaying the snapshot (src/rewrite) -> report directory:
//
//   <dir>/index.html      the HTML report (src/report)
//   <dir>/tables/         CSV and JSON of every table (analyze::write_tables)
//   <dir>/timeline.json   the Perfetto timeline (src/export)
//
// The demo (demo.h) runs the same steps on the replay it just made.
#pragma once

#include <cstddef>
#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "analyze/analyze.h"
#include "formats/rundb/run_data.h"
#include "formats/snapshot/shared_snapshot.h"
#include "replay/replay_input.h"
#include "workflow/stages.h"

namespace snr::workflow {

struct AnalyzeRunOptions {
  std::filesystem::path output_dir;
  // The snapshot the run was replayed from, for verification; empty: look
  // for the file named in run.db's meta `source` beside run.db, then in the
  // working directory (its hash must match).
  std::string snapshot_path;
  size_t verify_top = 3;  // suggestions to verify (best predicted first); 0 = none
  analyze::AnalyzeOptions analyze;
  std::string title = "snr analysis";
  // When valid, run.db is still being written (by the caller, beside the
  // analysis): the timeline, which reads it, waits for this first.
  std::shared_future<void> run_db_written;
  // The verifications and the timeline run this many at a time. A caller
  // that keeps writing files beside them (`snr demo`: the snapshot and
  // run.db) takes 1: on two cores its wall time stays, and its peak memory
  // no longer depends on how two replays overlap.
  size_t background_jobs = 2;
};

struct AnalyzeRunResult {
  analyze::Analysis analysis;
  std::filesystem::path report_path;
  std::filesystem::path tables_dir;
  std::filesystem::path timeline_path;
  std::string snapshot_used;  // empty when nothing was verified against a snapshot
  std::string verify_note;    // why suggestions were not verified, when they were not
  std::vector<StageTime> stages;
};

// Reads run.db and analyzes it. Throws snr::Error on unreadable input or
// a snapshot given explicitly that is not the one the run was replayed from.
AnalyzeRunResult analyze_run_db(const std::string& run_db_path, const AnalyzeRunOptions& options,
                                const Progress& progress);

// The "analyze" stage: analyze(data, options), timed and reported.
analyze::Analysis analyze_stage(const rundb::RunData& data, const analyze::AnalyzeOptions& options,
                                std::vector<StageTime>& stages, const Progress& progress);

// Same from run data already in memory (written to `run_db_path`, which
// the timeline export reads), verifying against `input` when given. When
// `analysis` is given, it is analyze(data) made by the caller and taken as is.
AnalyzeRunResult analyze_run_data(const rundb::RunData& data, const std::string& run_db_path,
                                  const replay::ReplayInput* input, const AnalyzeRunOptions& options,
                                  const Progress& progress, analyze::Analysis* analysis = nullptr);

struct SourceSnapshot {
  std::filesystem::path path;
  snapshot::SharedSnapshot snapshot;
};

// The snapshot file run.db's meta `source` names, if one with a matching
// identity lies beside run.db or in the working directory.
std::optional<SourceSnapshot> find_source_snapshot(const std::string& source, const std::filesystem::path& run_db_path);

// A short text summary: window, top stalls, VMEM medians, top suggestions
// with predicted and verified savings.
std::string format_summary(const analyze::Analysis& analysis, size_t top);

// A measured saving outranks any prediction: suggestions verified as legal
// first, by verified saving; then the unverified ones in their (predicted)
// order; then the illegal ones. Stable.
void rank_by_verified_saving(std::vector<analyze::Suggestion>& suggestions);

}  // namespace snr::workflow
