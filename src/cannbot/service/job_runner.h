// JobRunner: runs one stored job through the whole optimisation (engine::Engine::Run) and
// records it as it goes: every attempt into the store the moment the validator has judged
// it, every progress step as an event (then wakes the EventHub), the metrics, and at the end
// the report and the job's final state.
//
// A run can be stopped from another thread through its RunControl: the loop starts no new
// validation, and the job ends as cancelled (a DELETE) or goes back to the queue (a
// shutdown checkpoint; it runs again after the restart, its earlier attempts kept), or, for
// a job claimed from a shared store whose lease another worker has taken over, ends without
// writing anything (that worker's run is the one that counts).
//
// Ownership: borrows everything in RunnerContext. Thread-safety: Run may be called from
// several workers at once (each with its own provider; the Validator serialises perf gates).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include <spdlog/logger.h>

#include "cannbot/engine/engine.h"
#include "cannbot/service/event_hub.h"
#include "cannbot/service/job_store.h"
#include "cannbot/service/service_metrics.h"
#include "cannbot/util/status.h"

namespace cannbot::service {

struct RunControl {
  enum Reason { kNone = 0, kCancel = 1, kShutdown = 2, kLeaseLost = 3 };
  std::atomic<bool> stop{false};
  std::atomic<int> reason{kNone};

  // The first reason wins: a job cancelled before a shutdown stays cancelled.
  void Request(Reason why) {
    int none = kNone;
    reason.compare_exchange_strong(none, why);
    stop.store(true);
  }
};

struct RunnerContext {
  engine::Engine* engine = nullptr;
  JobStore* jobs = nullptr;
  EventHub* hub = nullptr;
  ServiceMetrics* metrics = nullptr;
  std::shared_ptr<spdlog::logger> log;
};

class JobRunner {
 public:
  explicit JobRunner(RunnerContext context) : context_(std::move(context)) {}

  // Runs job `id` to its end. Errors only when the store itself fails; a failing
  // optimisation is a job that ends as failed.
  Status Run(const std::string& id, RunControl& control);
  // The same for a job `worker` has claimed from a shared store (already running): its
  // result is written only while the worker still holds the lease, and a store that is
  // briefly unreachable (a server restart) is waited for.
  Status RunClaimed(const ClaimedJob& job, const std::string& worker, RunControl& control);

 private:
  Status Execute(const std::string& id, const std::string& worker, RunControl& control);

  RunnerContext context_;
};

}  // namespace cannbot::service
