#include "sweep/store.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>

#include "common/error.h"
#include "formats/rundb/sqlite_handle.h"

namespace snr::sweep {
namespace {

constexpr std::string_view kFormat = "snr-sweep";
constexpr std::string_view kVersion = "1";

std::string sql_name(std::string_view name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

nlohmann::json outputs_json(const std::vector<OutputColumn>& outputs) {
  nlohmann::json out = nlohmann::json::array();
  for (const OutputColumn& c : outputs) out.push_back({{"name", c.name}, {"type", column_type_name(c.type)}});
  return out;
}

std::vector<OutputColumn> outputs_from(const nlohmann::json& j) {
  std::vector<OutputColumn> out;
  for (const auto& c : j) {
    const std::string type = c.at("type").get<std::string>();
    out.push_back({c.at("name").get<std::string>(),
                   type == "INTEGER" ? ColumnType::kInteger : type == "TEXT" ? ColumnType::kText : ColumnType::kReal,
                   ""});
  }
  return out;
}

std::map<std::string, std::string> read_meta(rundb::Database& db) {
  std::map<std::string, std::string> meta;
  rundb::Statement q(db, "SELECT name, value FROM sweep_meta");
  while (q.next()) meta[q.text(0)] = q.text(1);
  return meta;
}

bool has_table(rundb::Database& db, std::string_view name) {
  rundb::Statement q(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?");
  q.bind(1, name);
  return q.next() && q.integer(0) > 0;
}

SweepInfo info_from(const std::map<std::string, std::string>& meta, const std::string& path) {
  const auto get = [&](const std::string& name) -> std::string {
    const auto it = meta.find(name);
    if (it == meta.end()) throw Error(fmt::format("{}: sweep_meta has no '{}'", path, name));
    return it->second;
  };
  if (get("format") != kFormat) throw Error(fmt::format("{}: not an snr sweep database", path));
  if (get("version") != kVersion) {
    throw Error(fmt::format("{}: sweep database version {} (this snr reads {})", path, get("version"), kVersion));
  }
  SweepInfo info;
  try {
    info.kind = get("kind");
    info.base = get("base");
    info.parameters = nlohmann::json::parse(get("parameters")).get<std::vector<std::string>>();
    info.outputs = outputs_from(nlohmann::json::parse(get("outputs")));
    info.varying_prefix = get("varying_prefix");
    info.objective = get("objective");
    info.feasible = get("feasible");
    info.grid_text = get("grid");
    info.grid_path = get("grid_path");
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: sweep_meta is damaged: {}", path, e.what()));
  }
  return info;
}

void bind_cell(rundb::Statement& s, int index, const nlohmann::ordered_json& value, std::deque<std::string>& texts) {
  if (value.is_number_integer()) {
    s.bind(index, value.get<int64_t>());
  } else if (value.is_number()) {
    s.bind(index, value.get<double>());
  } else if (value.is_boolean()) {
    s.bind(index, int64_t{value.get<bool>() ? 1 : 0});
  } else if (value.is_string()) {
    s.bind(index, std::string_view(texts.emplace_back(value.get<std::string>())));
  } else {
    s.bind_null(index);
  }
}

}  // namespace

nlohmann::json parameter_cell(std::string_view canonical) {
  int64_t integer = 0;
  const char* end = canonical.data() + canonical.size();
  if (auto [ptr, ec] = std::from_chars(canonical.data(), end, integer); !canonical.empty() && ec == std::errc() && ptr == end) {
    return integer;
  }
  double real = 0;
  if (auto [ptr, ec] = std::from_chars(canonical.data(), end, real);
      !canonical.empty() && ec == std::errc() && ptr == end && std::isfinite(real)) {
    return real;
  }
  return std::string(canonical);
}

Store::Store(const std::filesystem::path& path, const SweepInfo& info)
    : db_(std::make_unique<rundb::Database>(path.string(), rundb::Database::Mode::kCreate)), info_(info) {
  const std::string name = path.string();
  // Every parameter and output gets its own column: names must not clash.
  std::set<std::string> names(kFixedColumns.begin(), kFixedColumns.end());
  for (const OutputColumn& c : info.outputs) names.insert(c.name);
  for (const std::string& p : info.parameters) {
    if (names.contains(p) || (!info.varying_prefix.empty() && p.starts_with(info.varying_prefix))) {
      throw Error(fmt::format("key '{}' has the name of a column of the results table; it cannot be a parameter", p));
    }
  }
  db_->exec("PRAGMA synchronous = NORMAL");
  if (has_table(*db_, "sweep_meta")) {
    const SweepInfo old = info_from(read_meta(*db_), name);
    std::vector<std::string> a = old.parameters, b = info.parameters;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    std::string differs;
    if (old.kind != info.kind) differs = fmt::format("its run kind is {}, this grid's {}", old.kind, info.kind);
    else if (old.base != info.base) differs = fmt::format("its base inputs differ ({})", old.base);
    else if (a != b) differs = fmt::format("it varies {}", nlohmann::json(old.parameters).dump());
    if (!differs.empty()) {
      throw Error(fmt::format("{} holds another sweep: {}; write to a new database (-o) or remove it", name, differs));
    }
    rundb::Statement update(*db_, "UPDATE sweep_meta SET value = ? WHERE name = ?");
    update.bind(1, std::string_view(info.grid_text)).bind(2, std::string_view("grid")).run();
    update.bind(1, std::string_view(info.grid_path)).bind(2, std::string_view("grid_path")).run();
  } else {
    rundb::Statement tables(*db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table'");
    if (tables.next() && tables.integer(0) > 0) {
      throw Error(fmt::format("{} is an SQLite database of something else (it has tables but no sweep_meta); give a "
                              "new file to -o",
                              name));
    }
    db_->exec("BEGIN");
    db_->exec("CREATE TABLE sweep_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const std::vector<std::pair<std::string, std::string>> meta = {
        {"format", std::string(kFormat)},
        {"version", std::string(kVersion)},
        {"kind", info.kind},
        {"base", info.base},
        {"parameters", nlohmann::json(info.parameters).dump()},
        {"outputs", outputs_json(info.outputs).dump()},
        {"varying_prefix", info.varying_prefix},
        {"objective", info.objective},
        {"feasible", info.feasible},
        {"grid", info.grid_text},
        {"grid_path", info.grid_path}};
    rundb::Statement insert(*db_, "INSERT INTO sweep_meta (name, value) VALUES (?, ?)");
    for (const auto& [key, value] : meta) insert.bind(1, std::string_view(key)).bind(2, std::string_view(value)).run();
    // Parameters keep whatever type their values read as (no declared
    // type), outputs their declared one.
    std::string columns = "key TEXT PRIMARY KEY, point INTEGER, status TEXT NOT NULL, error TEXT, seconds REAL";
    for (const std::string& p : info.parameters) columns += ", " + sql_name(p);
    for (const OutputColumn& c : info.outputs) columns += fmt::format(", {} {}", sql_name(c.name), column_type_name(c.type));
    db_->exec(fmt::format("CREATE TABLE {} ({})", kPointsTable, columns));
    db_->exec("COMMIT");
  }
  rundb::Statement info_query(*db_, fmt::format("PRAGMA table_info({})", kPointsTable));
  while (info_query.next()) columns_.insert(info_query.text(1));
  for (const std::string& p : info.parameters) {
    if (!columns_.contains(p)) throw Error(fmt::format("{}: the points table has no column '{}'", name, p));
  }
}

Store::~Store() {
  try {
    commit();
  } catch (const std::exception&) {
    // Destructors must not throw; an explicit commit() reports the error.
  }
}

std::unordered_map<std::string, std::string> Store::stored() {
  std::unordered_map<std::string, std::string> out;
  rundb::Statement q(*db_, fmt::format("SELECT key, status FROM {}", kPointsTable));
  while (q.next()) out[q.text(0)] = q.text(1);
  return out;
}

void Store::ensure_column(const std::string& name, const nlohmann::ordered_json& value) {
  if (columns_.contains(name)) return;
  std::string_view type = value.is_string() ? "TEXT" : value.is_number_integer() ? "INTEGER" : "REAL";
  for (const OutputColumn& c : info_.outputs) {
    if (c.name == name) type = column_type_name(c.type);
  }
  db_->exec(fmt::format("ALTER TABLE {} ADD COLUMN {} {}", kPointsTable, sql_name(name), type));
  columns_.insert(name);
}

rundb::Statement& Store::insert_for(const std::vector<std::string>& columns) {
  std::string list, marks;
  for (const std::string& c : columns) {
    list += (list.empty() ? "" : ", ") + sql_name(c);
    marks += marks.empty() ? "?" : ", ?";
  }
  auto& slot = inserts_[list];
  if (!slot) {
    slot = std::make_unique<rundb::Statement>(
        *db_, fmt::format("INSERT OR REPLACE INTO {} ({}) VALUES ({})", kPointsTable, list, marks));
  }
  return *slot;
}

void Store::add(const StoredRow& row) {
  if (row.parameters.size() != info_.parameters.size()) {
    throw Error(fmt::format("point {}: {} parameter values for {} parameters", row.key, row.parameters.size(),
                            info_.parameters.size()));
  }
  if (!in_transaction_) {
    db_->exec("BEGIN");
    in_transaction_ = true;
    batch_rows_ = 0;
    batch_start_ = std::chrono::steady_clock::now();
  }
  std::vector<std::string> columns(kFixedColumns.begin(), kFixedColumns.end());
  columns.insert(columns.end(), info_.parameters.begin(), info_.parameters.end());
  for (const auto& [name, value] : row.outputs.items()) {
    ensure_column(name, value);
    columns.push_back(name);
  }
  rundb::Statement& insert = insert_for(columns);
  std::deque<std::string> texts;  // bound text must outlive run()
  int index = 1;
  insert.bind(index++, std::string_view(row.key));
  insert.bind(index++, row.point);
  insert.bind(index++, std::string_view(row.status));
  if (row.error.empty()) {
    insert.bind_null(index++);
  } else {
    insert.bind(index++, std::string_view(row.error));
  }
  insert.bind(index++, row.seconds);
  for (const std::string& p : row.parameters) bind_cell(insert, index++, parameter_cell(p), texts);
  for (const auto& [name, value] : row.outputs.items()) bind_cell(insert, index++, value, texts);
  insert.run();
  ++batch_rows_;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - batch_start_).count();
  if (batch_rows_ >= kBatchRows || elapsed >= kBatchSeconds) commit();
}

void Store::commit() {
  if (!in_transaction_) return;
  db_->exec("COMMIT");
  in_transaction_ = false;
}

int ResultTable::column(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == name) return static_cast<int>(i);
  }
  return -1;
}

ResultTable read_results(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(fmt::format("{}: no such file", path.string()));
  rundb::Database db(path.string(), rundb::Database::Mode::kReadOnly);
  if (!has_table(db, "sweep_meta") || !has_table(db, kPointsTable)) {
    throw Error(fmt::format("{}: not an snr sweep database (no sweep_meta and points tables)", path.string()));
  }
  ResultTable table;
  table.info = info_from(read_meta(db), path.string());
  rundb::Statement q(db, fmt::format("SELECT * FROM {} ORDER BY point, key", kPointsTable));
  for (int c = 0; c < q.column_count(); ++c) table.columns.push_back(q.column_name(c));
  while (q.next()) {
    std::vector<nlohmann::json> row;
    row.reserve(table.columns.size());
    for (int c = 0; c < q.column_count(); ++c) {
      switch (q.column_type(c)) {
        case SQLITE_INTEGER: row.emplace_back(q.integer(c)); break;
        case SQLITE_FLOAT: row.emplace_back(q.real(c)); break;
        case SQLITE_NULL: row.emplace_back(nullptr); break;
        default: row.emplace_back(q.text(c)); break;
      }
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string csv_field(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return std::string(text);
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string results_csv(const ResultTable& table) {
  const auto cell_text = [](const nlohmann::json& cell) -> std::string {
    if (cell.is_null()) return "";
    if (cell.is_string()) return csv_field(cell.get<std::string>());
    if (cell.is_number_integer()) return std::to_string(cell.get<int64_t>());
    return fmt::format("{}", cell.get<double>());
  };
  std::string out;
  for (size_t c = 0; c < table.columns.size(); ++c) out += (c ? "," : "") + csv_field(table.columns[c]);
  out += "\n";
  for (const auto& row : table.rows) {
    for (size_t c = 0; c < row.size(); ++c) out += (c ? "," : "") + cell_text(row[c]);
    out += "\n";
  }
  return out;
}

std::optional<size_t> best_row(const ResultTable& table) {
  const int status = table.column("status");
  const int objective = table.column(table.info.objective);
  const int feasible = table.info.feasible.empty() ? -1 : table.column(table.info.feasible);
  if (status < 0 || objective < 0) return std::nullopt;
  std::optional<size_t> best;
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    if (row[status] != "ok" || !row[objective].is_number()) continue;
    if (feasible >= 0 && !(row[feasible].is_number() && row[feasible].get<double>() == 1)) continue;
    if (!best || row[objective].get<double>() < table.rows[*best][objective].get<double>()) best = r;
  }
  return best;
}

}  // namespace snr::sweep
