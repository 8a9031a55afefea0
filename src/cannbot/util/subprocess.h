// Child processes: spawn with a chosen environment and file descriptors, in a process group
// of their own, wait with a deadline, and kill the whole group.
//
// Used for the compiler (RunCommand) and for the sandboxed kernel runner (ChildProcess).
// A child receives stdin (/dev/null), stdout and stderr and the descriptors listed in
// SpawnOptions::inherit_fds, nothing else: all others are closed in it, close-on-exec or not.
// A ChildProcess that dies with its owner kills and reaps its group: no process is left behind.
//
// Thread-safety: a ChildProcess belongs to one thread at a time; RunCommand and Spawn may run
// concurrently from any number of threads (each waits on, reaps and kills only its own child and
// group), provided no thread changes the environment meanwhile: an inherited environment is read
// from `environ`, which setenv may reallocate under the reader.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cannbot/util/status.h"

namespace cannbot {

using SteadyClock = std::chrono::steady_clock;

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0]: the program, absolute or looked up in PATH
  bool inherit_environment = true;
  std::vector<std::string> environment;  // used when inherit_environment is false
  // "NAME=value" entries added to (or replacing those of) the inherited environment.
  std::vector<std::string> extra_environment;
  std::string working_dir;               // "" = the parent's
  // stdout and stderr both go to this file (created 0600, truncated); "" = /dev/null.
  std::string output_path;
  // {parent_fd, child_fd}: descriptors the child receives, at the given numbers.
  std::vector<std::pair<int, int>> inherit_fds;
};

struct ExitInfo {
  bool exited = false;  // true: normal exit with exit_code; false: killed by `signal`
  int exit_code = 0;
  int signal = 0;

  bool Success() const { return exited && exit_code == 0; }
  // "exited with status 1" or "was killed by SIGSEGV (segmentation fault)".
  std::string Describe() const;
};

class ChildProcess {
 public:
  static Result<ChildProcess> Spawn(const SpawnOptions& options);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();  // Kill() if still running

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0 && !exit_.has_value(); }
  // Exit status once reaped.
  const std::optional<ExitInfo>& exit_info() const { return exit_; }

  // Waits for the child to exit until `deadline`; nullopt if it is still running then.
  std::optional<ExitInfo> WaitUntil(SteadyClock::time_point deadline);
  // Non-blocking: reaps the child if it has exited.
  std::optional<ExitInfo> Poll();
  // SIGKILL to the child's whole process group, then reaps the child.
  ExitInfo Kill();

 private:
  explicit ChildProcess(pid_t pid, int pidfd) : pid_(pid), pidfd_(pidfd) {}
  void Release();

  pid_t pid_ = -1;
  int pidfd_ = -1;  // -1 when the kernel has no pidfd_open
  std::optional<ExitInfo> exit_;
};

struct CommandResult {
  ExitInfo exit;
  bool timed_out = false;
  // stdout and stderr interleaved, at most output_cap bytes, made valid UTF-8 (util/utf8.h)
  std::string output;
  bool output_truncated = false;
  double seconds = 0;
};

// Runs a command to completion with stdout+stderr captured, killing its whole process group
// when `timeout` runs out. Fails only when the command cannot be started.
Result<CommandResult> RunCommand(SpawnOptions options, std::chrono::milliseconds timeout,
                                 size_t output_cap = 1u << 20);

// "SIGSEGV (segmentation fault)".
std::string SignalName(int signal);

}  // namespace cannbot
