// Database: a thin RAII wrapper over one SQLite connection (the only place sqlite3.h is used).
//
// Opens the file in WAL mode with a busy timeout, applies numbered schema migrations
// (PRAGMA user_version), and runs statements with positional text/blob/int/double
// parameters. Errors come back as Status naming the statement's purpose and SQLite's message.
//
// Thread-safety: every call takes the connection's mutex, so one Database may be shared by
// threads; statements are short.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cannbot/util/status.h"

struct sqlite3;

namespace cannbot::store {

struct Blob {
  std::string bytes;
};
using Value = std::variant<std::nullptr_t, int64_t, double, std::string, Blob>;
using Row = std::vector<Value>;

class Database {
 public:
  // `migrations[i]` brings the schema from version i to i+1.
  static Result<std::unique_ptr<Database>> Open(const std::string& path,
                                                const std::vector<std::string>& migrations);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // One statement, with positional parameters.
  Status Execute(const std::string& sql, const std::vector<Value>& params = {});
  // Several ;-separated statements without parameters (migrations).
  Status ExecuteScript(const std::string& sql);
  Result<std::vector<Row>> Query(const std::string& sql, const std::vector<Value>& params = {});
  int schema_version() const { return schema_version_; }
  const std::string& path() const { return path_; }

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Migrate(const std::vector<std::string>& migrations);
  Result<std::vector<Row>> Run(const std::string& sql, const std::vector<Value>& params);

  sqlite3* db_;
  std::string path_;
  int schema_version_ = 0;
  std::mutex mutex_;
};

// Typed access to a column of a row; a wrong type yields the fallback.
std::string TextAt(const Row& row, size_t i);
int64_t IntAt(const Row& row, size_t i, int64_t fallback = 0);
double DoubleAt(const Row& row, size_t i, double fallback = 0);

}  // namespace cannbot::store
