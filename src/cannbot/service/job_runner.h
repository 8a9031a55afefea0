// JobRunner: runs one stored job through the whole optimisation (optimize::Suggest) and
// records it as it goes: every attempt into the store the moment the validator has judged
// it, every progress step as an event (then wakes the EventHub), the metrics, and at the end
// the report and the job's final state.
//
// A run can be stopped from another thread through its RunControl: the loop starts no new
// validation, and the job ends as cancelled (a DELETE) or goes back to the queue (a
// shutdown checkpoint; it runs again after the restart, its earlier attempts kept).
//
// Ownership: borrows everything in RunnerContext. Thread-safety: Run may be called from
// several workers at once (each with its own provider; the Validator serialises perf gates).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include <spdlog/logger.h>

#include "cannbot/config/config.h"
#include "cannbot/service/event_hub.h"
#include "cannbot/service/job_store.h"
#include "cannbot/service/service_metrics.h"
#include "cannbot/skills/skill.h"
#include "cannbot/store/store.h"
#include "cannbot/util/status.h"
#include "cannbot/validator/validator.h"

namespace cannbot::service {

struct RunControl {
  enum Reason { kNone = 0, kCancel = 1, kShutdown = 2 };
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
  const config::Config* config = nullptr;
  validator::Validator* validator = nullptr;
  const skills::SkillLibrary* skills = nullptr;
  store::Store* store = nullptr;  // the offline search's memory
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

  // The daemon's Config with a job's options applied (provider, loop, perf bar).
  static config::Config JobConfig(const config::Config& base, const JobOptions& options);

 private:
  RunnerContext context_;
};

}  // namespace cannbot::service
