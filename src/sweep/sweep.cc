#include "sweep/sweep.h"

#include <fmt/format.h>

#include <chrono>
#include <set>

#include "common/error.h"
#include "sweep/document.h"
#include "taskfarm/farm.h"

namespace snr::sweep {
namespace {

// Row status a task returns when the sweep was stopped before it ran.
constexpr std::string_view kNotRun = "not-run";

void check_value(const Grid& grid, PreparedRun& run, const std::string& key, const YAML::Node& value) {
  try {
    run.check(key, value);
  } catch (const Error& e) {
    throw Error(fmt::format("{}key '{}' = '{}': {}", grid.where(key), key, canonical_text(value), e.what()));
  }
}

void validate(const Grid& grid, const RunKind& kind, PreparedRun& run) {
  const std::vector<KeySpec> specs = kind.keys();
  for (const std::string& key : grid.keys()) {
    if (find_key(key, specs) == nullptr) {
      throw Error(fmt::format("{}unknown key '{}' for a {} sweep (keys: {})", grid.where(key), key, kind.name(),
                              key_list(specs)));
    }
  }
  // Each key and each output gets its own column of the results table.
  std::set<std::string> columns(kFixedColumns.begin(), kFixedColumns.end());
  for (const OutputColumn& c : kind.outputs()) columns.insert(c.name);
  const std::string prefix(kind.varying_output_prefix());
  for (const std::string& key : grid.keys()) {
    if (columns.contains(key) || (!prefix.empty() && key.starts_with(prefix))) {
      throw Error(fmt::format("{}key '{}' has the name of a results column of a {} sweep", grid.where(key), key,
                              kind.name()));
    }
  }
  with_error_context(fmt::format("{}: base", grid.source.string()), [&] { run.check_base(); });
  // Each distinct value once, against the base: a bad unit or an unknown
  // field fails here, before the first point, naming the key.
  for (const Axis& axis : grid.axes) {
    for (size_t k = 0; k < axis.keys.size(); ++k) {
      std::set<std::string> seen;
      for (const YAML::Node& value : axis.values[k]) {
        if (seen.insert(canonical_text(value)).second) check_value(grid, run, axis.keys[k], value);
      }
    }
  }
  for (const RandomKey& r : grid.random) {
    for (const YAML::Node& value : r.draw == Draw::kChoice ? r.choices : r.ends) check_value(grid, run, r.key, value);
  }
}

std::string row_text(std::string_view status, std::string_view error, double seconds,
                     const nlohmann::ordered_json& outputs) {
  nlohmann::ordered_json j;
  j["status"] = status;
  if (!error.empty()) j["error"] = error;
  j["seconds"] = seconds;
  if (!outputs.empty()) j["outputs"] = outputs;
  return j.dump();
}

}  // namespace

PreparedSweep prepare_sweep(const Grid& grid) {
  PreparedSweep p;
  p.kind = &with_error_context(grid.source.string(), [&]() -> const RunKind& { return find_run_kind(grid.kind); });
  p.run = with_error_context(fmt::format("{}: base", grid.source.string()),
                             [&] { return p.kind->prepare(grid.base, grid.dir); });
  validate(grid, *p.kind, *p.run);
  p.keys = grid.keys();
  p.points = expand(grid);
  p.info.kind = grid.kind;
  p.info.base = grid.base_text();
  p.info.parameters = p.keys;
  p.info.outputs = p.kind->outputs();
  p.info.varying_prefix = std::string(p.kind->varying_output_prefix());
  p.info.objective = std::string(p.kind->objective());
  p.info.feasible = std::string(p.kind->feasible());
  p.info.grid_text = grid.text;
  p.info.grid_path = grid.source.string();
  return p;
}

std::optional<BestPoint> best_point(const ResultTable& table) {
  const auto row = best_row(table);
  if (!row) return std::nullopt;
  BestPoint best;
  const auto& cells = table.rows[*row];
  best.key = cells[table.column("key")].get<std::string>();
  for (const std::string& p : table.info.parameters) {
    if (const int c = table.column(p); c >= 0) best.parameters.emplace_back(p, cells[c]);
  }
  best.objective = table.info.objective;
  best.value = cells[table.column(table.info.objective)].get<double>();
  return best;
}

SweepSummary run_sweep(const Grid& grid, const std::filesystem::path& database, const taskfarm::Session& session,
                       const SweepOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  // Every rank reads and checks the grid the same way, so a bad grid fails
  // everywhere before any collective call.
  PreparedSweep prepared = prepare_sweep(grid);
  SweepSummary summary;
  summary.kind = grid.kind;
  summary.database = database;
  summary.points = prepared.points.size();
  summary.ranks = session.world().size;
  summary.mpi = session.world().mpi;
  summary.writer = session.is_writer();

  // Rank 0 alone opens the database and decides what is pending; the other
  // ranks learn only whether it could (they get ids from the farm).
  std::unique_ptr<Store> store;
  std::vector<uint64_t> pending;
  std::string opened = "ok";
  if (session.is_writer()) {
    try {
      store = std::make_unique<Store>(database, prepared.info);
      const auto stored = store->stored();
      for (uint64_t id = 0; id < prepared.points.size(); ++id) {
        const auto it = stored.find(prepared.points[id].key);
        if (it == stored.end() || (options.retry_failed && it->second != "ok")) {
          pending.push_back(id);
        } else {
          ++summary.skipped;
        }
      }
    } catch (const std::exception& e) {
      opened = e.what();
    }
  }
  opened = taskfarm::broadcast(session, opened);
  if (opened != "ok") throw Error(session.is_writer() ? opened : "rank 0 could not open the results database");

  if (session.is_writer() && options.started) options.started(summary, pending.size());
  const auto stopped = [&] { return options.stop != nullptr && options.stop->load() != 0; };
  const auto task = [&](uint64_t id) -> std::string {
    if (id >= prepared.points.size()) throw Error(fmt::format("point {} is not in the grid", id));
    if (stopped()) return row_text(kNotRun, "", 0, {});
    const Point& point = prepared.points[id];
    const auto t0 = std::chrono::steady_clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    try {
      nlohmann::ordered_json outputs = prepared.run->run(prepared.keys, point.values);
      return row_text("ok", "", elapsed(), outputs);
    } catch (const std::exception& e) {
      // A failing point is a result: its error goes into its row.
      return row_text("error", e.what(), elapsed(), {});
    }
  };
  SweepProgress progress;
  progress.total = pending.size();
  const auto run_start = std::chrono::steady_clock::now();
  const auto sink = [&](uint64_t id, std::string text) {
    const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
    const std::string status = j.at("status").get<std::string>();
    if (status == kNotRun) {
      ++summary.remaining;
      return;
    }
    const Point& point = prepared.points.at(id);
    StoredRow row;
    row.key = point.key;
    row.point = id;
    row.parameters = point.canonical;
    row.status = status;
    row.error = j.value("error", "");
    row.seconds = j.at("seconds").get<double>();
    if (j.contains("outputs")) row.outputs = j.at("outputs");
    store->add(row);
    ++summary.run;
    ++(status == "ok" ? summary.ok : summary.failed);
    // After a stop, each row is committed at once: an MPI launcher may
    // kill the job soon after it forwarded the signal.
    if (stopped()) store->commit();
    progress.done = summary.run;
    progress.failed = summary.failed;
    progress.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
    if (options.progress) options.progress(progress);
  };
  taskfarm::run(session, pending, task, sink);
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!session.is_writer()) return summary;
  store->commit();
  store.reset();
  summary.interrupted = summary.remaining > 0 || stopped();
  summary.best = best_point(read_results(database));
  return summary;
}

nlohmann::ordered_json summary_json(const SweepSummary& s) {
  nlohmann::ordered_json j;
  j["kind"] = s.kind;
  j["database"] = s.database.string();
  j["points"] = s.points;
  j["skipped"] = s.skipped;
  j["run"] = s.run;
  j["ok"] = s.ok;
  j["failed"] = s.failed;
  j["remaining"] = s.remaining;
  j["interrupted"] = s.interrupted;
  j["ranks"] = s.ranks;
  j["mpi"] = s.mpi;
  j["mpi_available"] = taskfarm::built_with_mpi();
  j["seconds"] = s.seconds;
  j["points_per_s"] = s.seconds > 0 ? static_cast<double>(s.run) / s.seconds : 0.0;
  if (s.best) {
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    for (const auto& [key, value] : s.best->parameters) params[key] = value;
    j["best"] = {{"key", s.best->key}, {"objective", s.best->objective}, {"value", s.best->value},
                 {"parameters", params}};
  } else {
    j["best"] = nullptr;
  }
  return j;
}

}  // namespace snr::sweep
