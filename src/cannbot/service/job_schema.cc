#include "cannbot/service/job_schema.h"

namespace cannbot::service {

const std::vector<std::string>& PostgresJobMigrations() {
  static const std::vector<std::string> kMigrations = {
      R"sql(
CREATE TABLE jobs (
  seq BIGSERIAL PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL,
  op TEXT NOT NULL,
  spec_json TEXT NOT NULL,
  request_id TEXT NOT NULL DEFAULT '',
  runs BIGINT NOT NULL DEFAULT 0,
  error_code TEXT NOT NULL DEFAULT '',
  error_message TEXT NOT NULL DEFAULT '',
  found BIGINT NOT NULL DEFAULT 0,
  speedup DOUBLE PRECISION,
  report_json TEXT,
  report_text TEXT,
  created_at DOUBLE PRECISION NOT NULL,
  started_at DOUBLE PRECISION,
  finished_at DOUBLE PRECISION,
  priority BIGINT NOT NULL DEFAULT 0,
  owner TEXT NOT NULL DEFAULT '',
  lease_owner TEXT NOT NULL DEFAULT '',
  lease_until DOUBLE PRECISION NOT NULL DEFAULT 0,
  cancel_requested BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX jobs_by_state ON jobs (state, seq);
CREATE TABLE job_attempts (
  job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  run BIGINT NOT NULL,
  idx BIGINT NOT NULL,
  attempt_json TEXT NOT NULL,
  created_at DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (job_id, run, idx)
);
CREATE TABLE job_events (
  job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  seq BIGINT NOT NULL,
  type TEXT NOT NULL,
  data_json TEXT NOT NULL,
  created_at DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (job_id, seq)
);
CREATE TABLE idempotency_keys (
  key TEXT PRIMARY KEY,
  job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  request_hash TEXT NOT NULL,
  created_at DOUBLE PRECISION NOT NULL
);
)sql",
  };
  return kMigrations;
}

}  // namespace cannbot::service
