// Opens a run.db a user hands us (any file): checks that it is SQLite, that
// meta says snr-run-db with this schema version, and that every required
// table exists, with an error naming the file and what is wrong. Queries
// then run through Statement.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "formats/rundb/sqlite_handle.h"

namespace snr::rundb {

class RunDbReader {
 public:
  explicit RunDbReader(const std::string& path);

  [[nodiscard]] Database& db() { return *db_; }
  [[nodiscard]] const std::string& path() const { return db_->path(); }
  [[nodiscard]] const std::map<std::string, std::string>& meta() const { return meta_; }
  // meta value or `fallback` when absent.
  [[nodiscard]] std::string meta_value(const std::string& key, const std::string& fallback = "") const;
  // meta value parsed as an unsigned integer; throws naming the key otherwise.
  [[nodiscard]] uint64_t meta_integer(const std::string& key) const;

 private:
  std::unique_ptr<Database> db_;
  std::map<std::string, std::string> meta_;
};

// Every row of every table, in a canonical order, one line per row;
// meta keys listed in `skip_meta_keys` (wall-clock fields) are left out.
// Used to compare two runs for determinism.
std::string dump_tables(RunDbReader& reader, const std::vector<std::string>& skip_meta_keys);

}  // namespace snr::rundb
