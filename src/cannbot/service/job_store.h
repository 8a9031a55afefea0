// JobStore: the daemon's jobs, their attempts and their progress events, durable in the
// SQLite store (tables of schema version 3, store/store.cc).
//
// Everything is written as it happens: a job before it is acknowledged, each attempt when the
// validator has judged it, each event before it is published. A state change and the event
// that announces it are one transaction, so the event log never disagrees with the job.
// Unfinished() after a crash is the list of jobs to run again: nothing accepted is lost.
//
// Events are numbered per job from 1 with no gaps; SSE clients resume from a number.
// Idempotency keys map to the job they created, with a hash of the request they came with.
//
// Ownership: owns its own connection to the store file, so its transactions cannot mix with
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

struct Submission {
  std::string job_id;
  bool existing = false;  // the idempotency key named an earlier job
  bool conflict = false;  // ...which was created by a different request
};

class JobStore {
 public:
  using Clock = std::function<double()>;  // Unix seconds

  static Result<std::unique_ptr<JobStore>> Open(const std::string& path, Clock clock = {});

  // A new queued job with its "queued" event; with an idempotency key seen before, that job.
  Result<Submission> Create(const JobSpec& spec, const std::string& request_id,
                            const std::string& idempotency_key);
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
  // running -> a finished state, with the "finished" event.
  Status Finish(const std::string& id, const Outcome& outcome);
  // Back to queued with a "requeued" event (shutdown checkpoint, crash recovery).
  Status Requeue(const std::string& id, const std::string& reason);
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
  JobStore(std::unique_ptr<store::Store> store, Clock clock)
      : store_(std::move(store)), clock_(std::move(clock)) {}
  store::Database& db() { return store_->database(); }
  // Runs `body` in one write transaction (the caller holds mutex_).
  Status InTransaction(const std::function<Status()>& body);
  Result<int64_t> AppendEventLocked(const std::string& id, const std::string& type,
                                    const nlohmann::json& data);

  std::unique_ptr<store::Store> store_;
  Clock clock_;
  std::mutex mutex_;
};

}  // namespace cannbot::service
