// Database: a thin RAII wrapper over one SQLite connection (the only place sqlite3.h is used);
// the embedded SqlConnection.
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

#include "cannbot/store/sql_connection.h"
#include "cannbot/util/status.h"

struct sqlite3;

namespace cannbot::store {

class Database : public SqlConnection {
 public:
  // `migrations[i]` brings the schema from version i to i+1.
  static Result<std::unique_ptr<Database>> Open(const std::string& path,
                                                const std::vector<std::string>& migrations);
  ~Database() override;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  Status Execute(const std::string& sql, const std::vector<Value>& params = {}) override;
  Status ExecuteScript(const std::string& sql) override;
  Result<std::vector<Row>> Query(const std::string& sql,
                                 const std::vector<Value>& params = {}) override;
  Status Begin() override { return Execute("BEGIN IMMEDIATE"); }
  Status Commit() override { return Execute("COMMIT"); }
  void Rollback() override { (void)Execute("ROLLBACK"); }
  Status Notify(const std::string&, const std::string&) override { return Status::Ok(); }
  Dialect dialect() const override { return Dialect::kSqlite; }
  int schema_version() const override { return schema_version_; }
  std::string Describe() const override { return path_; }
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

}  // namespace cannbot::store
