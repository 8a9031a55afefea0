#include "cannbot/service/event_hub.h"

namespace cannbot::service {

uint64_t EventHub::version() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return version_;
}

void EventHub::Publish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++version_;
  }
  changed_.notify_all();
}

bool EventHub::WaitPast(uint64_t seen, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, timeout, [&] { return closed_ || version_ > seen; });
  return version_ > seen;
}

void EventHub::Close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }
  changed_.notify_all();
}

bool EventHub::closed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return closed_;
}

}  // namespace cannbot::service
