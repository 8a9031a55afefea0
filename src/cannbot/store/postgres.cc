#include "cannbot/store/postgres.h"

#include <libpq-fe.h>
#include <poll.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace cannbot::store {
namespace {

// Type OIDs of PostgreSQL's built-in types (pg_type.dat); they are fixed.
constexpr Oid kBool = 16, kBytea = 17, kInt8 = 20, kInt2 = 21, kInt4 = 23, kText = 25;
constexpr Oid kFloat4 = 700, kFloat8 = 701, kNumeric = 1700;

// One key for pg_advisory_xact_lock while migrating ("cannbot" in ASCII).
constexpr int64_t kMigrationLock = 0x63616e6e626f74;

std::string Trimmed(const char* text) {
  std::string s = text ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// "postgresql host:port/db" from a live connection (the password never appears).
std::string Where(pg_conn* conn) {
  std::string host = PQhost(conn) ? PQhost(conn) : "?";
  std::string port = PQport(conn) ? PQport(conn) : "?";
  std::string db = PQdb(conn) ? PQdb(conn) : "?";
  return "postgresql " + host + ":" + port + "/" + db;
}

// The same for a URL that did not connect: strip any user:password@.
std::string WhereUrl(const std::string& url) {
  std::string rest = url.substr(url.find("://") + 3);
  const size_t at = rest.rfind('@', rest.find('/'));
  if (at != std::string::npos) rest = rest.substr(at + 1);
  const size_t query = rest.find('?');
  if (query != std::string::npos) rest = rest.substr(0, query);
  return "postgresql " + rest;
}

// `?` -> $1, $2, ... outside quoted literals and identifiers.
std::string Numbered(const std::string& sql) {
  std::string out;
  out.reserve(sql.size() + 8);
  char quote = 0;
  int n = 0;
  for (char c : sql) {
    if (quote) {
      if (c == quote) quote = 0;
      out += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      out += c;
    } else if (c == '?') {
      out += "$" + std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

std::string DoubleText(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", d);
  return text;
}

// Parameters as libpq takes them: text except for bytea, which goes as binary.
struct Params {
  std::vector<Oid> types;
  std::vector<std::string> texts;
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;

  explicit Params(const std::vector<Value>& params) {
    texts.resize(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      const Value& v = params[i];
      Oid type = 0;
      int format = 0;
      bool null = false;
      if (std::holds_alternative<std::nullptr_t>(v)) {
        null = true;
      } else if (auto* n = std::get_if<int64_t>(&v)) {
        type = kInt8;
        texts[i] = std::to_string(*n);
      } else if (auto* d = std::get_if<double>(&v)) {
        type = kFloat8;
        texts[i] = DoubleText(*d);
      } else if (auto* s = std::get_if<std::string>(&v)) {
        type = kText;
        texts[i] = *s;
      } else if (auto* b = std::get_if<Blob>(&v)) {
        type = kBytea;
        format = 1;
        texts[i] = b->bytes;
      }
      types.push_back(type);
      values.push_back(null ? nullptr : texts[i].data());
      lengths.push_back(static_cast<int>(texts[i].size()));
      formats.push_back(format);
    }
  }
};

Value Cell(PGresult* result, int row, int column) {
  if (PQgetisnull(result, row, column)) return nullptr;
  const char* text = PQgetvalue(result, row, column);
  const int length = PQgetlength(result, row, column);
  switch (PQftype(result, column)) {
    case kInt8: case kInt4: case kInt2: return static_cast<int64_t>(std::strtoll(text, nullptr, 10));
    case kBool: return static_cast<int64_t>(text[0] == 't' ? 1 : 0);
    case kFloat4: case kFloat8: case kNumeric: return std::strtod(text, nullptr);
    case kBytea: {
      size_t size = 0;
      unsigned char* bytes = PQunescapeBytea(reinterpret_cast<const unsigned char*>(text), &size);
      Blob blob{std::string(reinterpret_cast<const char*>(bytes), size)};
      PQfreemem(bytes);
      return blob;
    }
    default: return std::string(text, static_cast<size_t>(length));
  }
}

}  // namespace

bool IsPostgresUrl(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

Result<std::unique_ptr<PostgresConnection>> PostgresConnection::Open(
    const std::string& url, const std::vector<std::string>& migrations) {
  pg_conn* conn = PQconnectdb(url.c_str());
  if (conn == nullptr) return Status::Internal("libpq could not allocate a connection");
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string why = Trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    return Status::Unavailable("cannot reach the store at " + WhereUrl(url) + ": " + why);
  }
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);  // NOTICEs are not errors
  std::unique_ptr<PostgresConnection> c(new PostgresConnection(conn, url, Where(conn)));
  CANNBOT_RETURN_IF_ERROR(c->Migrate(migrations).WithContext("migrating " + c->where_));
  return c;
}

PostgresConnection::~PostgresConnection() { PQfinish(conn_); }

Status PostgresConnection::Migrate(const std::vector<std::string>& migrations) {
  CANNBOT_RETURN_IF_ERROR(Begin());
  auto body = [&]() -> Status {
    CANNBOT_RETURN_IF_ERROR(Execute("SELECT pg_advisory_xact_lock(?)", {kMigrationLock}));
    CANNBOT_RETURN_IF_ERROR(
        Execute("CREATE TABLE IF NOT EXISTS cannbot_schema (version INTEGER NOT NULL)"));
    CANNBOT_ASSIGN_OR_RETURN(std::vector<Row> rows,
                             Query("SELECT COALESCE(MAX(version), 0) FROM cannbot_schema"));
    const int version = rows.empty() ? 0 : static_cast<int>(IntAt(rows[0], 0));
    if (version > static_cast<int>(migrations.size())) {
      return Status::InvalidArgument(
          "the store has schema version " + std::to_string(version) +
          ", newer than this cannbot understands (" + std::to_string(migrations.size()) +
          "); upgrade cannbot, a store is never migrated down");
    }
    for (size_t v = static_cast<size_t>(version); v < migrations.size(); ++v) {
      Status s = ExecuteScript(migrations[v]);
      if (s.ok()) s = Execute("DELETE FROM cannbot_schema");
      if (s.ok()) s = Execute("INSERT INTO cannbot_schema (version) VALUES (?)", {int64_t(v + 1)});
      if (!s.ok()) return s.WithContext("schema version " + std::to_string(v + 1));
    }
    return Status::Ok();
  };
  Status s = body();
  if (!s.ok()) {
    Rollback();
    return s;
  }
  CANNBOT_RETURN_IF_ERROR(Commit());
  schema_version_ = static_cast<int>(migrations.size());
  return Status::Ok();
}

Status PostgresConnection::Begin() {
  CANNBOT_RETURN_IF_ERROR(Execute("BEGIN"));
  std::lock_guard<std::mutex> lock(mutex_);
  in_transaction_ = true;
  return Status::Ok();
}

Status PostgresConnection::Commit() {
  Status s = Execute("COMMIT");
  std::lock_guard<std::mutex> lock(mutex_);
  in_transaction_ = false;
  return s;
}

void PostgresConnection::Rollback() {
  (void)Execute("ROLLBACK");
  std::lock_guard<std::mutex> lock(mutex_);
  in_transaction_ = false;
}

Status PostgresConnection::Notify(const std::string& channel, const std::string& payload) {
  return Execute("SELECT pg_notify(?, ?)", {channel, payload});
}

Status PostgresConnection::ExecuteScript(const std::string& sql) {
  std::lock_guard<std::mutex> lock(mutex_);
  PGresult* result = PQexec(conn_, sql.c_str());
  const ExecStatusType status = PQresultStatus(result);
  PQclear(result);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return Status::Ok();
  return Status::IoError(Trimmed(PQerrorMessage(conn_)));
}

Status PostgresConnection::Execute(const std::string& sql, const std::vector<Value>& params) {
  return Run(sql, params).status();
}

Result<std::vector<Row>> PostgresConnection::Query(const std::string& sql,
                                                   const std::vector<Value>& params) {
  return Run(sql, params);
}

Result<std::vector<Row>> PostgresConnection::Run(const std::string& sql,
                                                 const std::vector<Value>& params) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (PQstatus(conn_) != CONNECTION_OK && !in_transaction_) PQreset(conn_);
  Result<std::vector<Row>> rows = RunOnce(sql, params);
  if (rows.ok() || PQstatus(conn_) == CONNECTION_OK) return rows;
  // The server dropped us (a restart). Outside a transaction the statement can simply run
  // again on a new connection; inside one its earlier statements are gone, so it fails.
  if (in_transaction_) {
    in_transaction_ = false;
    return Status::Unavailable("lost the connection to " + where_ + " in a transaction: " +
                               rows.status().message());
  }
  PQreset(conn_);
  if (PQstatus(conn_) != CONNECTION_OK) {
    return Status::Unavailable("cannot reach the store at " + where_ + ": " +
                               Trimmed(PQerrorMessage(conn_)));
  }
  return RunOnce(sql, params);
}

Result<std::vector<Row>> PostgresConnection::RunOnce(const std::string& sql,
                                                     const std::vector<Value>& params) {
  Params p(params);
  PGresult* result = PQexecParams(conn_, Numbered(sql).c_str(), static_cast<int>(params.size()),
                                  p.types.data(), p.values.data(), p.lengths.data(),
                                  p.formats.data(), 0);
  std::unique_ptr<PGresult, void (*)(PGresult*)> guard(result, PQclear);
  const ExecStatusType status = PQresultStatus(result);
  if (status == PGRES_COMMAND_OK) return std::vector<Row>();
  if (status != PGRES_TUPLES_OK) {
    std::string why = Trimmed(PQresultErrorMessage(result));
    if (why.empty()) why = Trimmed(PQerrorMessage(conn_));
    if (PQstatus(conn_) != CONNECTION_OK) return Status::Unavailable(where_ + ": " + why);
    return Status::IoError(why);
  }
  std::vector<Row> rows;
  const int columns = PQnfields(result);
  for (int r = 0; r < PQntuples(result); ++r) {
    Row row;
    for (int c = 0; c < columns; ++c) row.push_back(Cell(result, r, c));
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<std::unique_ptr<PostgresListener>> PostgresListener::Open(const std::string& url,
                                                                 const std::string& channel) {
  pg_conn* conn = PQconnectdb(url.c_str());
  if (conn == nullptr) return Status::Internal("libpq could not allocate a connection");
  std::unique_ptr<PostgresListener> listener(new PostgresListener(conn, url, channel));
  if (PQstatus(conn) != CONNECTION_OK) {
    return Status::Unavailable("cannot reach the store at " + WhereUrl(url) + ": " +
                               Trimmed(PQerrorMessage(conn)));
  }
  CANNBOT_RETURN_IF_ERROR(listener->Subscribe());
  return listener;
}

PostgresListener::~PostgresListener() { PQfinish(conn_); }

Status PostgresListener::Subscribe() {
  // The channel is cannbot's own constant, never user input; quoted as an identifier anyway.
  char* quoted = PQescapeIdentifier(conn_, channel_.data(), channel_.size());
  if (quoted == nullptr) return Status::Unavailable(Trimmed(PQerrorMessage(conn_)));
  PGresult* result = PQexec(conn_, ("LISTEN " + std::string(quoted)).c_str());
  PQfreemem(quoted);
  const bool ok = PQresultStatus(result) == PGRES_COMMAND_OK;
  PQclear(result);
  if (!ok) return Status::Unavailable("LISTEN: " + Trimmed(PQerrorMessage(conn_)));
  return Status::Ok();
}

Result<std::vector<std::string>> PostgresListener::Wait(std::chrono::milliseconds timeout) {
  if (PQstatus(conn_) != CONNECTION_OK) {
    PQreset(conn_);
    if (PQstatus(conn_) != CONNECTION_OK) {
      return Status::Unavailable("the store's notifications: " + Trimmed(PQerrorMessage(conn_)));
    }
    CANNBOT_RETURN_IF_ERROR(Subscribe());
  }
  std::vector<std::string> payloads;
  auto drain = [&] {
    while (PGnotify* n = PQnotifies(conn_)) {
      payloads.push_back(n->extra ? n->extra : "");
      PQfreemem(n);
    }
  };
  drain();
  if (!payloads.empty()) return payloads;
  pollfd fd{PQsocket(conn_), POLLIN, 0};
  if (fd.fd < 0) return Status::Unavailable("the store's notification connection is closed");
  if (poll(&fd, 1, static_cast<int>(timeout.count())) > 0) {
    if (PQconsumeInput(conn_) == 0) {
      return Status::Unavailable("the store's notifications: " + Trimmed(PQerrorMessage(conn_)));
    }
    drain();
  }
  return payloads;
}

}  // namespace cannbot::store
