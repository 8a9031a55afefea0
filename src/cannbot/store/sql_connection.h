// SqlConnection: the statements cannbot's stores run, whatever database holds them. Two
// implementations: store::Database (one SQLite file, the embedded default) and
// store::PostgresConnection (a PostgreSQL server, shared by the machines of a fleet).
//
// Statements are written once, in the SQL both understand, with `?` positional parameters
// (the PostgreSQL connection numbers them). Where the dialects differ (row locks, schema
// types, notifications) the caller asks dialect(); the differences are few and named here.
//
// Ownership: the caller owns the connection. Thread-safety: every call takes the
// connection's mutex, but a transaction spans calls, so a caller that uses Begin/Commit must
// keep other threads off the connection meanwhile (JobStore holds its own mutex).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "cannbot/util/status.h"

namespace cannbot::store {

struct Blob {
  std::string bytes;
};
using Value = std::variant<std::nullptr_t, int64_t, double, std::string, Blob>;
using Row = std::vector<Value>;

enum class Dialect { kSqlite, kPostgres };

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;

  // One statement, with positional parameters.
  virtual Status Execute(const std::string& sql, const std::vector<Value>& params = {}) = 0;
  // Several ;-separated statements without parameters (migrations).
  virtual Status ExecuteScript(const std::string& sql) = 0;
  virtual Result<std::vector<Row>> Query(const std::string& sql,
                                         const std::vector<Value>& params = {}) = 0;
  // A write transaction: SQLite takes the file's write lock at once (BEGIN IMMEDIATE), so
  // two writers never deadlock upgrading; PostgreSQL starts a read-committed transaction.
  virtual Status Begin() = 0;
  virtual Status Commit() = 0;
  virtual void Rollback() = 0;

  // Wakes listeners on other connections once the current transaction commits (PostgreSQL
  // NOTIFY); SQLite has no listeners and does nothing.
  virtual Status Notify(const std::string& channel, const std::string& payload) = 0;

  virtual Dialect dialect() const = 0;
  virtual int schema_version() const = 0;
  // Where the data lives, for messages: a file path, or "postgresql host:port/db".
  virtual std::string Describe() const = 0;
};

// Typed access to a column of a row; a wrong type yields the fallback.
std::string TextAt(const Row& row, size_t i);
int64_t IntAt(const Row& row, size_t i, int64_t fallback = 0);
double DoubleAt(const Row& row, size_t i, double fallback = 0);

}  // namespace cannbot::store
