// DaemonClient: a client of a cannbot daemon's HTTP API (docs/api.md), shared by
// `cannbot suggest --server` and `cannbot ci --server`: it sends a JobSpec and reads back the
// SuggestReport, so a remote run is the same value as a local one.
//
// A daemon that restarts in the middle loses nothing, and neither does this client: a
// submission carries one Idempotency-Key for all its retries (a retried POST finds the same
// job), 429/503 and refused connections are retried for up to `reconnect_for`, and the event
// stream is resumed with Last-Event-ID once the daemon is back.
//
// Errors: InvalidArgument for the daemon's 4xx (its error code and message in the text),
// Unavailable for 5xx or an unreachable daemon, Internal for answers that are not the API's.
// Thread-safety: one call at a time per client.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "cannbot/engine/engine.h"
#include "cannbot/optimize/loop.h"
#include "cannbot/util/status.h"

namespace cannbot::service {

struct DaemonClientConfig {
  std::string server;  // http://host:port[/prefix]
  std::string token;   // bearer token; "" = none
  std::chrono::seconds reconnect_for{120};  // how long an unreachable daemon is retried
};

// A finished daemon job: its id, its final status ("succeeded", "failed", "cancelled") and
// its report, read back into the value a local run returns.
struct RemoteJob {
  std::string id;
  std::string status;
  engine::SuggestReport report;
};

class DaemonClient {
 public:
  explicit DaemonClient(DaemonClientConfig config);

  // POST /optimize with `body` (the API's request document); returns the job id.
  Result<std::string> Submit(const nlohmann::json& body);

  // Follows GET /jobs/{id}/events until "finished", turning progress events into `progress`
  // calls. `on_requeued` (may be empty) hears why the daemon re-queued the job.
  Status Follow(const std::string& id, const optimize::ProgressFn& progress,
                const std::function<void(const std::string&)>& on_requeued = {});

  // GET /jobs/{id}: the whole job document.
  Result<nlohmann::json> Fetch(const std::string& id);

  // One whole remote run: submits `spec`, follows it to the end and reads its report back.
  // `on_submitted` hears the job id, `on_requeued` why the daemon re-queued it (either may be
  // empty). Errors as above, and Aborted for a job that ended without a report.
  Result<RemoteJob> Run(const engine::JobSpec& spec, const optimize::ProgressFn& progress,
                        const std::function<void(const std::string&)>& on_submitted = {},
                        const std::function<void(const std::string&)>& on_requeued = {});

  const std::string& server() const { return config_.server; }

 private:
  bool Dispatch(const std::string& frame, const optimize::ProgressFn& progress,
                const std::function<void(const std::string&)>& on_requeued);

  DaemonClientConfig config_;
  std::string base_;    // scheme://host:port
  std::string prefix_;  // a path prefix, "" when none
  int64_t last_event_ = 0;
};

}  // namespace cannbot::service
