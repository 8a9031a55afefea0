// Api: the daemon's HTTP API on top of a Service (server/openapi.yaml is its contract;
// docs/api.md walks through it).
//
//   GET    /healthz              liveness + readiness (no token needed)
//   GET    /metrics              Prometheus text format
//   POST   /optimize             submit a job: 202 {job_id, status_url}; ?wait=true: the job
//   GET    /jobs                 recent jobs (?state=, ?limit=)
//   GET    /jobs/{id}            status, attempts and report
//   DELETE /jobs/{id}            cancel
//   GET    /jobs/{id}/events     progress as Server-Sent Events
//   POST   /validate             the three layers for one candidate: the verdict JSON
//   POST   /diagnose             profile in, diagnosis out
//   GET    /ops, /ops/{name}     the op registry (the kernel contract)
//   GET    /skills               the skills the daemon selects from
//
// Before routing, Handle checks the bearer token (when tokens are configured) and counts the
// answer in cannbot_http_requests_total. Bad input answers 4xx in the one error shape
// (api.h); a full queue 429; a daemon that is shutting down 503 for new work. Connections
// held open (event streams, ?wait=true) may use all but 4 of the HTTP threads: beyond that
// a stream answers 429 and a waiting submission answers 202 at once.
//
// Ownership: borrows the Service. Thread-safety: Handle may be called from any thread.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cannbot/service/api.h"
#include "cannbot/service/router.h"
#include "cannbot/service/service.h"

namespace cannbot::service {

class Api {
 public:
  // `tokens`: accepted bearer tokens; empty = no authentication.
  Api(Service* service, std::vector<std::string> tokens);

  ApiResponse Handle(ApiRequest& request);
  std::vector<Router::Route> Routes() const { return router_.Routes(); }

 private:
  bool Authorized(const ApiRequest& request) const;

  ApiResponse Healthz(ApiRequest& request);
  ApiResponse MetricsText(ApiRequest& request);
  ApiResponse Optimize(ApiRequest& request);
  ApiResponse ListJobs(ApiRequest& request);
  ApiResponse GetJob(ApiRequest& request);  // the job page for a browser (Accept: text/html)
  ApiResponse Index(ApiRequest& request);   // GET /: recent jobs as a page
  ApiResponse Evals(ApiRequest& request);   // GET /evals: the model leaderboard
  ApiResponse CancelJob(ApiRequest& request);
  ApiResponse JobEvents(ApiRequest& request);
  ApiResponse Validate(ApiRequest& request);
  ApiResponse Diagnose(ApiRequest& request);
  ApiResponse ListOps(ApiRequest& request);
  ApiResponse GetOp(ApiRequest& request);
  ApiResponse ListSkills(ApiRequest& request);

  // The stored job as GET /jobs/{id} shows it (404 when unknown).
  ApiResponse JobDocument(int status, const std::string& id);
  // GET /jobs/{id}'s document; nullopt for an unknown job.
  Result<std::optional<nlohmann::json>> FindJob(const std::string& id);
  // The answer to an accepted (or replayed) submission, after waiting if asked to.
  ApiResponse Accepted(const SubmitResult& submitted, bool wait);

  // A connection held open (an event stream, a ?wait=true request) takes a slot until the
  // returned object dies; nullptr when none is free. A few HTTP threads always stay free
  // for short requests, so /healthz answers however many clients follow jobs.
  class HeldSlot {
   public:
    explicit HeldSlot(std::atomic<int>* held) : held_(held) {}
    HeldSlot(const HeldSlot&) = delete;
    HeldSlot& operator=(const HeldSlot&) = delete;
    ~HeldSlot() { held_->fetch_sub(1); }

   private:
    std::atomic<int>* held_;
  };
  std::shared_ptr<HeldSlot> HoldConnection();

  Service* service_;
  std::vector<std::string> tokens_;
  Router router_;
  std::atomic<int> held_{0};
};

}  // namespace cannbot::service
