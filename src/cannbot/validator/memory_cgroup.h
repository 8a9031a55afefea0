// Memory cgroups: a memory limit per child (runner or compiler) that the kernel cannot
// escape, inside one group for all of this process's children, so that however many jobs run
// at once they fit the machine together.
//
// Where a writable memory controller exists (cgroup v2 with memory enabled for our cgroup's
// children, or the cgroup v1 memory hierarchy), PrepareMemoryCgroups makes one group
// `cannbot-<pid>` beside this process's own, limited to a share of the machine's memory
// (MemoryCgroupConfig::machine_share), and every child gets a group of its own inside it,
// limited to what its job needs (the runner: its address-space limit; the compiler: its
// own). The child joins its group itself, before it confines itself or runs anything
// untrusted (runner --cgroup); the parent then checks /proc/<pid>/cgroup, a fact the child
// cannot forge. A child killed for going over its limit is reported so. Without a writable
// controller the rlimits are the only memory bound (kernel_runner.h), and reports say so.
//
// Ownership: MemoryCgroup owns its directory (removed once empty, after the child is gone).
// Thread-safety: MemoryCgroups is an immutable value once prepared; MemoryCgroup objects are
// used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cannbot/util/status.h"

namespace cannbot::validator {

struct MemoryCgroupConfig {
  // "auto": use a memory controller where one is writable, else rlimits alone;
  // "require": refuse to validate without one; "off": rlimits alone.
  std::string mode = "auto";
  // The share of the machine's memory all of this process's children may use together.
  double machine_share = 0.75;
};

// Where children's groups go; `dir` empty: no memory cgroups (then `why_not` says why).
struct MemoryCgroups {
  std::string dir;      // e.g. /sys/fs/cgroup/memory/.../cannbot-1234
  int version = 0;      // 1 or 2
  uint64_t total_limit_bytes = 0;
  std::string why_not;
  // Removes `dir` (when empty) once the last copy is gone, so a process that ends normally
  // leaves no group behind; a child group made after that makes it again.
  std::shared_ptr<const void> owner;
  bool enabled() const { return !dir.empty(); }
};

// Finds the controller and makes (or reuses) this process's group. Errors only for
// mode "require" without a usable controller, or an unknown mode.
Result<MemoryCgroups> PrepareMemoryCgroups(const MemoryCgroupConfig& config);

class MemoryCgroup {
 public:
  // A group `name` inside `groups` limited to `limit_bytes` (swap included where the
  // controller can say so).
  static Result<std::unique_ptr<MemoryCgroup>> Create(const MemoryCgroups& groups,
                                                      const std::string& name,
                                                      uint64_t limit_bytes);
  ~MemoryCgroup();
  MemoryCgroup(const MemoryCgroup&) = delete;
  MemoryCgroup& operator=(const MemoryCgroup&) = delete;

  const std::string& dir() const { return dir_; }
  uint64_t limit_bytes() const { return limit_bytes_; }
  // Whether `pid` is in this group (read from /proc/<pid>/cgroup).
  bool Holds(int pid) const;
  // Whether the kernel's out-of-memory killer ended a process of this group.
  bool OomKilled() const;
  // "a cgroup v1 memory limit of 1.3 GiB"
  std::string Describe() const;

 private:
  MemoryCgroup() = default;
  std::string dir_;
  std::string relative_;  // the group's path as /proc/<pid>/cgroup shows it
  int version_ = 0;
  uint64_t limit_bytes_ = 0;
};

}  // namespace cannbot::validator
