// JobStore's shared line: claims, leases and cancellation requests (job_store.h).
#include "cannbot/service/job_store.h"

#include <algorithm>

namespace cannbot::service {
namespace {

using store::DoubleAt;
using store::IntAt;
using store::Row;
using store::TextAt;

}  // namespace

Result<std::vector<std::string>> JobStore::RequeueExpired() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> requeued;
  Status s = InTransaction([&]() -> Status {
    // Only leased jobs expire: a job Start()ed by a lone daemon has no lease_owner.
    CANNBOT_ASSIGN_OR_RETURN(
        std::vector<Row> rows,
        db().Query("SELECT id, lease_owner FROM jobs WHERE state = 'running' AND "
                   "lease_owner <> '' AND lease_until < ?" + SkipLocked(),
                   {clock_()}));
    for (const Row& row : rows) {
      const std::string id = TextAt(row, 0);
      CANNBOT_RETURN_IF_ERROR(db().Execute(
          "UPDATE jobs SET state = 'queued', lease_owner = '', lease_until = 0 WHERE id = ?",
          {id}));
      CANNBOT_RETURN_IF_ERROR(
          AppendEventLocked(id, "requeued",
                            {{"reason", "the lease of worker " + TextAt(row, 1) +
                                            " ran out (the worker stopped answering)"}})
              .status());
      requeued.push_back(id);
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return requeued;
}

Result<std::optional<ClaimedJob>> JobStore::Claim(const std::string& worker,
                                                  double lease_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<ClaimedJob> claimed;
  Status s = InTransaction([&]() -> Status {
    // Fairness among submitters: of the jobs with the highest priority, the one whose owner
    // has the fewest jobs running now, then the oldest. Locked rows are another worker's
    // claim in progress: skipped, not waited for.
    CANNBOT_ASSIGN_OR_RETURN(
        std::vector<Row> next,
        db().Query("SELECT id FROM jobs j WHERE state = 'queued' ORDER BY priority DESC, "
                   "(SELECT COUNT(*) FROM jobs r WHERE r.state = 'running' AND "
                   "r.owner = j.owner), seq LIMIT 1" + SkipLocked()));
    if (next.empty()) return Status::Ok();
    const std::string id = TextAt(next[0], 0);
    const double now = clock_();
    CANNBOT_ASSIGN_OR_RETURN(
        std::vector<Row> rows,
        db().Query("UPDATE jobs SET state = 'running', runs = runs + 1, started_at = ?, "
                   "lease_owner = ?, lease_until = ?, cancel_requested = 0 WHERE id = ? "
                   "RETURNING runs, created_at",
                   {now, worker, now + lease_seconds, id}));
    if (rows.empty()) return Status::Ok();
    ClaimedJob job{id, static_cast<int>(IntAt(rows[0], 0)), now - DoubleAt(rows[0], 1)};
    CANNBOT_RETURN_IF_ERROR(
        AppendEventLocked(id, "started", {{"run", job.run}, {"worker", worker}}).status());
    claimed = job;
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return claimed;
}

Result<LeaseStatus> JobStore::Renew(const std::string& id, const std::string& worker,
                                    double lease_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  CANNBOT_ASSIGN_OR_RETURN(
      std::vector<Row> rows,
      db().Query("UPDATE jobs SET lease_until = ? WHERE id = ? AND state = 'running' AND "
                 "lease_owner = ? RETURNING cancel_requested",
                 {clock_() + lease_seconds, id, worker}));
  LeaseStatus status;
  status.held = !rows.empty();
  status.cancel_requested = status.held && IntAt(rows[0], 0) != 0;
  return status;
}

Result<bool> JobStore::RequestCancel(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  bool asked = false;
  Status s = InTransaction([&]() -> Status {
    CANNBOT_ASSIGN_OR_RETURN(
        std::vector<Row> rows,
        db().Query("UPDATE jobs SET cancel_requested = 1 WHERE id = ? AND state = 'running' "
                   "RETURNING id",
                   {id}));
    asked = !rows.empty();
    if (!asked) return Status::Ok();
    return AppendEventLocked(id, "cancelling", {{"reason", "a client asked to cancel"}})
        .status();
  });
  if (!s.ok()) return s;
  return asked;
}

Result<QueueStats> JobStore::Queue() {
  std::lock_guard<std::mutex> lock(mutex_);
  CANNBOT_ASSIGN_OR_RETURN(
      std::vector<Row> rows,
      db().Query("SELECT COUNT(*), MIN(created_at) FROM jobs WHERE state = 'queued'"));
  QueueStats stats;
  if (rows.empty()) return stats;
  stats.depth = IntAt(rows[0], 0);
  if (stats.depth > 0) stats.oldest_age_seconds = std::max(0.0, clock_() - DoubleAt(rows[0], 1));
  return stats;
}

}  // namespace cannbot::service
