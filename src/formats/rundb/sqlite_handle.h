// Thin RAII over the SQLite C API: a connection and prepared statements
// whose failures throw snr::Error carrying the file and SQLite's message.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace snr::rundb {

class Database {
 public:
  enum class Mode { kReadOnly, kCreate };
  Database(const std::string& path, Mode mode);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(std::string_view sql);
  [[nodiscard]] sqlite3* handle() const { return db_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[noreturn]] void fail(std::string_view what) const;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(Database& db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binding is 1-based like SQLite's.
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, uint64_t value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, uint32_t value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value);
  // Text is not copied: it must stay valid until run() / next() / reset().
  Statement& bind(int index, std::string_view value);
  Statement& bind_null(int index);
  // Runs an insert/update and resets for the next row.
  void run();
  // Steps a query: true while a row is available.
  bool next();
  void reset();

  // Column accessors are 0-based like SQLite's.
  [[nodiscard]] int64_t integer(int column) const;
  [[nodiscard]] double real(int column) const;
  [[nodiscard]] std::string text(int column) const;
  [[nodiscard]] bool is_null(int column) const;
  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL
  // (the value's storage class in the current row).
  [[nodiscard]] int column_type(int column) const;
  [[nodiscard]] int column_count() const;
  [[nodiscard]] std::string column_name(int column) const;

 private:
  Database& db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

}  // namespace snr::rundb
