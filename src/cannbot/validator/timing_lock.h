// TimingLock: one timing at a time per CPU across every process of this machine.
//
// The perf gate times two kernels alternately on one pinned CPU; a second validation timing
// on that CPU at the same moment (another `cannbot validate`, a daemon, a CI job) halves what
// both measure. Within one process the Validator serialises its own timings; this lock, an
// flock(2) on a file per CPU (/run/lock/cannbot-timing-cpuN.lock, else in the temporary
// directory), serialises them between processes. Where no lock file can be opened it does
// nothing (the timings are then only as good as the machine is quiet), and says so.
//
// Ownership: the lock is held from Acquire until the object is destroyed. Thread-safety: one
// owner; the kernel releases the lock if the process dies.
#pragma once

#include <string>

namespace cannbot::validator {

class TimingLock {
 public:
  // Blocks until no other process times on `cpu`.
  static TimingLock Acquire(int cpu);
  ~TimingLock();
  TimingLock(TimingLock&& other) noexcept;
  TimingLock& operator=(TimingLock&&) = delete;
  TimingLock(const TimingLock&) = delete;

  bool held() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }

 private:
  TimingLock() = default;
  int fd_ = -1;
  std::string path_;
};

}  // namespace cannbot::validator
