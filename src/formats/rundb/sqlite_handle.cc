#include "formats/rundb/sqlite_handle.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include "common/error.h"

namespace snr::rundb {

Database::Database(const std::string& path, Mode mode) : path_(path) {
  const int flags = mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(fmt::format("{}: cannot open as SQLite database: {}", path, message));
  }
}

Database::~Database() { sqlite3_close(db_); }

void Database::fail(std::string_view what) const {
  throw Error(fmt::format("{}: {}: {}", path_, what, sqlite3_errmsg(db_)));
}

void Database::exec(std::string_view sql) {
  const std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    fail(fmt::format("executing '{}'", text.substr(0, 60)));
  }
}

Statement::Statement(Database& db, std::string_view sql) : db_(db), sql_(sql) {
  if (sqlite3_prepare_v2(db.handle(), sql_.c_str(), static_cast<int>(sql_.size()), &stmt_, nullptr) != SQLITE_OK) {
    db.fail(fmt::format("preparing '{}'", sql_.substr(0, 80)));
  }
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_.fail("binding an integer");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_.fail("binding a real");
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  // The caller's text outlives the statement's next run(), so no copy.
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC) != SQLITE_OK) {
    db_.fail("binding text");
  }
  return *this;
}

Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_.fail("binding null");
  return *this;
}

void Statement::run() {
  if (sqlite3_step(stmt_) != SQLITE_DONE) db_.fail(fmt::format("running '{}'", sql_.substr(0, 60)));
  reset();
}

bool Statement::next() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail(fmt::format("querying '{}'", sql_.substr(0, 60)));
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::integer(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }
std::string Statement::text(int column) const {
  const auto* bytes = sqlite3_column_text(stmt_, column);
  return bytes == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(bytes),
                                                        static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}
bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
int Statement::column_type(int column) const { return sqlite3_column_type(stmt_, column); }
int Statement::column_count() const { return sqlite3_column_count(stmt_); }
std::string Statement::column_name(int column) const { return sqlite3_column_name(stmt_, column); }

}  // namespace snr::rundb
