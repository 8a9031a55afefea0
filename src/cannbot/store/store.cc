#include "cannbot/store/store.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace cannbot::store {
namespace {

// Schema history; append only. Version i+1 is reached by running kMigrations[i].
const std::vector<std::string>& Migrations() {
  static const std::vector<std::string> kMigrations = {
      R"sql(
CREATE TABLE compile_cache (
  key TEXT PRIMARY KEY,
  ok INTEGER NOT NULL,
  shared_object BLOB,
  log TEXT NOT NULL,
  reason TEXT NOT NULL,
  seconds REAL NOT NULL,
  created_at INTEGER NOT NULL DEFAULT (strftime('%s','now'))
);
CREATE TABLE machine_models (
  machine_id TEXT PRIMARY KEY,
  model_json TEXT NOT NULL,
  measured_at INTEGER NOT NULL DEFAULT (strftime('%s','now'))
);
)sql",
      R"sql(
CREATE TABLE tuned_kernels (
  key TEXT PRIMARY KEY,
  recipe TEXT NOT NULL,
  params TEXT NOT NULL,
  code TEXT NOT NULL,
  speedup REAL NOT NULL,
  tuned_at INTEGER NOT NULL DEFAULT (strftime('%s','now'))
);
)sql",
      // The daemon's jobs (service/job_store.h). A job row is written before the job is
      // acknowledged and every attempt and progress event as it happens, so a crash loses
      // nothing that was accepted.
      R"sql(
CREATE TABLE jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL,
  op TEXT NOT NULL,
  spec_json TEXT NOT NULL,
  request_id TEXT NOT NULL DEFAULT '',
  runs INTEGER NOT NULL DEFAULT 0,
  error_code TEXT NOT NULL DEFAULT '',
  error_message TEXT NOT NULL DEFAULT '',
  found INTEGER NOT NULL DEFAULT 0,
  speedup REAL,
  report_json TEXT,
  report_text TEXT,
  created_at REAL NOT NULL,
  started_at REAL,
  finished_at REAL
);
CREATE INDEX jobs_by_state ON jobs (state, seq);
CREATE TABLE job_attempts (
  job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  run INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  attempt_json TEXT NOT NULL,
  created_at REAL NOT NULL,
  PRIMARY KEY (job_id, run, idx)
);
CREATE TABLE job_events (
  job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  type TEXT NOT NULL,
  data_json TEXT NOT NULL,
  created_at REAL NOT NULL,
  PRIMARY KEY (job_id, seq)
);
CREATE TABLE idempotency_keys (
  key TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  request_hash TEXT NOT NULL,
  created_at REAL NOT NULL
);
)sql",
      // The compile cache's size and recency, for its limits (StoreOptions). A table of its
      // own: updating a compile_cache row on every hit would rewrite its object. last_used
      // is a use counter, not a time: it orders uses exactly, where clock readings tie.
      // Triggers keep it in step with compile_cache within each statement.
      R"sql(
CREATE TABLE compile_cache_use (
  key TEXT PRIMARY KEY,
  bytes INTEGER NOT NULL,
  last_used INTEGER NOT NULL
);
CREATE INDEX compile_cache_use_by_last_used ON compile_cache_use (last_used);
INSERT INTO compile_cache_use (key, bytes, last_used)
  SELECT key, COALESCE(length(shared_object), 0) + length(CAST(log AS BLOB)) +
              length(CAST(reason AS BLOB)), rowid
  FROM compile_cache;
CREATE TRIGGER compile_cache_inserted AFTER INSERT ON compile_cache BEGIN
  INSERT OR REPLACE INTO compile_cache_use (key, bytes, last_used) VALUES (
    NEW.key,
    COALESCE(length(NEW.shared_object), 0) + length(CAST(NEW.log AS BLOB)) +
        length(CAST(NEW.reason AS BLOB)),
    (SELECT COALESCE(MAX(last_used), 0) + 1 FROM compile_cache_use));
END;
CREATE TRIGGER compile_cache_deleted AFTER DELETE ON compile_cache BEGIN
  DELETE FROM compile_cache_use WHERE key = OLD.key;
END;
)sql",
      // Queue order and leases (service/job_store.h): the same columns as the PostgreSQL
      // job store's, so one JobStore runs on both.
      R"sql(
ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN lease_owner TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN lease_until REAL NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
)sql",
  };
  return kMigrations;
}

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return (value && *value) ? value : fallback;
}

}  // namespace

std::string Store::DefaultPath() {
  std::string home = EnvOr("CANNBOT_HOME", "");
  if (home.empty()) {
    std::string cache = EnvOr("XDG_CACHE_HOME", EnvOr("HOME", "/tmp") + "/.cache");
    home = cache + "/cannbot";
  }
  return home + "/cannbot.db";
}

Result<std::unique_ptr<Store>> Store::Open(const std::string& path, const StoreOptions& options) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code error;
    std::filesystem::create_directories(parent, error);
    if (error) {
      return Status::IoError("cannot create the store directory " + parent.string() + ": " +
                             error.message());
    }
  }
  auto db = Database::Open(path, Migrations());
  if (!db.ok()) return db.status();
  return std::unique_ptr<Store>(new Store(std::move(db).value(), options));
}

Result<std::optional<CompiledEntry>> Store::FindCompiled(const std::string& key) {
  auto rows = db_->Query(
      "SELECT ok, shared_object, log, reason, seconds FROM compile_cache WHERE key = ?", {key});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return std::optional<CompiledEntry>();
  const Row& row = (*rows)[0];
  CompiledEntry entry;
  entry.ok = IntAt(row, 0) != 0;
  entry.shared_object = TextAt(row, 1);
  entry.log = TextAt(row, 2);
  entry.reason = TextAt(row, 3);
  entry.seconds = DoubleAt(row, 4);
  // A hit that cannot be recorded (a busy or read-only store) is still a hit.
  (void)db_->Execute(
      "UPDATE compile_cache_use SET last_used = "
      "(SELECT MAX(last_used) + 1 FROM compile_cache_use) WHERE key = ?",
      {key});
  return std::optional<CompiledEntry>(std::move(entry));
}

Status Store::PutCompiled(const std::string& key, const CompiledEntry& entry) {
  if (entry.shared_object.size() > options_.max_object_bytes) return Status::Ok();
  CANNBOT_RETURN_IF_ERROR(db_->Execute(
      "INSERT OR REPLACE INTO compile_cache (key, ok, shared_object, log, reason, seconds) "
      "VALUES (?, ?, ?, ?, ?, ?)",
      {key, int64_t{entry.ok ? 1 : 0}, Blob{entry.shared_object}, entry.log, entry.reason,
       entry.seconds}));
  // Keeps the most recently used entries whose sizes add up to at most the cap: the same
  // as evicting the least recently used one by one. One statement, so it is atomic.
  return db_->Execute(
      "DELETE FROM compile_cache WHERE key IN (SELECT key FROM ("
      "  SELECT key, SUM(bytes) OVER (ORDER BY last_used DESC ROWS UNBOUNDED PRECEDING) AS kept"
      "  FROM compile_cache_use) WHERE kept > ?)",
      {static_cast<int64_t>(std::min<size_t>(options_.max_cache_bytes, INT64_MAX))});
}

Result<std::optional<TunedKernel>> Store::FindTuned(const std::string& key) {
  auto rows = db_->Query("SELECT recipe, params, code, speedup FROM tuned_kernels WHERE key = ?",
                         {key});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return std::optional<TunedKernel>();
  const Row& row = (*rows)[0];
  return std::optional<TunedKernel>(
      TunedKernel{TextAt(row, 0), TextAt(row, 1), TextAt(row, 2), DoubleAt(row, 3)});
}

Status Store::PutTuned(const std::string& key, const TunedKernel& tuned) {
  return db_->Execute(
      "INSERT OR REPLACE INTO tuned_kernels (key, recipe, params, code, speedup) "
      "VALUES (?, ?, ?, ?, ?)",
      {key, tuned.recipe, tuned.params, tuned.code, tuned.speedup});
}

Result<std::optional<std::string>> Store::FindMachineModel(const std::string& machine_id) {
  auto rows =
      db_->Query("SELECT model_json FROM machine_models WHERE machine_id = ?", {machine_id});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return std::optional<std::string>();
  return std::optional<std::string>(TextAt((*rows)[0], 0));
}

Status Store::PutMachineModel(const std::string& machine_id, const std::string& json) {
  return db_->Execute(
      "INSERT OR REPLACE INTO machine_models (machine_id, model_json) VALUES (?, ?)",
      {machine_id, json});
}

}  // namespace cannbot::store
