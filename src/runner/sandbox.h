// The runner's confinement: what a loaded kernel (and, in exec mode, the compiler) may do.
//
// Applied in the runner before any untrusted code runs, in stages:
//   stage one (before dlopen, so static constructors are covered too): a private user and
//     network namespace, every capability dropped (bounding set included), no new
//     privileges, Landlock (read-only access to the work directory, nothing else on the file
//     system, no TCP), and the seccomp allowlist of syscall_policy.h;
//   stage two (after every kernel is loaded): opening files is trapped as well, and, where
//     asked, making memory executable.
// A layer the machine does not offer becomes a warning; the parent refuses to go on with
// any warning unless the operator asked for an insecure sandbox (kernel_runner.h), and it
// checks the namespaces, capabilities, no_new_privs and seccomp itself in /proc.
//
// The runner is single-threaded; these functions are called once, from main.
#pragma once

#include <string>
#include <vector>

#include "runner/syscall_policy.h"

namespace cannbot::runner {

struct SandboxOptions {
  std::string work_dir;
  SandboxChannel channel;
  // Layers to leave out ("namespaces", "capabilities", "no_new_privs", "landlock",
  // "seccomp"), each reported as a warning: how tests show that validation fails closed.
  std::vector<std::string> withheld;
  // Stage two also forbids new executable memory (InstallNoNewCodeFilter): for kernels whose
  // loaded code reports to the parent (the ascendc count channel), which must stay the code
  // that was loaded.
  bool immutable_code = false;
};

// Returns warnings for the layers that could not be applied.
std::vector<std::string> EnterStageOne(const SandboxOptions& options);
std::vector<std::string> EnterStageTwo(const SandboxOptions& options);

// For exec mode: Landlock giving read/execute access to the system's program and library
// directories and read/write access to `work_dir` only, plus no network. Returns warnings.
std::vector<std::string> ConfineCompiler(const std::string& work_dir);

}  // namespace cannbot::runner
