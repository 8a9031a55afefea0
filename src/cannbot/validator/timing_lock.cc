#include "cannbot/validator/timing_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace cannbot::validator {

TimingLock TimingLock::Acquire(int cpu) {
  TimingLock lock;
  const char* tmp = std::getenv("TMPDIR");
  const std::string name = "/cannbot-timing-cpu" + std::to_string(cpu) + ".lock";
  for (const std::string& dir : {std::string("/run/lock"), std::string(tmp ? tmp : "/tmp")}) {
    const std::string path = dir + name;
    // Anyone may take it: 0666 past the umask, set once by whoever creates it.
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0) (void)::fchmod(fd, 0666);
    if (fd < 0) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // made by another user
    if (fd < 0) continue;
    int rc;
    do {
      rc = ::flock(fd, LOCK_EX);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      ::close(fd);
      continue;
    }
    lock.fd_ = fd;
    lock.path_ = path;
    break;
  }
  return lock;
}

TimingLock::TimingLock(TimingLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

TimingLock::~TimingLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace cannbot::validator
