// Service: the daemon's core, with no HTTP in it. It owns the store connections, the shared
// Validator, the skills, the durable job store, the bounded queue and the worker pool, the
// event hub and the metrics, and offers what the routes (routes.h) expose.
//
// Lifecycle:
//   Open   opens the store (schema migrations included) and loads the skills.
//   Start  re-queues every unfinished job (a job found "running" was cut off by a crash) and
//          starts the workers and the retention pruner. The first worker measures the
//          machine model before any job runs, so the measurement is not disturbed.
//   Shutdown  stops accepting work (Accepting() turns false: the routes answer 503), lets
//          running jobs finish for the grace period, then checkpoints the rest (they stop at
//          their next validation and go back to "queued"), and ends every event stream.
//
// Workers run whole jobs, up to `workers` at once: compiles and numeric checks of different
// jobs run in parallel, perf gates one at a time (the one Validator serialises them).
//
// On a shared store ([server] store = "postgresql://..."), this process is one of many: its
// workers claim jobs from the store under leases that a keeper thread renews, any front end
// may have taken the job, and a listener turns the store's notifications into EventHub
// wake-ups, so event streams follow jobs that run on other machines. With run_jobs = false
// it is an API front end only. At start it re-queues nothing: an unfinished job belongs to
// whichever worker holds its lease, and one whose lease ran out is put back by the next
// worker that looks.
//
// Ownership: owns everything it creates. Thread-safety: every public method may be called
// from any thread once Start has returned.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/logger.h>

#include "cannbot/config/config.h"
#include "cannbot/ops/registry.h"
#include "cannbot/service/event_hub.h"
#include "cannbot/service/job_queue.h"
#include "cannbot/engine/engine.h"
#include "cannbot/service/job_runner.h"
#include "cannbot/service/job_store.h"
#include "cannbot/service/llm_probe.h"
#include "cannbot/service/metrics.h"
#include "cannbot/service/requests.h"
#include "cannbot/service/service_metrics.h"
#include "cannbot/skills/skill.h"
#include "cannbot/store/store.h"
#include "cannbot/util/status.h"
#include "cannbot/validator/validator.h"

namespace cannbot::service {

struct SubmitResult {
  enum class Kind { kAccepted, kExisting, kConflict, kRefused, kQueueFull, kShuttingDown };
  Kind kind = Kind::kAccepted;
  std::string job_id;  // kAccepted, kExisting, kConflict
  // kRefused: the error code clients see ("unknown_op", "bad_profile", "invalid_argument")
  // and one sentence.
  std::string code;
  std::string message;
};

struct CancelResult {
  enum class Kind { kCancelled, kCancelling, kAlreadyFinished, kNotFound };
  Kind kind = Kind::kNotFound;
  JobState state = JobState::kQueued;  // the state when asked
};

struct Health {
  bool ready = false;
  bool store_ok = false;
  std::string store_detail;
  LlmReachability llm;
  bool accepting = false;
  bool workers_started = false;
  size_t queue_depth = 0;
  int workers = 0;
};

class Service {
 public:
  static Result<std::unique_ptr<Service>> Open(config::Config config, ops::Registry registry,
                                               std::shared_ptr<spdlog::logger> log);
  ~Service();  // Shutdown with no grace if still running

  Status Start();
  void Shutdown(std::chrono::milliseconds grace);
  bool Accepting() const { return accepting_.load(); }

  // Jobs. Submit checks the spec against this daemon (op, profile, LLM URL) before it
  // stores anything; errors are the store's.
  // `owner` identifies the submitter (a token's fingerprint) for fair ordering.
  Result<SubmitResult> Submit(const JobSpec& spec, const std::string& request_id,
                              const std::string& idempotency_key, const std::string& owner = "");
  Result<CancelResult> Cancel(const std::string& id);
  // Waits until job `id` has finished or the daemon stops; returns its state then.
  Result<std::optional<JobState>> WaitFinished(const std::string& id);

  // The other endpoints' work. Validate: NotFound for an unknown op, InvalidArgument for a
  // baseline that is not a correct kernel, Unavailable while as many synchronous
  // validations run as there are workers. Diagnose: InvalidArgument when the profile cannot
  // be read or has no such kernel; {"profile", "diagnosis"} as `cannbot diagnose --json`.
  Result<validator::Verdict> Validate(const ValidateRequest& request);
  // A request with `package`: every dtype combination of the package's OpDef, the report as
  // `cannbot validate --package --json` prints it. InvalidArgument for a package that cannot
  // be read or described, Unavailable as Validate.
  Result<nlohmann::json> ValidatePackage(const ValidateRequest& request);
  Result<nlohmann::json> Diagnose(const DiagnoseRequest& request);
  Health CheckHealth();
  std::string RenderMetrics();

  JobStore& jobs() { return *jobs_; }
  EventHub& hub() { return hub_; }
  const skills::SkillLibrary& skills() const { return engine_->skills(); }
  const ops::Registry& registry() const { return engine_->registry(); }
  const config::Config& config() const { return config_; }
  ServiceMetrics& metrics() { return service_metrics_; }
  int workers() const { return workers_; }

 private:
  Service(config::Config config, std::shared_ptr<spdlog::logger> log);
  // Why this daemon cannot run `spec`, if it cannot.
  std::optional<SubmitResult> Refuse(const JobSpec& spec) const;
  Status Recover();
  void WorkerLoop();
  // Runs one job through `run`, tracked for cancellation and shutdown; an error from it ends
  // the job as failed (written only while `worker`, if any, holds its lease).
  void RunTracked(const std::string& id, const std::string& worker,
                  const std::function<Status(RunControl&)>& run);
  void PrunerLoop();
  // The shared line (shared_workers.cc).
  bool shared() const { return jobs_->shared(); }
  void SharedWorkerLoop(int index);
  double LeaseSeconds() const { return std::max(1.0, config_.server.lease_seconds); }
  void ListenerLoop();
  size_t QueueDepth();

  config::Config config_;
  std::shared_ptr<spdlog::logger> log_;
  int workers_ = 1;
  // The op registry, the store (compile cache, machine model, offline memory), the shared
  // Validator and the skills; jobs run through it.
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<JobStore> jobs_;       // its own connection (its own transactions)
  JobQueue queue_;
  EventHub hub_;
  Metrics registry_;
  ServiceMetrics service_metrics_;
  std::unique_ptr<LlmProbe> probe_;
  std::unique_ptr<JobRunner> runner_;

  std::atomic<bool> accepting_{false};
  std::atomic<bool> workers_started_{false};
  std::atomic<int> validations_{0};  // synchronous POST /validate in flight
  std::mutex submit_mutex_;          // one submission at a time: idempotency + queue place

  std::mutex running_mutex_;
  std::condition_variable running_changed_;
  std::map<std::string, std::shared_ptr<RunControl>> running_;
  bool checkpointing_ = false;  // the grace period is over (guarded by running_mutex_)
  std::vector<std::thread> threads_;

  std::mutex pruner_mutex_;
  std::condition_variable pruner_wake_;
  bool stopping_ = false;
  std::thread pruner_;
  std::atomic<bool> stop_claiming_{false};  // shared workers take no new job
  std::thread listener_;                    // shared store: notifications -> hub_
};

}  // namespace cannbot::service
