#include "cannbot/service/service.h"

#include <algorithm>

#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/engine/package_validation.h"
#include "cannbot/ops/registry.h"
#include "cannbot/profile/import.h"

namespace cannbot::service {
namespace {

constexpr auto kPruneInterval = std::chrono::minutes(10);

int WorkerCount(const config::ServerConfig& server) {
  if (server.workers > 0) return server.workers;
  return std::max(1u, std::thread::hardware_concurrency());
}

SubmitResult Answer(SubmitResult::Kind kind, std::string job_id = "") {
  SubmitResult r;
  r.kind = kind;
  r.job_id = std::move(job_id);
  return r;
}

SubmitResult Refusal(std::string code, std::string message) {
  SubmitResult r;
  r.kind = SubmitResult::Kind::kRefused;
  r.code = std::move(code);
  r.message = std::move(message);
  return r;
}

}  // namespace

Service::Service(config::Config config, std::shared_ptr<spdlog::logger> log)
    : config_(std::move(config)),
      log_(std::move(log)),
      workers_(WorkerCount(config_.server)),
      queue_(static_cast<size_t>(std::max(1, config_.server.queue_size))),
      service_metrics_(registry_) {}

Result<std::unique_ptr<Service>> Service::Open(config::Config config, ops::Registry registry,
                                               std::shared_ptr<spdlog::logger> log) {
  std::unique_ptr<Service> s(new Service(std::move(config), std::move(log)));
  const std::string path = s->config_.db.empty() ? store::Store::DefaultPath() : s->config_.db;
  std::vector<std::string> warnings;
  CANNBOT_ASSIGN_OR_RETURN(s->engine_,
                           engine::Engine::Open(s->config_, std::move(registry), &warnings));
  for (const std::string& w : warnings) s->log_->warn("skills: {}", w);
  const std::string& shared_store = s->config_.server.store;
  CANNBOT_ASSIGN_OR_RETURN(s->jobs_, JobStore::Open(shared_store.empty() ? path : shared_store));
  if (!s->config_.server.run_jobs) {
    if (!s->jobs_->shared()) {
      return Status::InvalidArgument(
          "server.run_jobs = false (an API front end only) needs a shared store "
          "(server.store = \"postgresql://...\"): otherwise no worker would ever run a job");
    }
    s->workers_ = 0;
  }
  s->probe_ = std::make_unique<LlmProbe>(s->config_.llm.base_url, llm::NewCurlHttpClient());
  s->runner_ = std::make_unique<JobRunner>(
      RunnerContext{s->engine_.get(),
                    s->jobs_.get(), &s->hub_, &s->service_metrics_, s->log_});
  return s;
}

Service::~Service() { Shutdown(std::chrono::milliseconds(0)); }

Status Service::Recover() {
  CANNBOT_ASSIGN_OR_RETURN(std::vector<std::string> ids, jobs_->Unfinished());
  for (const std::string& id : ids) {
    CANNBOT_ASSIGN_OR_RETURN(std::optional<JobState> state, jobs_->StateOf(id));
    if (state == JobState::kRunning) {
      CANNBOT_RETURN_IF_ERROR(jobs_->Requeue(id, "the daemon restarted while it ran"));
    }
    queue_.PushRecovered(id);
  }
  if (!ids.empty()) log_->info("re-queued {} unfinished job(s) from the store", ids.size());
  return Status::Ok();
}

Status Service::Start() {
  if (shared()) {
    for (int i = 0; i < workers_; ++i) threads_.emplace_back([this, i] { SharedWorkerLoop(i); });
    listener_ = std::thread([this] { ListenerLoop(); });
  } else {
    CANNBOT_RETURN_IF_ERROR(Recover());
    for (int i = 0; i < workers_; ++i) threads_.emplace_back([this] { WorkerLoop(); });
  }
  if (workers_ == 0) workers_started_ = true;  // an API front end: nothing to wait for
  pruner_ = std::thread([this] { PrunerLoop(); });
  accepting_ = true;
  log_->info("{} worker(s), queue of {}, job store {}{}", workers_, queue_.capacity(),
             jobs_->Describe(), shared() ? " (shared: jobs are claimed under leases)" : "");
  return Status::Ok();
}

void Service::WorkerLoop() {
  // Measured once per machine and cached in the store; every worker waits for it, so nothing
  // compiles or runs while the roofline is being measured.
  engine_->validator().Machine();
  workers_started_ = true;
  while (std::optional<std::string> id = queue_.Pop()) {
    RunTracked(*id, "", [&](RunControl& control) { return runner_->Run(*id, control); });
  }
}

void Service::RunTracked(const std::string& id, const std::string& worker,
                         const std::function<Status(RunControl&)>& run) {
  auto control = std::make_shared<RunControl>();
  {
    std::lock_guard<std::mutex> lock(running_mutex_);
    running_[id] = control;
    // Taken from the queue just as the grace period ended: checkpoint it at once.
    if (checkpointing_) control->Request(RunControl::kShutdown);
  }
  service_metrics_.workers_busy->Add({}, 1);
  Status s;
  try {  // a worker thread is an edge: nothing may escape it
    s = run(*control);
  } catch (const std::exception& e) {
    s = Status::Internal(std::string("uncaught exception: ") + e.what());
  } catch (...) {
    s = Status::Internal("uncaught non-standard exception");
  }
  if (!s.ok()) {
    log_->error("job {}: {}", id, s.ToString());
    Outcome failed;
    failed.state = JobState::kFailed;
    failed.error_code = "internal";
    failed.error_message = s.message();
    if (!jobs_->Finish(id, failed, worker).ok()) {
      log_->error("job {}: cannot record the failure", id);
    }
    hub_.Publish();
  }
  service_metrics_.workers_busy->Add({}, -1);
  {
    std::lock_guard<std::mutex> lock(running_mutex_);
    running_.erase(id);
  }
  running_changed_.notify_all();
}

void Service::PrunerLoop() {
  std::unique_lock<std::mutex> lock(pruner_mutex_);
  while (!stopping_) {
    lock.unlock();
    auto pruned = jobs_->Prune(config_.server.retention_days * 86400.0,
                               config_.server.retention_jobs);
    if (!pruned.ok()) log_->warn("pruning old jobs: {}", pruned.status().ToString());
    else if (*pruned > 0) log_->info("pruned {} old job(s)", *pruned);
    lock.lock();
    pruner_wake_.wait_for(lock, kPruneInterval, [&] { return stopping_; });
  }
}

void Service::Shutdown(std::chrono::milliseconds grace) {
  accepting_ = false;
  queue_.Close();  // idle workers stop; queued jobs stay queued in the store
  stop_claiming_ = true;
  hub_.Publish();  // idle shared workers look at stop_claiming_ now
  {
    std::unique_lock<std::mutex> lock(running_mutex_);
    if (!running_.empty()) {
      log_->info("shutting down: {} running job(s) get {} ms to finish", running_.size(),
                 grace.count());
    }
    running_changed_.wait_for(lock, grace, [&] { return running_.empty(); });
    checkpointing_ = true;
    for (auto& [id, control] : running_) control->Request(RunControl::kShutdown);
  }
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  {
    std::lock_guard<std::mutex> lock(pruner_mutex_);
    stopping_ = true;
  }
  pruner_wake_.notify_all();
  if (pruner_.joinable()) pruner_.join();
  hub_.Close();  // event streams and waiting requests end
  if (listener_.joinable()) listener_.join();
}

std::optional<SubmitResult> Service::Refuse(const JobSpec& spec) const {
  std::optional<ops::OpSpec> brought;  // an inline op, checked as the job will resolve it
  if (auto op = engine_->ResolveOp(spec, &brought); !op.ok()) {
    if (op.status().code() == Status::Code::kNotFound) {
      return Refusal("unknown_op", "field 'op': " + op.status().message() + "; GET /ops lists them");
    }
    return Refusal("invalid_argument", "field 'op_spec': " + op.status().message());
  }
  if (!spec.profile.empty()) {
    profile::ImportOptions options;
    options.format = spec.profile_format;
    auto imported = profile::ImportProfileText(spec.profile, "profile", options);
    if (!imported.ok()) return Refusal("bad_profile", imported.status().message());
  }
  if (spec.options.llm && !spec.options.llm->offline) {
    const std::string& url = spec.options.llm->url;
    const auto& allowed = config_.server.llm_urls;
    // The daemon only calls the LLM servers its operator named: a request must not make it
    // reach arbitrary hosts.
    if (!url.empty() && url != config_.llm.base_url &&
        std::find(allowed.begin(), allowed.end(), url) == allowed.end()) {
      return Refusal("invalid_argument", "options.llm.url is not an LLM server this daemon "
                                         "may call (see [server] llm_urls)");
    }
    if (url.empty() && config_.llm.base_url.empty()) {
      return Refusal("invalid_argument", "this daemon has no LLM server configured; use "
                                         "options.llm = \"offline\" or name an allowed url");
    }
    if (spec.options.llm->model.empty() && config_.llm.model.empty()) {
      return Refusal("invalid_argument", "options.llm needs a model (the daemon has none)");
    }
  }
  return std::nullopt;
}

Result<SubmitResult> Service::Submit(const JobSpec& spec, const std::string& request_id,
                                     const std::string& idempotency_key,
                                     const std::string& owner) {
  using Kind = SubmitResult::Kind;
  if (!accepting_) return Answer(Kind::kShuttingDown);
  if (auto refused = Refuse(spec)) return *refused;
  std::lock_guard<std::mutex> lock(submit_mutex_);
  if (!idempotency_key.empty()) {
    CANNBOT_ASSIGN_OR_RETURN(std::optional<Submission> seen, jobs_->FindByKey(idempotency_key, spec));
    if (seen) return Answer(seen->conflict ? Kind::kConflict : Kind::kExisting, seen->job_id);
  }
  Submission created;
  if (shared()) {
    // The line is the store's, shared by every front end: its depth is the bound.
    if (QueueDepth() >= queue_.capacity()) return Answer(Kind::kQueueFull);
    CANNBOT_ASSIGN_OR_RETURN(created, jobs_->Create(spec, request_id, idempotency_key, owner));
  } else {
    if (!queue_.Reserve()) return Answer(Kind::kQueueFull);
    auto stored = jobs_->Create(spec, request_id, idempotency_key, owner);
    if (!stored.ok()) {
      queue_.CancelReservation();
      return stored.status();
    }
    created = *stored;
    queue_.PushReserved(created.job_id, spec.options.priority.value_or(0));
  }
  service_metrics_.submitted->Add({});
  hub_.Publish();
  log_->info("req={} job {} queued ({})", request_id, created.job_id, spec.op);
  return Answer(Kind::kAccepted, created.job_id);
}

Result<CancelResult> Service::Cancel(const std::string& id) {
  CANNBOT_ASSIGN_OR_RETURN(std::optional<JobState> state, jobs_->StateOf(id));
  if (!state) return CancelResult{CancelResult::Kind::kNotFound, JobState::kQueued};
  if (IsFinished(*state)) return CancelResult{CancelResult::Kind::kAlreadyFinished, *state};
  CANNBOT_ASSIGN_OR_RETURN(bool cancelled, jobs_->CancelQueued(id));
  if (cancelled) {
    queue_.Remove(id);
    service_metrics_.finished->Add({{"state", "cancelled"}});
    hub_.Publish();
    return CancelResult{CancelResult::Kind::kCancelled, JobState::kQueued};
  }
  // Whichever worker runs it, here or on another machine, learns at its next lease renewal.
  if (shared()) CANNBOT_RETURN_IF_ERROR(jobs_->RequestCancel(id).status());
  std::lock_guard<std::mutex> lock(running_mutex_);
  auto it = running_.find(id);
  if (it != running_.end()) it->second->Request(RunControl::kCancel);
  return CancelResult{CancelResult::Kind::kCancelling, JobState::kRunning};
}

Result<std::optional<JobState>> Service::WaitFinished(const std::string& id) {
  while (true) {
    const uint64_t seen = hub_.version();
    CANNBOT_ASSIGN_OR_RETURN(std::optional<JobState> state, jobs_->StateOf(id));
    if (!state || IsFinished(*state) || hub_.closed()) return state;
    hub_.WaitPast(seen, std::chrono::seconds(5));
  }
}

Result<validator::Verdict> Service::Validate(const ValidateRequest& request) {
  if (validations_.fetch_add(1) >= workers_) {
    validations_.fetch_sub(1);
    return Status::Unavailable("as many validations are running as there are workers; retry");
  }
  validator::ValidationRequest v;
  v.op = request.op;
  v.candidate = {"candidate.cpp", request.candidate};
  if (request.baseline) v.baseline = validator::KernelSource{"baseline.cpp", *request.baseline};
  v.seed = request.seed;
  v.min_speedup = request.min_speedup;
  auto verdict = engine_->validator().Validate(v);
  validations_.fetch_sub(1);
  return verdict;
}

Result<nlohmann::json> Service::ValidatePackage(const ValidateRequest& request) {
  if (!request.package) return Status::InvalidArgument("the request carries no package");
  engine::PackageRequest p;
  p.op = request.op;
  p.seed = request.seed;
  p.min_speedup = request.min_speedup;
  CANNBOT_ASSIGN_OR_RETURN(p.candidate, ascendc::PackageFromFiles("package", *request.package,
                                                                  request.package_operator));
  if (request.baseline_package) {
    CANNBOT_ASSIGN_OR_RETURN(p.baseline,
                             ascendc::PackageFromFiles("baseline_package",
                                                       *request.baseline_package,
                                                       request.baseline_package_operator));
  }
  if (validations_.fetch_add(1) >= workers_) {
    validations_.fetch_sub(1);
    return Status::Unavailable("as many validations are running as there are workers; retry");
  }
  auto report = engine::ValidatePackage(engine_->validator(), registry(), p);
  validations_.fetch_sub(1);
  if (!report.ok()) return report.status();
  return report->ToJson();
}

Result<nlohmann::json> Service::Diagnose(const DiagnoseRequest& request) {
  profile::ImportOptions options;
  options.format = request.format;
  options.device = request.device;
  CANNBOT_ASSIGN_OR_RETURN(profile::Profile p,
                           profile::ImportProfileText(request.profile, "profile", options));
  std::string why;
  auto picked = p.Pick(request.kernel, &why);
  if (!picked.ok()) return Status::InvalidArgument(picked.status().message());
  diagnosis::Diagnosis result = diagnosis::Diagnose(p, **picked);
  result.picked_because = why;
  return nlohmann::json{{"profile", p.ToJson()}, {"diagnosis", result.ToJson()}};
}

Health Service::CheckHealth() {
  Health h;
  Status ping = jobs_->Ping();
  h.store_ok = ping.ok();
  h.store_detail = ping.ok() ? "open" : ping.ToString();
  h.llm = probe_->Check();
  h.accepting = accepting_;
  h.workers_started = workers_started_;
  h.queue_depth = QueueDepth();
  h.workers = workers_;
  h.ready = h.store_ok && h.llm.reachable && h.accepting && h.workers_started;
  return h;
}

std::string Service::RenderMetrics() {
  auto counts = jobs_->CountByState();
  for (JobState state : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
                         JobState::kFailed, JobState::kCancelled}) {
    const std::string name = StateName(state);
    const int64_t n = counts.ok() && counts->count(name) ? counts->at(name) : 0;
    service_metrics_.jobs->Set({{"state", name}}, static_cast<double>(n));
  }
  service_metrics_.queue_depth->Set({}, static_cast<double>(QueueDepth()));
  if (shared()) {
    auto line = jobs_->Queue();
    if (line.ok()) service_metrics_.queue_oldest_seconds->Set({}, line->oldest_age_seconds);
  }
  return registry_.Render();
}

}  // namespace cannbot::service
