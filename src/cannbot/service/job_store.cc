#include "cannbot/service/job_store.h"

#include <chrono>
#include <random>

#include "cannbot/service/job_schema.h"
#include "cannbot/service/requests.h"
#include "cannbot/store/postgres.h"
#include "cannbot/util/hash.h"

namespace cannbot::service {
namespace {

using Json = nlohmann::json;
using store::DoubleAt;
using store::IntAt;
using store::Row;
using store::TextAt;
using store::Value;

double SystemNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string NewJobId() {
  std::random_device device;
  std::uniform_int_distribution<uint64_t> any;
  char text[24];
  std::snprintf(text, sizeof(text), "j-%016llx", static_cast<unsigned long long>(any(device)));
  return text;
}

Value OptionalDouble(const std::optional<double>& v) {
  return v ? Value(*v) : Value(nullptr);
}

std::string Dump(const Json& json) {
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

constexpr const char* kJobColumns =
    "id, state, op, request_id, runs, error_code, error_message, found, speedup, created_at, "
    "started_at, finished_at";

// A row of kJobColumns, optionally followed by spec_json, report_json, report_text.
JobRecord RecordFrom(const Row& row, bool full) {
  JobRecord r;
  r.id = TextAt(row, 0);
  r.state = ParseState(TextAt(row, 1)).value_or(JobState::kFailed);
  r.spec.op = TextAt(row, 2);
  r.request_id = TextAt(row, 3);
  r.runs = static_cast<int>(IntAt(row, 4));
  r.error_code = TextAt(row, 5);
  r.error_message = TextAt(row, 6);
  r.found = IntAt(row, 7) != 0;
  if (std::holds_alternative<double>(row[8]) || std::holds_alternative<int64_t>(row[8])) {
    r.speedup = DoubleAt(row, 8);
  }
  r.created_at = DoubleAt(row, 9);
  r.started_at = DoubleAt(row, 10);
  r.finished_at = DoubleAt(row, 11);
  if (!full) return r;
  Json spec = Json::parse(TextAt(row, 12), nullptr, false);
  if (!spec.is_discarded()) {
    auto parsed = ParseJobSpec(spec);
    if (parsed.ok()) r.spec = std::move(parsed).value();
  }
  const std::string report = TextAt(row, 13);
  if (!report.empty()) {
    Json parsed = Json::parse(report, nullptr, false);
    if (!parsed.is_discarded()) r.report = std::move(parsed);
  }
  r.report_text = TextAt(row, 14);
  return r;
}

}  // namespace

JobStore::JobStore(std::unique_ptr<store::Store> local,
                   std::unique_ptr<store::SqlConnection> remote, Clock clock)
    : local_(std::move(local)),
      remote_(std::move(remote)),
      db_(local_ ? static_cast<store::SqlConnection*>(&local_->database()) : remote_.get()),
      clock_(std::move(clock)) {}

Result<std::unique_ptr<JobStore>> JobStore::Open(const std::string& location, Clock clock) {
  if (!clock) clock = SystemNow;
  if (store::IsPostgresUrl(location)) {
    CANNBOT_ASSIGN_OR_RETURN(
        std::unique_ptr<store::PostgresConnection> server,
        store::PostgresConnection::Open(location, PostgresJobMigrations()));
    return std::unique_ptr<JobStore>(new JobStore(nullptr, std::move(server), std::move(clock)));
  }
  CANNBOT_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> opened, store::Store::Open(location));
  return std::unique_ptr<JobStore>(new JobStore(std::move(opened), nullptr, std::move(clock)));
}

Status JobStore::InTransaction(const std::function<Status()>& body) {
  CANNBOT_RETURN_IF_ERROR(db().Begin());
  Status s = body();
  if (s.ok()) s = db().Commit();
  if (!s.ok()) db().Rollback();
  return s;
}

std::string JobStore::SkipLocked() const {
  return shared() ? " FOR UPDATE SKIP LOCKED" : "";
}

Result<int64_t> JobStore::AppendEventLocked(const std::string& id, const std::string& type,
                                            const Json& data) {
  // Numbers are MAX + 1: on a shared store, lock the job's row so that two machines
  // appending to one job (a worker, a front end cancelling) take turns.
  if (shared()) {
    CANNBOT_RETURN_IF_ERROR(db().Execute("SELECT id FROM jobs WHERE id = ? FOR UPDATE", {id}));
  }
  CANNBOT_ASSIGN_OR_RETURN(
      std::vector<Row> rows,
      db().Query("INSERT INTO job_events (job_id, seq, type, data_json, created_at) "
                 "SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? FROM job_events WHERE job_id = ? "
                 "RETURNING seq",
                 {id, type, Dump(data), clock_(), id}));
  if (rows.empty()) return Status::Internal("no event number for job " + id);
  CANNBOT_RETURN_IF_ERROR(db().Notify(kJobsChannel, id));
  return IntAt(rows[0], 0);
}

Result<Submission> JobStore::Create(const JobSpec& spec, const std::string& request_id,
                                    const std::string& idempotency_key,
                                    const std::string& owner) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string spec_json = Dump(spec.ToJson());
  const std::string hash = Sha256Hex(spec_json);
  Submission submission;
  Status s = InTransaction([&]() -> Status {
    if (!idempotency_key.empty()) {
      CANNBOT_ASSIGN_OR_RETURN(
          std::vector<Row> seen,
          db().Query("SELECT job_id, request_hash FROM idempotency_keys WHERE key = ?",
                     {idempotency_key}));
      if (!seen.empty()) {
        submission.job_id = TextAt(seen[0], 0);
        submission.existing = true;
        submission.conflict = TextAt(seen[0], 1) != hash;
        return Status::Ok();
      }
    }
    submission.job_id = NewJobId();
    CANNBOT_RETURN_IF_ERROR(db().Execute(
        "INSERT INTO jobs (id, state, op, spec_json, request_id, created_at, priority, owner) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        {submission.job_id, StateName(JobState::kQueued), spec.op, spec_json, request_id,
         clock_(), int64_t{spec.options.priority.value_or(0)}, owner}));
    if (!idempotency_key.empty()) {
      CANNBOT_RETURN_IF_ERROR(db().Execute(
          "INSERT INTO idempotency_keys (key, job_id, request_hash, created_at) "
          "VALUES (?, ?, ?, ?)",
          {idempotency_key, submission.job_id, hash, clock_()}));
    }
    return AppendEventLocked(submission.job_id, "queued", {{"op", spec.op}}).status();
  });
  if (!s.ok()) return s.WithContext("storing a job");
  return submission;
}

Result<std::optional<Submission>> JobStore::FindByKey(const std::string& key,
                                                      const JobSpec& spec) {
  std::lock_guard<std::mutex> lock(mutex_);
  CANNBOT_ASSIGN_OR_RETURN(
      std::vector<Row> seen,
      db().Query("SELECT job_id, request_hash FROM idempotency_keys WHERE key = ?", {key}));
  if (seen.empty()) return std::optional<Submission>();
  Submission found;
  found.job_id = TextAt(seen[0], 0);
  found.existing = true;
  found.conflict = TextAt(seen[0], 1) != Sha256Hex(Dump(spec.ToJson()));
  return std::optional<Submission>(found);
}

Result<std::optional<JobRecord>> JobStore::Get(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  CANNBOT_ASSIGN_OR_RETURN(
      std::vector<Row> rows,
      db().Query(std::string("SELECT ") + kJobColumns +
                     ", spec_json, report_json, report_text FROM jobs WHERE id = ?",
                 {id}));
  if (rows.empty()) return std::optional<JobRecord>();
  return std::optional<JobRecord>(RecordFrom(rows[0], true));
}

Result<std::optional<JobState>> JobStore::StateOf(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  CANNBOT_ASSIGN_OR_RETURN(std::vector<Row> rows,
                           db().Query("SELECT state FROM jobs WHERE id = ?", {id}));
  if (rows.empty()) return std::optional<JobState>();
  return ParseState(TextAt(rows[0], 0));
}

Result<std::vector<JobRecord>> JobStore::List(std::optional<JobState> state, int limit) {
  std::lock_guard<std::mutex> lock(mutex_);
  // "state = ?" or a condition that is always true, so the parameters are fixed.
  const std::string sql = std::string("SELECT ") + kJobColumns +
                          " FROM jobs WHERE (? = '' OR state = ?) ORDER BY seq DESC LIMIT ?";
  const std::string wanted = state ? StateName(*state) : "";
  CANNBOT_ASSIGN_OR_RETURN(std::vector<Row> rows,
                           db().Query(sql, {wanted, wanted, int64_t{limit}}));
  std::vector<JobRecord> out;
  for (const Row& row : rows) out.push_back(RecordFrom(row, false));
  return out;
}

Result<std::vector<std::string>> JobStore::Unfinished() {
  std::lock_guard<std::mutex> lock(mutex_);
  CANNBOT_ASSIGN_OR_RETURN(
      std::vector<Row> rows,
      db().Query("SELECT id FROM jobs WHERE state IN ('queued', 'running') ORDER BY seq"));
  std::vector<std::string> ids;
  for (const Row& row : rows) ids.push_back(TextAt(row, 0));
  return ids;
}

Result<std::map<std::string, int64_t>> JobStore::CountByState() {
  std::lock_guard<std::mutex> lock(mutex_);
  CANNBOT_ASSIGN_OR_RETURN(std::vector<Row> rows,
                           db().Query("SELECT state, COUNT(*) FROM jobs GROUP BY state"));
  std::map<std::string, int64_t> counts;
  for (const Row& row : rows) counts[TextAt(row, 0)] = IntAt(row, 1);
  return counts;
}

Result<bool> JobStore::Start(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  bool started = false;
  Status s = InTransaction([&]() -> Status {
    CANNBOT_ASSIGN_OR_RETURN(
        std::vector<Row> rows,
        db().Query("UPDATE jobs SET state = 'running', runs = runs + 1, started_at = ? "
                   "WHERE id = ? AND state = 'queued' RETURNING runs",
                   {clock_(), id}));
    if (rows.empty()) return Status::Ok();
    started = true;
    return AppendEventLocked(id, "started", {{"run", IntAt(rows[0], 0)}}).status();
  });
  if (!s.ok()) return s;
  return started;
}

Status JobStore::Finish(const std::string& id, const Outcome& outcome,
                        const std::string& worker) {
  std::lock_guard<std::mutex> lock(mutex_);
  return InTransaction([&]() -> Status {
    CANNBOT_ASSIGN_OR_RETURN(
        std::vector<Row> rows,
        db().Query("UPDATE jobs SET state = ?, error_code = ?, error_message = ?, found = ?, "
                   "speedup = ?, report_json = ?, report_text = ?, finished_at = ?, "
                   "lease_owner = '', lease_until = 0 "
                   "WHERE id = ? AND (? = '' OR (state = 'running' AND lease_owner = ?)) "
                   "RETURNING id",
                   {StateName(outcome.state), outcome.error_code, outcome.error_message,
                    int64_t{outcome.found ? 1 : 0}, OptionalDouble(outcome.speedup),
                    outcome.report ? Value(Dump(*outcome.report)) : Value(nullptr),
                    outcome.report_text, clock_(), id, worker, worker}));
    if (rows.empty()) {
      return Status::Aborted("job " + id + " is no longer held by worker " + worker +
                             " (its lease ran out and another worker took it); this run's "
                             "result is dropped");
    }
    Json data = {{"status", StateName(outcome.state)}, {"found", outcome.found}};
    if (outcome.speedup) data["speedup"] = *outcome.speedup;
    if (!outcome.error_code.empty()) {
      data["error"] = {{"code", outcome.error_code}, {"message", outcome.error_message}};
    }
    return AppendEventLocked(id, "finished", data).status();
  });
}

Status JobStore::Requeue(const std::string& id, const std::string& reason,
                         const std::string& worker) {
  std::lock_guard<std::mutex> lock(mutex_);
  return InTransaction([&]() -> Status {
    CANNBOT_ASSIGN_OR_RETURN(
        std::vector<Row> rows,
        db().Query("UPDATE jobs SET state = 'queued', lease_owner = '', lease_until = 0 "
                   "WHERE id = ? AND state IN ('queued', 'running') "
                   "AND (? = '' OR lease_owner = ?) RETURNING id",
                   {id, worker, worker}));
    if (rows.empty()) return Status::Ok();  // finished meanwhile: nothing to run again
    return AppendEventLocked(id, "requeued", {{"reason", reason}}).status();
  });
}

Result<bool> JobStore::CancelQueued(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  bool cancelled = false;
  Status s = InTransaction([&]() -> Status {
    CANNBOT_ASSIGN_OR_RETURN(
        std::vector<Row> rows,
        db().Query("UPDATE jobs SET state = 'cancelled', finished_at = ?, error_code = "
                   "'cancelled', error_message = 'cancelled before it started' "
                   "WHERE id = ? AND state = 'queued' RETURNING id",
                   {clock_(), id}));
    if (rows.empty()) return Status::Ok();
    cancelled = true;
    return AppendEventLocked(id, "finished",
                             {{"status", "cancelled"}, {"found", false},
                              {"error", {{"code", "cancelled"},
                                         {"message", "cancelled before it started"}}}})
        .status();
  });
  if (!s.ok()) return s;
  return cancelled;
}

Status JobStore::AddAttempt(const std::string& id, int run, int index, const Json& attempt) {
  std::lock_guard<std::mutex> lock(mutex_);
  return db().Execute(
      "INSERT INTO job_attempts (job_id, run, idx, attempt_json, created_at) "
      "VALUES (?, ?, ?, ?, ?) ON CONFLICT (job_id, run, idx) DO UPDATE SET "
      "attempt_json = excluded.attempt_json, created_at = excluded.created_at",
      {id, int64_t{run}, int64_t{index}, Dump(attempt), clock_()});
}

Result<std::vector<Json>> JobStore::Attempts(const std::string& id, int run) {
  std::lock_guard<std::mutex> lock(mutex_);
  CANNBOT_ASSIGN_OR_RETURN(
      std::vector<Row> rows,
      db().Query("SELECT attempt_json FROM job_attempts WHERE job_id = ? AND run = ? ORDER BY idx",
                 {id, int64_t{run}}));
  std::vector<Json> out;
  for (const Row& row : rows) {
    Json parsed = Json::parse(TextAt(row, 0), nullptr, false);
    if (!parsed.is_discarded()) out.push_back(std::move(parsed));
  }
  return out;
}

Result<int64_t> JobStore::AppendEvent(const std::string& id, const std::string& type,
                                      const Json& data) {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t seq = 0;
  Status s = InTransaction([&]() -> Status {
    CANNBOT_ASSIGN_OR_RETURN(seq, AppendEventLocked(id, type, data));
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return seq;
}

Result<std::vector<EventRecord>> JobStore::EventsAfter(const std::string& id, int64_t after,
                                                       int limit) {
  std::lock_guard<std::mutex> lock(mutex_);
  CANNBOT_ASSIGN_OR_RETURN(
      std::vector<Row> rows,
      db().Query("SELECT seq, type, data_json, created_at FROM job_events "
                 "WHERE job_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                 {id, after, int64_t{limit}}));
  std::vector<EventRecord> events;
  for (const Row& row : rows) {
    Json data = Json::parse(TextAt(row, 2), nullptr, false);
    events.push_back({IntAt(row, 0), TextAt(row, 1),
                      data.is_discarded() ? Json::object() : std::move(data), DoubleAt(row, 3)});
  }
  return events;
}

Result<int64_t> JobStore::Prune(double max_age_seconds, int64_t max_jobs) {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t pruned = 0;
  Status s = InTransaction([&]() -> Status {
    const char* kFinished = "state IN ('succeeded', 'failed', 'cancelled')";
    if (max_age_seconds > 0) {
      CANNBOT_ASSIGN_OR_RETURN(
          std::vector<Row> rows,
          db().Query(std::string("DELETE FROM jobs WHERE ") + kFinished +
                         " AND finished_at < ? RETURNING id",
                     {clock_() - max_age_seconds}));
      pruned += static_cast<int64_t>(rows.size());
    }
    if (max_jobs > 0) {
      CANNBOT_ASSIGN_OR_RETURN(
          std::vector<Row> rows,
          db().Query(std::string("DELETE FROM jobs WHERE ") + kFinished +
                         " AND seq NOT IN (SELECT seq FROM jobs WHERE " + kFinished +
                         " ORDER BY seq DESC LIMIT ?) RETURNING id",
                     {max_jobs}));
      pruned += static_cast<int64_t>(rows.size());
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return pruned;
}

Status JobStore::Ping() {
  std::lock_guard<std::mutex> lock(mutex_);
  return db().Query("SELECT COUNT(*) FROM jobs WHERE state = 'queued'").status();
}

}  // namespace cannbot::service
