#include "cannbot/service/service_metrics.h"

namespace cannbot::service {

ServiceMetrics::ServiceMetrics(Metrics& registry)
    : jobs(registry.Gauge("cannbot_jobs", "Jobs in the store, by state.")),
      queue_depth(registry.Gauge("cannbot_queue_depth", "Jobs waiting for a worker.")),
      workers_busy(registry.Gauge("cannbot_workers_busy", "Workers running a job.")),
      submitted(registry.Counter("cannbot_jobs_submitted_total",
                                 "Jobs accepted by POST /optimize since the daemon started.")),
      finished(registry.Counter("cannbot_jobs_finished_total",
                                "Jobs that ended since the daemon started, by final state.")),
      attempts(registry.Counter("cannbot_attempts_total",
                                "Candidates judged, by outcome and by the layer that decided.")),
      validation_seconds(registry.Histogram(
          "cannbot_validation_seconds", "Time to validate one candidate (all layers reached).",
          {0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120})),
      llm_seconds(registry.Histogram("cannbot_llm_request_seconds",
                                     "Time for one round of LLM proposals (retries included).",
                                     {0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600})),
      job_seconds(registry.Histogram("cannbot_job_seconds",
                                     "Time from a job's start to its end, by final state.",
                                     {1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600})),
      http_requests(registry.Counter("cannbot_http_requests_total",
                                     "HTTP requests answered, by status code.")),
      queue_oldest_seconds(registry.Gauge("cannbot_queue_oldest_seconds",
                                          "Age of the oldest job waiting for a worker.")),
      claim_wait_seconds(registry.Histogram(
          "cannbot_claim_wait_seconds", "Time from a job's submission to its claim by a worker.",
          {0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800})),
      lease_expiries(registry.Counter(
          "cannbot_lease_expiries_total",
          "Jobs this process put back in line because their worker's lease ran out.")),
      lost_leases(registry.Counter(
          "cannbot_lost_leases_total",
          "Runs this worker dropped because another worker took their job over.")) {}

}  // namespace cannbot::service
