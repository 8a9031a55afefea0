// EventHub: wakes whoever waits for news about jobs (SSE streams, ?wait=true requests) when a
// job's events or state change. It carries no data: the JobStore is the one source of truth,
// and a woken waiter reads what is new from it. So a waiter can never miss an event that
// was published between its read and its wait: it waits for the hub's version to move past
// the one it saw before reading.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace cannbot::service {

class EventHub {
 public:
  // The current version; read it before reading the store.
  uint64_t version() const;
  // Something changed: bump the version and wake every waiter.
  void Publish();
  // Waits until the version is past `seen`, the hub closes, or `timeout` passes. True when
  // the version moved.
  bool WaitPast(uint64_t seen, std::chrono::milliseconds timeout) const;
  // Wakes every waiter for good (the daemon stops): streams end.
  void Close();
  bool closed() const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  uint64_t version_ = 0;
  bool closed_ = false;
};

}  // namespace cannbot::service
