#include "cannbot/service/job_queue.h"

#include <algorithm>

namespace cannbot::service {

bool JobQueue::Reserve() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_ || ids_.size() + reserved_ >= capacity_) return false;
  ++reserved_;
  return true;
}

void JobQueue::PushReserved(std::string id, int priority) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (reserved_ > 0) --reserved_;
    // Behind every id of the same or a higher priority: FIFO among equals.
    auto at = std::find_if(ids_.begin(), ids_.end(),
                           [&](const Waiting& w) { return w.priority < priority; });
    ids_.insert(at, Waiting{std::move(id), priority});
  }
  ready_.notify_one();
}

void JobQueue::CancelReservation() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (reserved_ > 0) --reserved_;
}

void JobQueue::PushRecovered(std::string id) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ids_.push_back(Waiting{std::move(id), 0});
  }
  ready_.notify_one();
}

bool JobQueue::Remove(const std::string& id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find_if(ids_.begin(), ids_.end(), [&](const Waiting& w) { return w.id == id; });
  if (it == ids_.end()) return false;
  ids_.erase(it);
  return true;
}

std::optional<std::string> JobQueue::Pop() {
  std::unique_lock<std::mutex> lock(mutex_);
  ready_.wait(lock, [&] { return closed_ || !ids_.empty(); });
  if (closed_) return std::nullopt;
  std::string id = std::move(ids_.front().id);
  ids_.pop_front();
  return id;
}

void JobQueue::Close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  ready_.notify_all();
}

size_t JobQueue::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ids_.size() + reserved_;
}

}  // namespace cannbot::service
