// JobQueue: the in-memory line of job ids waiting for a worker, bounded so that a flood of
// submissions is answered with 429 instead of growing without limit. The durable queue is
// the store (jobs in state "queued"); this is its mirror for fast hand-off to workers.
//
// Admission is two-step so a job is never stored without its place: Reserve() a place, store
// the job, then PushReserved() its id (or CancelReservation() when storing failed).
// PushRecovered() ignores the bound: after a restart every unfinished job goes back in line.
// Higher priorities (JobOptions::priority) go first; equals keep their order.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

namespace cannbot::service {

class JobQueue {
 public:
  explicit JobQueue(size_t capacity) : capacity_(capacity) {}

  // Takes a place in line; false when the line is full or closed.
  bool Reserve();
  void PushReserved(std::string id, int priority = 0);
  void CancelReservation();
  void PushRecovered(std::string id);
  // Drops a queued id (a cancelled job); false when it is not waiting.
  bool Remove(const std::string& id);
  // The next id, waiting for one; nullopt once the queue is closed.
  std::optional<std::string> Pop();
  // Wakes every Pop with nullopt; ids still waiting stay queued in the store.
  void Close();

  size_t size() const;  // waiting ids (reserved places included)
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  struct Waiting {
    std::string id;
    int priority = 0;
  };
  std::deque<Waiting> ids_;
  size_t reserved_ = 0;
  bool closed_ = false;
};

}  // namespace cannbot::service
