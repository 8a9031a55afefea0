// The runner's confinement: what a loaded kernel (and, in exec mode, the compiler) may do.
//
// Applied in the runner before any untrusted code runs, in stages:
//   stage one (before dlopen, so static constructors are covered too): no new privileges, a
//     private network namespace where possible, Landlock (read-only access to the work
//     directory, nothing else on the file system, no TCP), and a seccomp filter that traps
//     process and thread creation, exec, sockets, signals to other processes, signal handler
//     installation, tracing, limit and affinity changes, file modification and exotic kernel
//     interfaces;
//   stage two (after every kernel is loaded): opening files is trapped as well.
// A trapped system call ends the runner after it has told the parent which call it was
// (installing a signal handler instead fails with EPERM and is reported when the call ends).
// Mechanisms the kernel does not offer are skipped with a warning; the parent's own checks
// (outputs, threads, signal masks, time limits) still apply.
//
// The runner is single-threaded; these functions are called once, from main.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cannbot::runner {

struct SandboxChannel {
  int fd = -1;          // where the trap handler reports a forbidden call
  uint64_t nonce = 0;   // so the report is a well-formed protocol reply
  const uint32_t* sequence = nullptr;  // the request being served
};

// Returns warnings for the mechanisms that could not be applied.
std::vector<std::string> EnterStageOne(const std::string& work_dir, const SandboxChannel& channel);
std::vector<std::string> EnterStageTwo();

// A forbidden call the kernel survived (it failed with EPERM), as a report sentence; "" if
// none. Checked after every load and call.
std::string TakePendingViolation();

// For exec mode: Landlock giving read/execute access to the system's program and library
// directories and read/write access to `work_dir` only, plus no network. Returns warnings.
std::vector<std::string> ConfineCompiler(const std::string& work_dir);

}  // namespace cannbot::runner
