// The runner's seccomp policy: an allowlist of the system calls a compute kernel (and the
// runner serving it) needs; every other call is trapped and reported by name.
//
// Stage one (before any kernel is loaded) allows memory management, reading and writing the
// descriptors the runner already holds, the clocks, and what the dynamic loader needs to
// open a shared object; a few calls are allowed only with safe arguments (signals only to
// itself, madvise without hole punching, prlimit64 only to read). Stage two (every kernel is
// loaded) traps opening files as well. A trapped call ends the runner after it has told the
// parent which call it was; installing a signal handler instead fails with EPERM (glibc
// installs handlers on the way to clone and execve, and the report should name those) and
// is reported when the kernel's call returns.
//
// The runner is single-threaded; these functions are called once each, from main.
#pragma once

#include <cstdint>
#include <string>

namespace cannbot::runner {

struct SandboxChannel {
  int fd = -1;          // where the trap handler reports a forbidden call
  uint64_t nonce = 0;   // so the report is a well-formed protocol reply
  const uint32_t* sequence = nullptr;  // the request being served
};

// Installs the SIGSYS handler and the stage-one allowlist. Returns "" or what failed.
std::string InstallAllowlist(const SandboxChannel& channel);
// Adds the stage-two filter (no more file opens). Returns "" or what failed.
std::string InstallNoOpenFilter();
// Adds a filter that traps mapping or protecting memory as executable, so the code loaded so
// far can no longer be changed (text pages made writable lose their execute right, and
// nothing gets it back). Returns "" or what failed.
std::string InstallNoNewCodeFilter();

// A forbidden call the kernel survived (it failed with EPERM), as a report sentence; "" if
// none. Checked after every load and call.
std::string TakePendingViolation();

}  // namespace cannbot::runner
