// JobStore: the daemon's jobs, their attempts and their progress events, durable in a SQL
// store: the local SQLite file (tables of schema versions 3 and 5, store/store.cc), or a
// PostgreSQL server that front ends and workers on many machines share (job_schema.h).
//
// Everything is written as it happens: a job before it is acknowledged, each attempt when the
// validator has judged it, each event before it is published. A state change and the event
// that announces it are one transaction, so the event log never disagrees with the job.
// Unfinished() after a crash is the list of jobs to run again: nothing accepted is lost.
//
// Two ways to hand jobs to workers. One daemon on its own file: it keeps the line in memory
// (job_queue.h) and Start()s each job it pops. A shared store: workers Claim() the next job
// under a lease they Renew() while they run it; a lease that runs out (a worker killed, a
// machine gone) puts the job back in line (RequeueExpired), and Finish/Requeue by a worker
// that no longer holds the lease change nothing, so a job never finishes twice.
//
// Events are numbered per job from 1 with no gaps; SSE clients resume from a number.
// Idempotency keys map to the job they created, with a hash of the request they came with.
//
// Ownership: owns its own connection to the store, so its transactions cannot mix with
// other users of the file (the compile cache). Thread-safety: every method may be called from
// any thread (an internal mutex serialises them; statements are short).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/service/job.h"
#include "cannbot/store/sql_connection.h"
#include "cannbot/store/store.h"
#include "cannbot/util/status.h"

namespace cannbot::service {

struct JobRecord {
  std::string id;
  JobState state = JobState::kQueued;
  JobSpec spec;
  std::string request_id;  // of the request that created it
  int runs = 0;            // times a worker started it (more than 1 after a restart)
  std::string error_code;  // when failed
  std::string error_message;
  bool found = false;      // a validated faster kernel was found
  std::optional<double> speedup;
  std::optional<nlohmann::json> report;  // the report JSON, once there is one
  std::string report_text;               // the same report for people
  double created_at = 0;                 // Unix seconds
  double started_at = 0;                 // 0 = never
  double finished_at = 0;                // 0 = not finished
};

struct EventRecord {
  int64_t seq = 0;
  std::string type;
  nlohmann::json data;
  double created_at = 0;
};

// How a job ended.
struct Outcome {
  JobState state = JobState::kSucceeded;
  std::string error_code;
  std::string error_message;
  bool found = false;
  std::optional<double> speedup;
  std::optional<nlohmann::json> report;
  std::string report_text;
};

// A job a worker took from the shared line.
struct ClaimedJob {
  std::string id;
  int run = 0;                // this run's number (1 = first)
  double waited_seconds = 0;  // from submission to this claim
};

struct LeaseStatus {
  bool held = false;              // false: the job finished or another worker took it over
  bool cancel_requested = false;  // DELETE /jobs/{id} reached the store
};

struct QueueStats {
  int64_t depth = 0;                // queued jobs
  double oldest_age_seconds = 0;    // of the oldest queued job; 0 when none waits
};

struct Submission {
  std::string job_id;
  bool existing = false;  // the idempotency key named an earlier job
  bool conflict = false;  // ...which was created by a different request
};

class JobStore {
 public:
  using Clock = std::function<double()>;  // Unix seconds

  // `location`: a SQLite file path, or a postgresql:// URL (Unavailable, naming the server,
  // when it cannot be reached; InvalidArgument for a schema newer than this cannbot's).
  static Result<std::unique_ptr<JobStore>> Open(const std::string& location, Clock clock = {});

  // Whether other machines may share this store (PostgreSQL): workers then Claim() jobs.
  bool shared() const { return db_->dialect() == store::Dialect::kPostgres; }
  std::string Describe() const { return db_->Describe(); }

  // A new queued job with its "queued" event; with an idempotency key seen before, that job.
  // `owner` names the submitter (a token's fingerprint) for fair ordering.
  Result<Submission> Create(const JobSpec& spec, const std::string& request_id,
                            const std::string& idempotency_key, const std::string& owner = "");
  // The job an idempotency key created, if any (conflict: `spec` differs from its request).
  Result<std::optional<Submission>> FindByKey(const std::string& key, const JobSpec& spec);
  Result<std::optional<JobRecord>> Get(const std::string& id);
  // The job's state alone (cheap); nullopt for an unknown job.
  Result<std::optional<JobState>> StateOf(const std::string& id);
  // Newest first, without reports; `state` filters.
  Result<std::vector<JobRecord>> List(std::optional<JobState> state, int limit);
  // Queued or running jobs, oldest first.
  Result<std::vector<std::string>> Unfinished();
  Result<std::map<std::string, int64_t>> CountByState();

  // queued -> running (runs + 1, "started" event). False when the job is not queued
  // (cancelled meanwhile): the worker skips it.
  Result<bool> Start(const std::string& id);
  // running -> a finished state, with the "finished" event. With `worker`, only while that
  // worker holds the job's lease: Aborted (nothing written) once it has lost it.
  Status Finish(const std::string& id, const Outcome& outcome, const std::string& worker = "");
  // Back to queued with a "requeued" event (shutdown checkpoint, crash recovery); with
  // `worker`, only while it holds the lease.
  Status Requeue(const std::string& id, const std::string& reason,
                 const std::string& worker = "");

  // Shared line. The next queued job for `worker` (highest priority first, then the owner
  // with the fewest running jobs, then the oldest): queued -> running under a lease of
  // `lease_seconds`, with its "started" event. nullopt when nothing waits.
  Result<std::optional<ClaimedJob>> Claim(const std::string& worker, double lease_seconds);
  Result<LeaseStatus> Renew(const std::string& id, const std::string& worker,
                            double lease_seconds);
  // Running jobs whose lease ran out go back to queued ("requeued" event); their ids.
  Result<std::vector<std::string>> RequeueExpired();
  // Asks whoever runs `id` to stop; it learns at its next Renew. False when not running.
  Result<bool> RequestCancel(const std::string& id);
  Result<QueueStats> Queue();
  // queued -> cancelled. False when the job is not queued.
  Result<bool> CancelQueued(const std::string& id);

  Status AddAttempt(const std::string& id, int run, int index, const nlohmann::json& attempt);
  Result<std::vector<nlohmann::json>> Attempts(const std::string& id, int run);
  // Appends an event; returns its number.
  Result<int64_t> AppendEvent(const std::string& id, const std::string& type,
                              const nlohmann::json& data);
  Result<std::vector<EventRecord>> EventsAfter(const std::string& id, int64_t after, int limit);

  // Deletes finished jobs older than `max_age_seconds` (0 = no age limit) and beyond the
  // newest `max_jobs` finished ones (0 = no count limit); returns how many went.
  Result<int64_t> Prune(double max_age_seconds, int64_t max_jobs);
  // A cheap query, for readiness.
  Status Ping();

 private:
  JobStore(std::unique_ptr<store::Store> local, std::unique_ptr<store::SqlConnection> remote,
           Clock clock);
  store::SqlConnection& db() { return *db_; }
  // Runs `body` in one write transaction (the caller holds mutex_).
  Status InTransaction(const std::function<Status()>& body);
  Result<int64_t> AppendEventLocked(const std::string& id, const std::string& type,
                                    const nlohmann::json& data);
  // " FOR UPDATE SKIP LOCKED" where rows can be locked (PostgreSQL); SQLite's write lock
  // already covers the whole transaction.
  std::string SkipLocked() const;

  std::unique_ptr<store::Store> local_;                // the SQLite file, or null
  std::unique_ptr<store::SqlConnection> remote_;       // a shared server, or null
  store::SqlConnection* db_;                           // whichever is set
  Clock clock_;
  std::mutex mutex_;
};

}  // namespace cannbot::service
