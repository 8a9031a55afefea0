// PostgresConnection and PostgresListener: cannbot's stores on a PostgreSQL server, the
// backend a team uses when its workers run on several machines (the only place libpq-fe.h
// is used).
//
// PostgresConnection runs the same `?`-parameter statements as the SQLite store (it numbers
// them $1, $2, ...), sends each parameter with its type (bigint, double precision, text,
// bytea) and returns columns typed by their declared type. A connection the server dropped
// (a restart) is re-established on the next statement outside a transaction; within one the
// statement fails as Unavailable and the caller retries the whole transaction.
//
// Schema versions live in the table cannbot_schema; Open() applies the missing migrations
// under an advisory lock (two machines starting at once do not race) and refuses a database
// whose version is newer than the list it was given.
//
// PostgresListener holds a second connection that LISTENs on one channel and hands back the
// payloads of NOTIFY calls as they arrive, re-subscribing after a reconnect.
//
// Ownership: each object owns its connection. Thread-safety: PostgresConnection as
// SqlConnection (sql_connection.h); a PostgresListener is used by one thread.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cannbot/store/sql_connection.h"
#include "cannbot/util/status.h"

struct pg_conn;

namespace cannbot::store {

// True for "postgresql://..." and "postgres://..." (libpq's URI forms).
bool IsPostgresUrl(const std::string& location);

class PostgresConnection : public SqlConnection {
 public:
  // `migrations[i]` brings the schema from version i to i+1. Errors name the server (never
  // the password) and libpq's reason: Unavailable when it cannot be reached.
  static Result<std::unique_ptr<PostgresConnection>> Open(
      const std::string& url, const std::vector<std::string>& migrations);
  ~PostgresConnection() override;
  PostgresConnection(const PostgresConnection&) = delete;
  PostgresConnection& operator=(const PostgresConnection&) = delete;

  Status Execute(const std::string& sql, const std::vector<Value>& params = {}) override;
  Status ExecuteScript(const std::string& sql) override;
  Result<std::vector<Row>> Query(const std::string& sql,
                                 const std::vector<Value>& params = {}) override;
  Status Begin() override;
  Status Commit() override;
  void Rollback() override;
  Status Notify(const std::string& channel, const std::string& payload) override;
  Dialect dialect() const override { return Dialect::kPostgres; }
  int schema_version() const override { return schema_version_; }
  std::string Describe() const override { return where_; }

 private:
  PostgresConnection(pg_conn* conn, std::string url, std::string where)
      : conn_(conn), url_(std::move(url)), where_(std::move(where)) {}
  Status Migrate(const std::vector<std::string>& migrations);
  Result<std::vector<Row>> Run(const std::string& sql, const std::vector<Value>& params);
  Result<std::vector<Row>> RunOnce(const std::string& sql, const std::vector<Value>& params);

  pg_conn* conn_;
  std::string url_;
  std::string where_;
  bool in_transaction_ = false;
  int schema_version_ = 0;
  std::mutex mutex_;
};

class PostgresListener {
 public:
  static Result<std::unique_ptr<PostgresListener>> Open(const std::string& url,
                                                        const std::string& channel);
  ~PostgresListener();
  PostgresListener(const PostgresListener&) = delete;
  PostgresListener& operator=(const PostgresListener&) = delete;

  // Payloads that arrived, waiting up to `timeout` for the first. Unavailable while the
  // server cannot be reached (the next call tries to reconnect); the caller should then
  // assume it missed notifications.
  Result<std::vector<std::string>> Wait(std::chrono::milliseconds timeout);

 private:
  PostgresListener(pg_conn* conn, std::string url, std::string channel)
      : conn_(conn), url_(std::move(url)), channel_(std::move(channel)) {}
  Status Subscribe();

  pg_conn* conn_;
  std::string url_;
  std::string channel_;
};

}  // namespace cannbot::store
