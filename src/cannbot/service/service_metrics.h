// ServiceMetrics: the daemon's metric families, declared once in one place so /metrics and
// docs/api.md list the same names.
//
//   cannbot_jobs{state}                        gauge, from the store at scrape time
//   cannbot_queue_depth                        gauge, jobs waiting for a worker
//   cannbot_workers_busy                       gauge
//   cannbot_jobs_submitted_total               counter
//   cannbot_jobs_finished_total{state}         counter
//   cannbot_attempts_total{outcome,layer}      counter; layer "accepted" or the failing layer
//   cannbot_validation_seconds                 histogram, one per validated candidate
//   cannbot_llm_request_seconds                histogram, one per LLM round trip
//   cannbot_job_seconds{state}                 histogram, one per finished job
//   cannbot_http_requests_total{code}          counter
//
// Ownership: the families belong to the Metrics passed in, which must outlive this.
// Thread-safety: as MetricFamily (every update may come from any thread).
#pragma once

#include "cannbot/service/metrics.h"

namespace cannbot::service {

struct ServiceMetrics {
  explicit ServiceMetrics(Metrics& registry);

  MetricFamily* jobs;
  MetricFamily* queue_depth;
  MetricFamily* workers_busy;
  MetricFamily* submitted;
  MetricFamily* finished;
  MetricFamily* attempts;
  MetricFamily* validation_seconds;
  MetricFamily* llm_seconds;
  MetricFamily* job_seconds;
  MetricFamily* http_requests;
  // The shared line (a PostgreSQL store): what every worker and front end sees of it.
  MetricFamily* queue_oldest_seconds;
  MetricFamily* claim_wait_seconds;
  MetricFamily* lease_expiries;
  MetricFamily* lost_leases;
};

}  // namespace cannbot::service
