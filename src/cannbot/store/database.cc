#include "cannbot/store/database.h"

#include <sqlite3.h>

namespace cannbot::store {
namespace {

Status SqliteError(sqlite3* db, const std::string& doing) {
  return Status::IoError(doing + ": " + sqlite3_errmsg(db));
}

Status Bind(sqlite3* db, sqlite3_stmt* stmt, const std::vector<Value>& params) {
  for (size_t i = 0; i < params.size(); ++i) {
    const int index = static_cast<int>(i + 1);
    const Value& v = params[i];
    int rc = SQLITE_OK;
    if (std::holds_alternative<std::nullptr_t>(v)) {
      rc = sqlite3_bind_null(stmt, index);
    } else if (auto* n = std::get_if<int64_t>(&v)) {
      rc = sqlite3_bind_int64(stmt, index, *n);
    } else if (auto* d = std::get_if<double>(&v)) {
      rc = sqlite3_bind_double(stmt, index, *d);
    } else if (auto* s = std::get_if<std::string>(&v)) {
      rc = sqlite3_bind_text(stmt, index, s->data(), static_cast<int>(s->size()),
                             SQLITE_TRANSIENT);
    } else if (auto* b = std::get_if<Blob>(&v)) {
      rc = sqlite3_bind_blob(stmt, index, b->bytes.data(), static_cast<int>(b->bytes.size()),
                             SQLITE_TRANSIENT);
    }
    if (rc != SQLITE_OK) return SqliteError(db, "binding parameter " + std::to_string(index));
  }
  return Status::Ok();
}

Value ColumnValue(sqlite3_stmt* stmt, int i) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER: return static_cast<int64_t>(sqlite3_column_int64(stmt, i));
    case SQLITE_FLOAT: return sqlite3_column_double(stmt, i);
    case SQLITE_TEXT:
      return std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, i)),
                         static_cast<size_t>(sqlite3_column_bytes(stmt, i)));
    case SQLITE_BLOB: {
      const void* data = sqlite3_column_blob(stmt, i);
      int size = sqlite3_column_bytes(stmt, i);
      return Blob{std::string(static_cast<const char*>(data), static_cast<size_t>(size))};
    }
    default: return nullptr;
  }
}

}  // namespace

Result<std::unique_ptr<Database>> Database::Open(const std::string& path,
                                                 const std::vector<std::string>& migrations) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Status::IoError("cannot open the store " + path + ": " + why);
  }
  std::unique_ptr<Database> database(new Database(db, path));
  sqlite3_busy_timeout(db, 5000);
  CANNBOT_RETURN_IF_ERROR(database->Execute("PRAGMA journal_mode=WAL")
                              .WithContext("opening the store " + path));
  CANNBOT_RETURN_IF_ERROR(database->Execute("PRAGMA synchronous=NORMAL"));
  CANNBOT_RETURN_IF_ERROR(database->Execute("PRAGMA foreign_keys=ON"));
  CANNBOT_RETURN_IF_ERROR(database->Migrate(migrations).WithContext("migrating " + path));
  return database;
}

Database::~Database() { sqlite3_close(db_); }

Status Database::Migrate(const std::vector<std::string>& migrations) {
  // The version is read under the write lock: another process may migrate the same file
  // between our open and our first write.
  CANNBOT_RETURN_IF_ERROR(Execute("BEGIN IMMEDIATE"));
  auto rows = Query("PRAGMA user_version");
  if (!rows.ok()) {
    (void)Execute("ROLLBACK");
    return rows.status();
  }
  const int version = rows->empty() ? 0 : static_cast<int>(IntAt((*rows)[0], 0));
  if (version > static_cast<int>(migrations.size())) {
    (void)Execute("ROLLBACK");
    return Status::InvalidArgument("the store has schema version " + std::to_string(version) +
                                   ", newer than this cannbot understands (" +
                                   std::to_string(migrations.size()) + ")");
  }
  for (size_t v = static_cast<size_t>(version); v < migrations.size(); ++v) {
    Status s = ExecuteScript(migrations[v]);
    if (s.ok()) s = Execute("PRAGMA user_version=" + std::to_string(v + 1));
    if (!s.ok()) {
      (void)Execute("ROLLBACK");
      return s.WithContext("schema version " + std::to_string(v + 1));
    }
  }
  CANNBOT_RETURN_IF_ERROR(Execute("COMMIT"));
  schema_version_ = static_cast<int>(migrations.size());
  return Status::Ok();
}

Status Database::ExecuteScript(const std::string& sql) {
  std::lock_guard<std::mutex> lock(mutex_);
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string why = error ? error : "unknown error";
    sqlite3_free(error);
    return Status::IoError(why);
  }
  return Status::Ok();
}

Status Database::Execute(const std::string& sql, const std::vector<Value>& params) {
  auto rows = Run(sql, params);
  return rows.ok() ? Status::Ok() : rows.status();
}

Result<std::vector<Row>> Database::Query(const std::string& sql,
                                         const std::vector<Value>& params) {
  return Run(sql, params);
}

Result<std::vector<Row>> Database::Run(const std::string& sql, const std::vector<Value>& params) {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(db_, "preparing a statement");
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(stmt, sqlite3_finalize);
  CANNBOT_RETURN_IF_ERROR(Bind(db_, stmt, params));
  std::vector<Row> rows;
  while (true) {
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return SqliteError(db_, "running a statement");
    Row row;
    int columns = sqlite3_column_count(stmt);
    for (int i = 0; i < columns; ++i) row.push_back(ColumnValue(stmt, i));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string TextAt(const Row& row, size_t i) {
  if (i >= row.size()) return "";
  if (auto* s = std::get_if<std::string>(&row[i])) return *s;
  if (auto* b = std::get_if<Blob>(&row[i])) return b->bytes;
  return "";
}

int64_t IntAt(const Row& row, size_t i, int64_t fallback) {
  if (i >= row.size()) return fallback;
  if (auto* n = std::get_if<int64_t>(&row[i])) return *n;
  if (auto* d = std::get_if<double>(&row[i])) return static_cast<int64_t>(*d);
  return fallback;
}

double DoubleAt(const Row& row, size_t i, double fallback) {
  if (i >= row.size()) return fallback;
  if (auto* d = std::get_if<double>(&row[i])) return *d;
  if (auto* n = std::get_if<int64_t>(&row[i])) return static_cast<double>(*n);
  return fallback;
}

}  // namespace cannbot::store
