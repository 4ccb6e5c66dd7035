// The results database of a sweep (docs/sweep.md, "Results database"): one
// SQLite table `points` with a row per point — its key, status, error and
// seconds, a column per parameter and per output — and a table
// `sweep_meta` holding the grid, so a resumed sweep or a report can check
// what made the rows. Rows are written in batched transactions; a point
// already stored is skipped by a resumed sweep.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sweep/run_kind.h"

namespace snr::rundb {
class Database;
class Statement;
}  // namespace snr::rundb

namespace snr::sweep {

inline constexpr std::string_view kPointsTable = "points";
// Columns every row has, before the parameters.
inline constexpr std::array<std::string_view, 5> kFixedColumns = {"key", "point", "status", "error", "seconds"};

// What made the rows (the sweep_meta table).
struct SweepInfo {
  std::string kind;
  std::string base;                     // Grid::base_text()
  std::vector<std::string> parameters;  // the grid's keys, in order
  std::vector<OutputColumn> outputs;    // the kind's declared outputs
  std::string varying_prefix;           // RunKind::varying_output_prefix()
  std::string objective;
  std::string feasible;
  std::string grid_text;
  std::string grid_path;
};

struct StoredRow {
  std::string key;
  uint64_t point = 0;
  std::vector<std::string> parameters;  // canonical values, SweepInfo::parameters order
  std::string status;                   // "ok" or "error"
  std::string error;
  double seconds = 0;
  nlohmann::ordered_json outputs = nlohmann::ordered_json::object();
};

// A parameter's canonical text as stored: an integer or a real when it
// reads as one exactly, else the text.
nlohmann::json parameter_cell(std::string_view canonical);

class Store {
 public:
  // Creates the database, or opens one that a sweep of the same kind, base
  // and parameters made (then the grid text is updated). Throws snr::Error
  // saying what differs.
  Store(const std::filesystem::path& path, const SweepInfo& info);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Status ("ok" / "error") of every stored point, by key.
  [[nodiscard]] std::unordered_map<std::string, std::string> stored();
  // Adds or replaces a row; committed in batches (every kBatchRows rows or
  // kBatchSeconds) and by commit().
  void add(const StoredRow& row);
  void commit();

  static constexpr size_t kBatchRows = 500;
  static constexpr double kBatchSeconds = 1.0;

 private:
  void ensure_column(const std::string& name, const nlohmann::ordered_json& value);
  rundb::Statement& insert_for(const std::vector<std::string>& columns);

  std::unique_ptr<rundb::Database> db_;
  SweepInfo info_;
  std::set<std::string> columns_;
  std::map<std::string, std::unique_ptr<rundb::Statement>> inserts_;
  bool in_transaction_ = false;
  size_t batch_rows_ = 0;
  std::chrono::steady_clock::time_point batch_start_;
};

// Reading a database back (report, export, bindings).
struct ResultTable {
  SweepInfo info;
  std::vector<std::string> columns;
  std::vector<std::vector<nlohmann::json>> rows;  // null, integer, real or string; by point, then key
  // Index of `name` in columns, or -1.
  [[nodiscard]] int column(std::string_view name) const;
};
ResultTable read_results(const std::filesystem::path& path);

// CSV of the table (RFC 4180 quoting, lines end in \n): a header, then one
// line per row; fields with a comma, a quote, a line break or outer spaces
// are quoted, quotes doubled.
std::string results_csv(const ResultTable& table);
std::string csv_field(std::string_view text);

// The best row: lowest objective among "ok" rows (with feasible = 1 when
// the kind names a feasible column); nullopt when none qualifies.
std::optional<size_t> best_row(const ResultTable& table);

}  // namespace snr::sweep
