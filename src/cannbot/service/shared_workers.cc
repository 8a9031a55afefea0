// Service on a shared store (service.h): workers that claim jobs under leases, the keeper
// that renews a lease while its job runs, and the listener that turns the store's
// notifications into EventHub wake-ups.
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "cannbot/service/job_schema.h"
#include "cannbot/service/service.h"
#include "cannbot/store/postgres.h"

namespace cannbot::service {
namespace {

// "host:pid:worker", unique across a fleet while the process lives.
std::string WorkerName(int index) {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "unknown");
  return std::string(host) + ":" + std::to_string(getpid()) + ":" + std::to_string(index);
}

// Renews a claimed job's lease every third of its length while the job runs. Learns from the
// renewal whether a client asked to cancel, or whether the lease went to another worker,
// and stops the run through its RunControl. A renewal that fails (the store is restarting)
// is retried at the next tick: the lease is three ticks long.
class LeaseKeeper {
 public:
  LeaseKeeper(JobStore* jobs, ServiceMetrics* metrics, std::string id, std::string worker,
              double lease_seconds, RunControl* control)
      : jobs_(jobs), metrics_(metrics), id_(std::move(id)), worker_(std::move(worker)),
        lease_seconds_(lease_seconds), control_(control), thread_([this] { Loop(); }) {}
  ~LeaseKeeper() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  void Loop() {
    const auto tick = std::chrono::milliseconds(static_cast<int64_t>(lease_seconds_ * 1000 / 3));
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, tick, [&] { return done_; })) {
      lock.unlock();
      auto lease = jobs_->Renew(id_, worker_, lease_seconds_);
      lock.lock();
      if (!lease.ok()) continue;
      if (!lease->held) {
        metrics_->lost_leases->Add({});
        control_->Request(RunControl::kLeaseLost);
        return;
      }
      if (lease->cancel_requested) control_->Request(RunControl::kCancel);
    }
  }

  JobStore* jobs_;
  ServiceMetrics* metrics_;
  std::string id_;
  std::string worker_;
  double lease_seconds_;
  RunControl* control_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;  // last: it starts once the members above exist
};

}  // namespace

size_t Service::QueueDepth() {
  if (!shared()) return queue_.size();
  auto line = jobs_->Queue();
  return line.ok() ? static_cast<size_t>(line->depth) : 0;
}

void Service::SharedWorkerLoop(int index) {
  engine_->validator().Machine();  // as WorkerLoop: measured before any job runs here
  workers_started_ = true;
  const std::string worker = WorkerName(index);
  while (!stop_claiming_) {
    const uint64_t seen = hub_.version();
    auto expired = jobs_->RequeueExpired();
    if (expired.ok() && !expired->empty()) {
      service_metrics_.lease_expiries->Add({}, static_cast<double>(expired->size()));
      for (const std::string& id : *expired) log_->warn("job {}: lease ran out; re-queued", id);
    }
    auto claimed = jobs_->Claim(worker, LeaseSeconds());
    if (!claimed.ok()) log_->warn("claiming a job: {}", claimed.status().ToString());
    if (claimed.ok() && *claimed) {
      const ClaimedJob job = **claimed;
      service_metrics_.claim_wait_seconds->Observe({}, job.waited_seconds);
      log_->info("job {}: claimed by {} (run {}, waited {:.2f} s)", job.id, worker, job.run,
                 job.waited_seconds);
      RunTracked(job.id, worker, [&](RunControl& control) {
        LeaseKeeper keeper(jobs_.get(), &service_metrics_, job.id, worker, LeaseSeconds(),
                           &control);
        return runner_->RunClaimed(job, worker, control);
      });
      continue;
    }
    // Nothing to do: a submission here or a notification from the store wakes us; the
    // timeout bounds how late an expired lease is noticed when nothing else happens.
    hub_.WaitPast(seen, std::chrono::seconds(1));
  }
}

void Service::ListenerLoop() {
  std::unique_ptr<store::PostgresListener> listener;
  while (!hub_.closed()) {
    if (!listener) {
      auto opened = store::PostgresListener::Open(config_.server.store, kJobsChannel);
      if (!opened.ok()) {
        log_->warn("store notifications: {}; retrying", opened.status().ToString());
        std::this_thread::sleep_for(std::chrono::seconds(1));
        hub_.Publish();  // whatever was announced meanwhile: waiters read the store again
        continue;
      }
      listener = std::move(opened).value();
    }
    auto payloads = listener->Wait(std::chrono::milliseconds(500));
    if (!payloads.ok()) {
      log_->warn("store notifications: {}", payloads.status().ToString());
      listener.reset();
      continue;
    }
    if (!payloads->empty()) hub_.Publish();
  }
}

}  // namespace cannbot::service
