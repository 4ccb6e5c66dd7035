#include "formats/rundb/reader.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <vector>

#include "common/error.h"
#include "formats/rundb/schema.h"

namespace snr::rundb {

RunDbReader::RunDbReader(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw Error(fmt::format("{}: no such run database", path));
  db_ = std::make_unique<Database>(path, Database::Mode::kReadOnly);
  int64_t version = 0;
  try {
    Statement user_version(*db_, "PRAGMA user_version");
    if (user_version.next()) version = user_version.integer(0);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: not a run database (SQLite says: {})", path, e.what()));
  }
  std::vector<std::string> tables;
  {
    Statement list(*db_, "SELECT name FROM sqlite_master WHERE type = 'table'");
    while (list.next()) tables.push_back(list.text(0));
  }
  if (std::find(tables.begin(), tables.end(), "meta") == tables.end()) {
    throw Error(fmt::format("{}: not a run database: it has no meta table ({} other tables)", path, tables.size()));
  }
  {
    Statement rows(*db_, "SELECT key, value FROM meta");
    while (rows.next()) meta_[rows.text(0)] = rows.text(1);
  }
  if (meta_value("format") != kFormatName) {
    throw Error(fmt::format("{}: not a run database: meta.format is '{}', expected '{}'", path, meta_value("format"),
                            kFormatName));
  }
  if (version != kSchemaVersion) {
    throw Error(fmt::format("{}: run database schema version {} is not supported (this snr reads version {})", path,
                            version, kSchemaVersion));
  }
  for (std::string_view required : kRequiredTables) {
    if (std::find(tables.begin(), tables.end(), required) == tables.end()) {
      throw Error(fmt::format("{}: run database lacks table '{}'", path, required));
    }
  }
}

std::string RunDbReader::meta_value(const std::string& key, const std::string& fallback) const {
  auto it = meta_.find(key);
  return it == meta_.end() ? fallback : it->second;
}

uint64_t RunDbReader::meta_integer(const std::string& key) const {
  const std::string text = meta_value(key);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19) {
    throw Error(fmt::format("{}: meta.{} is '{}', expected an unsigned integer", path(), key, text));
  }
  return std::stoull(text);
}

std::string dump_tables(RunDbReader& reader, const std::vector<std::string>& skip_meta_keys) {
  std::string out;
  for (std::string_view table : kRequiredTables) {
    int columns = 0;
    {
      Statement shape(reader.db(), fmt::format("SELECT * FROM {} LIMIT 0", table));
      columns = shape.column_count();
    }
    std::string order = "1";
    for (int c = 2; c <= columns; ++c) order += fmt::format(", {}", c);
    Statement rows(reader.db(), fmt::format("SELECT * FROM {} ORDER BY {}", table, order));
    while (rows.next()) {
      if (table == "meta" && std::find(skip_meta_keys.begin(), skip_meta_keys.end(), rows.text(0)) != skip_meta_keys.end()) {
        continue;
      }
      out += table;
      for (int c = 0; c < rows.column_count(); ++c) {
        out += '|';
        out += rows.is_null(c) ? std::string("NULL") : rows.text(c);
      }
      out += '\n';
    }
  }
  return out;
}

}  // namespace snr::rundb
