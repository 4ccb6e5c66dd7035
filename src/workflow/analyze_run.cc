#include "workflow/analyze_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <sstream>

#include "common/error.h"
#include "common/file_io.h"
#include "export/perfetto_export.h"
#include "formats/rundb/load.h"
#include "formats/rundb/reader.h"
#include "metrics/run_metrics.h"
#include "report/html_report.h"
#include "report/svg.h"
#include "rewrite/verify.h"

namespace snr::workflow {

namespace {

std::string meta_value(const rundb::RunData& data, std::string_view key) {
  for (const auto& [k, v] : data.meta) {
    if (k == key) return v;
  }
  return {};
}

// Verification must replay on the hardware the run was replayed on: the
// run's whole config (a `--hw` preset or file included, not only the
// `--set` overrides), else, for run data without one, the overrides
// recorded in meta on the recorded config.
replay::ReplayOptions run_hardware(const rundb::RunData& data) {
  replay::ReplayOptions options;
  if (!data.hw_config_yaml.empty()) {
    options.hw_config_yaml = data.hw_config_yaml;
    return options;
  }
  std::istringstream words(meta_value(data, "hw_overrides"));
  for (std::string word; words >> word;) options.overrides.push_back(word);
  return options;
}

// The run itself is the verification baseline: no need to replay it again.
rewrite::ReplaySummary baseline_of(const rundb::RunData& data) {
  rewrite::ReplaySummary summary;
  summary.total_cycles = data.total_cycles;
  summary.dmas.reserve(data.dmas.size());
  const std::vector<uint64_t> charged = metrics::charged_wait_stall_cycles(data.dmas);
  for (size_t i = 0; i < data.dmas.size(); ++i) {
    summary.dmas.push_back({data.dmas[i].chip, data.dmas[i].pc, charged[i]});
  }
  if (meta_value(data, "final_state") == "differs") {
    summary.final_state_problems.push_back("the recorded replay did not reach the device's end state");
  }
  return summary;
}

// Each verification replays the whole rewritten window, independently of
// the others (they share the snapshot's memory read-only): one job each,
// to run beside each other. `report` then records their stages in rank order.
struct Verifications {
  std::vector<size_t> chosen;  // suggestion indices
  std::vector<double> wall_s;
  rewrite::VerifyOptions options;
  rewrite::ReplaySummary baseline;

  void add_jobs(AnalyzeRunResult& result, const replay::ReplayInput& input, size_t top,
                std::vector<std::function<void()>>& jobs) {
    for (size_t i = 0; i < result.analysis.suggestions.size() && chosen.size() < top; ++i) {
      if (!result.analysis.suggestions[i].moves.empty()) chosen.push_back(i);
    }
    wall_s.assign(chosen.size(), 0);
    for (size_t k = 0; k < chosen.size(); ++k) {
      jobs.emplace_back([this, k, &result, &input] {
        const auto start = std::chrono::steady_clock::now();
        analyze::Suggestion& suggestion = result.analysis.suggestions[chosen[k]];
        suggestion.verification = rewrite::verify(input, baseline, suggestion.moves, options);
        wall_s[k] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      });
    }
  }
  void report(AnalyzeRunResult& result, const Progress& progress) const {
    for (size_t k = 0; k < chosen.size(); ++k) {
      const analyze::Suggestion& suggestion = result.analysis.suggestions[chosen[k]];
      const analyze::Verification& v = suggestion.verification;
      const std::string name = fmt::format("verify #{}", chosen[k] + 1);
      const std::string what =
          v.legal ? fmt::format("replayed the rewritten window: {} -> {} cycles, saving {} (predicted {})",
                                v.baseline_cycles, v.rewritten_cycles, v.measured_saving_cycles,
                                suggestion.predicted_saving_cycles)
                  : fmt::format("not legal: {}", v.illegal_reason);
      result.stages.push_back({name, wall_s[k], true});
      if (progress) progress(fmt::format("{}: {} ({:.1f} s)", name, what, wall_s[k]));
    }
  }
};

std::vector<std::pair<std::string, std::string>> companion_files(const std::filesystem::path& dir) {
  std::vector<std::pair<std::string, std::string>> files;
  files.emplace_back("timeline (Chrome trace JSON; open in ui.perfetto.dev)", "timeline.json");
  std::vector<std::string> tables;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "tables", ec)) {
    tables.push_back(entry.path().filename().string());
  }
  std::sort(tables.begin(), tables.end());
  for (const std::string& name : tables) files.emplace_back("table " + name, "tables/" + name);
  return files;
}

}  // namespace

std::optional<SourceSnapshot> find_source_snapshot(const std::string& source, const std::filesystem::path& run_db_path) {
  const size_t space = source.find(" fnv1a64 ");
  if (space == std::string::npos || space == 0) return std::nullopt;
  const std::filesystem::path name = source.substr(0, space);
  for (const std::filesystem::path& dir : {run_db_path.parent_path(), std::filesystem::path(".")}) {
    const std::filesystem::path candidate = dir.empty() ? name : dir / name;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(candidate, ec)) continue;
    Result<snapshot::SharedSnapshot> loaded = snapshot::read_snapshot_shared(candidate.string());
    if (loaded.ok() && snapshot::snapshot_identity(candidate.string(), loaded.value()) == source) {
      return SourceSnapshot{candidate, std::move(loaded).value()};
    }
  }
  return std::nullopt;
}

analyze::Analysis analyze_stage(const rundb::RunData& data, const analyze::AnalyzeOptions& options,
                                std::vector<StageTime>& stages, const Progress& progress) {
  StageTimer timer(stages, "analyze", progress);
  analyze::Analysis analysis = analyze::analyze(data, options);
  timer.finish(fmt::format("{} DMAs, {} chains, {} suggestions", analysis.dmas.size(), analysis.chains.size(),
                           analysis.suggestions.size()));
  return analysis;
}

AnalyzeRunResult analyze_run_data(const rundb::RunData& data, const std::string& run_db_path,
                                  const replay::ReplayInput* input, const AnalyzeRunOptions& options,
                                  const Progress& progress, analyze::Analysis* analysis) {
  AnalyzeRunResult result;
  result.analysis =
      analysis != nullptr ? std::move(*analysis) : analyze_stage(data, options.analyze, result.stages, progress);
  const std::filesystem::path& dir = options.output_dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("{}: cannot create the output directory: {}", dir.string(), ec.message()));
  // The verification replays and the timeline (which reads only run.db,
  // perhaps still being written by the caller) run background_jobs at a
  // time, the timeline last: beside one more replay it would raise the peak
  // memory of `snr demo` above its goal.
  std::vector<std::function<void()>> jobs;
  Verifications verifications;
  if (options.verify_top == 0) {
    result.verify_note = "verification off";
  } else if (input == nullptr) {
    result.verify_note = "no snapshot to verify against";
  } else {
    verifications.options.replay = run_hardware(data);
    verifications.baseline = baseline_of(data);
    verifications.add_jobs(result, *input, options.verify_top, jobs);
  }
  result.timeline_path = dir / "timeline.json";
  BackgroundStage timeline("timeline");
  jobs.emplace_back([&] {
    if (options.run_db_written.valid()) options.run_db_written.get();
    timeline.start();
    rundb::RunDbReader reader(run_db_path);
    const perfetto::TraceWriter trace = exporter::build_timeline(reader);
    trace.write_file(result.timeline_path.string());
    timeline.finish(fmt::format("{} slices -> {}", trace.slice_count(), result.timeline_path.string()));
  });
  run_at_most(jobs, options.background_jobs);
  verifications.report(result, progress);
  rank_by_verified_saving(result.analysis.suggestions);
  timeline.report(result.stages, progress);
  {
    StageTimer timer(result.stages, "tables", progress);
    result.tables_dir = dir / "tables";
    analyze::write_tables(result.analysis, result.tables_dir.string());
    timer.finish(fmt::format("CSV and JSON -> {}", result.tables_dir.string()));
  }
  StageTimer timer(result.stages, "report", progress);
  report::ReportOptions report_options;
  report_options.title = options.title;
  report_options.files = companion_files(dir);
  result.report_path = report::write_report(result.analysis, dir, report_options);
  timer.finish(fmt::format("wrote {}", result.report_path.string()));
  return result;
}

AnalyzeRunResult analyze_run_db(const std::string& run_db_path, const AnalyzeRunOptions& options,
                                const Progress& progress) {
  std::vector<StageTime> stages;
  rundb::RunData data;
  {
    StageTimer timer(stages, "load", progress);
    data = rundb::load_run_data(run_db_path);
    timer.finish(fmt::format("{}: {} instructions, {} DMAs", run_db_path, data.instructions.size(), data.dmas.size()));
  }
  const std::string source = meta_value(data, "source");
  std::optional<SourceSnapshot> source_snapshot;
  std::string note;
  if (options.verify_top > 0 && !options.snapshot_path.empty()) {
    source_snapshot = SourceSnapshot{options.snapshot_path,
                                     snapshot::read_snapshot_shared(options.snapshot_path).value()};
    const std::string identity = snapshot::snapshot_identity(source_snapshot->path.string(), source_snapshot->snapshot);
    if (identity != source) {
      throw Error(fmt::format("{}: this snapshot ({}) is not the one {} was replayed from ({})", options.snapshot_path,
                              identity, run_db_path, source));
    }
  } else if (options.verify_top > 0) {
    source_snapshot = find_source_snapshot(source, run_db_path);
    if (!source_snapshot) {
      note = fmt::format("the snapshot '{}' was not found beside {} or here; give --snapshot to verify", source,
                         run_db_path);
    }
  }
  std::optional<replay::ReplayInput> input;
  if (source_snapshot) input = replay::replay_input_from_snapshot(source_snapshot->snapshot, source);
  AnalyzeRunResult result = analyze_run_data(data, run_db_path, input ? &*input : nullptr, options, progress);
  if (input) result.snapshot_used = source_snapshot->path.string();
  if (!note.empty()) result.verify_note = note;
  result.stages.insert(result.stages.begin(), stages.begin(), stages.end());
  return result;
}

void rank_by_verified_saving(std::vector<analyze::Suggestion>& suggestions) {
  const auto tier = [](const analyze::Suggestion& s) {
    if (!s.verification.attempted) return 1;
    return s.verification.legal ? 0 : 2;
  };
  std::stable_sort(suggestions.begin(), suggestions.end(), [&](const analyze::Suggestion& a, const analyze::Suggestion& b) {
    if (tier(a) != tier(b)) return tier(a) < tier(b);
    if (tier(a) == 0) return a.verification.measured_saving_cycles > b.verification.measured_saving_cycles;
    return false;
  });
}

std::string format_summary(const analyze::Analysis& a, size_t top) {
  using report::format_count;
  using report::format_percent;
  const analyze::Summary& s = a.summary;
  std::string out = fmt::format("window: {}, {} cycles", s.describe_chips(), format_count(s.total_cycles));
  if (s.clock_hz > 0) out += fmt::format(" ({:.1f} µs at {:.0f} MHz)", static_cast<double>(s.total_cycles) / s.clock_hz * 1e6, s.clock_hz / 1e6);
  out += fmt::format(", {} instructions\n", format_count(s.instructions));
  const auto share = [](uint64_t part, uint64_t whole) {
    return whole == 0 ? std::string("-") : format_percent(static_cast<double>(part) / static_cast<double>(whole));
  };
  out += fmt::format("DMA WAIT stalls: {} cycles over all chips ({} base latency, {} transfer)\n",
                     format_count(s.dma_stall_cycles), share(s.dma_base_stall_cycles, s.dma_stall_cycles),
                     share(s.dma_transfer_stall_cycles, s.dma_stall_cycles));
  std::vector<analyze::StallGroup> groups = a.stalls_by_op;
  std::stable_sort(groups.begin(), groups.end(), [](const auto& x, const auto& y) {
    return x.base_stall_cycles + x.transfer_stall_cycles > y.base_stall_cycles + y.transfer_stall_cycles;
  });
  out += "top stalls by op:\n";
  for (size_t i = 0; i < std::min(top, groups.size()); ++i) {
    const auto& g = groups[i];
    const uint64_t stall = g.base_stall_cycles + g.transfer_stall_cycles;
    if (stall == 0) break;
    out += fmt::format("  {:<32} {:>12} cycles ({} base latency) over {} DMAs\n", g.key, format_count(stall),
                       share(g.base_stall_cycles, stall), g.dmas);
  }
  if (!a.chains.empty()) out += fmt::format("dependent DMA chains: {}\n", a.chains.size());
  for (const auto& v : a.vmem) {
    out += fmt::format("VMEM chip {}: median unused {}, median largest contiguous unused {}\n", v.chip,
                       format_percent(v.median_unused_fraction), format_percent(v.median_largest_unused_fraction));
  }
  if (a.suggestions.empty()) {
    out += "suggestions: none (no stalled DMA can move earlier)\n";
    return out;
  }
  out += "top suggestions (verified ones ranked by verified saving; predicted / verified saving):\n";
  for (size_t i = 0; i < std::min(top, a.suggestions.size()); ++i) {
    const analyze::Suggestion& sg = a.suggestions[i];
    const analyze::Verification& v = sg.verification;
    std::string verified = "not verified";
    if (v.attempted && !v.legal) verified = "illegal: " + v.illegal_reason;
    if (v.attempted && v.legal) {
      verified = fmt::format("{} cycles ({:.1f}% of the window{}{})", format_count(v.measured_saving_cycles),
                             v.baseline_cycles == 0 ? 0.0 : 100.0 * static_cast<double>(v.measured_saving_cycles) / static_cast<double>(v.baseline_cycles),
                             v.final_state_matched ? ", same end state" : ", END STATE DIFFERS",
                             v.measured_saving_cycles > 0
                                 ? fmt::format(", predicted {:+.1f}%", 100.0 * (static_cast<double>(sg.predicted_saving_cycles) /
                                                                             static_cast<double>(v.measured_saving_cycles) - 1.0))
                                 : std::string());
    }
    out += fmt::format("  {}. {}{}\n     predicted {} cycles / verified {}\n", i + 1, sg.text, sg.cross_op ? " [cross-op]" : "",
                       format_count(sg.predicted_saving_cycles), verified);
  }
  return out;
}

}  // namespace snr::workflow
