#include "cannbot/util/subprocess.h"

#include "cannbot/util/utf8.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <thread>

extern char** environ;

namespace cannbot {
namespace {

ExitInfo FromWaitStatus(int status) {
  ExitInfo info;
  if (WIFEXITED(status)) {
    info.exited = true;
    info.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    info.signal = WTERMSIG(status);
  }
  return info;
}

int OpenPidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd >= 0) {
    ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
    return static_cast<int>(fd);
  }
#endif
  return -1;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// posix_spawn's RAII wrappers: destroyed on every return path.
struct SpawnAttributes {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnAttributes() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnAttributes() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

// Descriptors closed when the spawn is over, on every return path.
struct ClosedOnExit {
  std::vector<int> fds;
  ~ClosedOnExit() {
    for (int fd : fds) ::close(fd);
  }
};

// True once `pid` (our child) has exited, without reaping it: until it is reaped its zombie
// keeps its pid, and so its process-group id, from being handed to a new process.
bool ExitedButNotReaped(pid_t pid) {
  siginfo_t info{};
  int rc;
  do {
    rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc < 0 && errno == EINTR);
  return rc == 0 && info.si_pid == pid;
}

// This process's environment with `extra` entries added or replacing same-named ones.
std::vector<std::string> MergedEnvironment(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string text = *entry;
    const std::string name = text.substr(0, text.find('=') + 1);
    bool replaced = false;
    for (const std::string& e : extra) replaced = replaced || e.rfind(name, 0) == 0;
    if (!replaced) env.push_back(text);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

}  // namespace

std::string SignalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  std::string name = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
  if (const char* description = sigdescr_np(signal)) {
    std::string lower = description;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    name += " (" + lower + ")";
  }
  return name;
}

std::string ExitInfo::Describe() const {
  if (exited) return "exited with status " + std::to_string(exit_code);
  return "was killed by " + SignalName(signal);
}

Result<ChildProcess> ChildProcess::Spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return Status::InvalidArgument("empty command line");
  SpawnAttributes spawn;
  // A new process group, default signal dispositions and an empty signal mask, whatever
  // the spawning thread had.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&spawn.attr, &all);
  posix_spawnattr_setsigmask(&spawn.attr, &none);
  posix_spawnattr_setpgroup(&spawn.attr, 0);
  posix_spawnattr_setflags(&spawn.attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                            POSIX_SPAWN_SETSIGMASK);
  posix_spawn_file_actions_addopen(&spawn.actions, 0, "/dev/null", O_RDONLY, 0);
  const std::string out = options.output_path.empty() ? "/dev/null" : options.output_path;
  posix_spawn_file_actions_addopen(&spawn.actions, 1, out.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&spawn.actions, 1, 2);
  // The child applies these actions one after another, so a parent descriptor whose number is
  // also a target (0-2 above, or another entry's child_fd) would be overwritten before it is
  // copied. Which numbers the kernel hands out depends on what other threads open and close
  // meanwhile, so every source is first copied above all targets (close-on-exec, so a sibling
  // spawned concurrently cannot inherit it), and the copies are closed after the spawn.
  int above_targets = 3;
  for (const auto& fds : options.inherit_fds) {
    if (fds.second < 0) return Status::InvalidArgument("negative descriptor number for the child");
    above_targets = std::max(above_targets, fds.second + 1);
  }
  ClosedOnExit sources;
  for (const auto& [parent_fd, child_fd] : options.inherit_fds) {
    const int source = ::fcntl(parent_fd, F_DUPFD_CLOEXEC, above_targets);
    if (source < 0) {
      return Status::IoError("cannot start " + options.argv[0] + ": descriptor " +
                             std::to_string(parent_fd) + ": " + std::strerror(errno));
    }
    sources.fds.push_back(source);
    posix_spawn_file_actions_adddup2(&spawn.actions, source, child_fd);
  }
  // Everything else is closed in the child, close-on-exec or not: cpp-httplib 0.11 opens its
  // listening and client sockets without the flag, and our own parent may pass us some. Left
  // open, each would reach every child spawned while it is open and hold it past its owner's
  // close (a finished request's connection, a pipe whose reader then never sees end of file).
  std::vector<bool> is_target(static_cast<size_t>(above_targets), false);
  for (const auto& fds : options.inherit_fds) is_target[static_cast<size_t>(fds.second)] = true;
  for (int fd = 3; fd < above_targets; ++fd) {
    // An fd the child does not have is fine: posix_spawn ignores EBADF from a close action.
    if (!is_target[static_cast<size_t>(fd)]) posix_spawn_file_actions_addclose(&spawn.actions, fd);
  }
  posix_spawn_file_actions_addclosefrom_np(&spawn.actions, above_targets);
  if (!options.working_dir.empty()) {
    posix_spawn_file_actions_addchdir_np(&spawn.actions, options.working_dir.c_str());
  }
  std::vector<std::string> argv = options.argv;
  std::vector<std::string> env = options.environment;
  if (options.inherit_environment) env = MergedEnvironment(options.extra_environment);
  std::vector<char*> c_argv = CStrings(argv);
  std::vector<char*> c_env = CStrings(env);
  char** envp = c_env.data();
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, c_argv[0], &spawn.actions, &spawn.attr, c_argv.data(), envp);
  if (rc != 0) {
    return Status::IoError("cannot start " + options.argv[0] + ": " + std::strerror(rc));
  }
  return ChildProcess(pid, OpenPidfd(pid));
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), pidfd_(other.pidfd_), exit_(std::move(other.exit_)) {
  other.pid_ = -1;
  other.pidfd_ = -1;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    Release();
    pid_ = other.pid_;
    pidfd_ = other.pidfd_;
    exit_ = std::move(other.exit_);
    other.pid_ = -1;
    other.pidfd_ = -1;
  }
  return *this;
}

ChildProcess::~ChildProcess() { Release(); }

void ChildProcess::Release() {
  if (running()) Kill();
  if (pidfd_ >= 0) ::close(pidfd_);
  pidfd_ = -1;
  pid_ = -1;
}

std::optional<ExitInfo> ChildProcess::Poll() {
  if (!running()) return exit_;
  int status = 0;
  pid_t got;
  do {
    got = ::waitpid(pid_, &status, WNOHANG);
  } while (got < 0 && errno == EINTR);
  if (got == pid_) exit_ = FromWaitStatus(status);
  return exit_;
}

std::optional<ExitInfo> ChildProcess::WaitUntil(SteadyClock::time_point deadline) {
  while (running()) {
    if (Poll()) break;
    auto now = SteadyClock::now();
    if (now >= deadline) return std::nullopt;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    if (pidfd_ >= 0) {
      pollfd p{pidfd_, POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(std::min<long long>(left + 1, 1000)));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min<long long>(left + 1, 2)));
    }
  }
  return exit_;
}

ExitInfo ChildProcess::Kill() {
  if (!running()) return exit_.value_or(ExitInfo{});
  ::kill(-pid_, SIGKILL);  // the whole group: grandchildren too
  ::kill(pid_, SIGKILL);   // in case it left its group
  int status = 0;
  pid_t got;
  do {
    got = ::waitpid(pid_, &status, 0);
  } while (got < 0 && errno == EINTR);
  if (got == pid_) {
    exit_ = FromWaitStatus(status);
  } else {
    // Reaped by someone else (ECHILD): the status is lost, but it was sent SIGKILL; never
    // report the untouched status 0 as a clean exit.
    exit_ = ExitInfo{};
    exit_->signal = SIGKILL;
  }
  return *exit_;
}

Result<CommandResult> RunCommand(SpawnOptions options, std::chrono::milliseconds timeout,
                                 size_t output_cap) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Status::IoError(std::strerror(errno));
  options.output_path = "/dev/null";
  options.inherit_fds.push_back({fds[1], 1});
  options.inherit_fds.push_back({fds[1], 2});
  const auto start = SteadyClock::now();
  auto child = ChildProcess::Spawn(options);
  ::close(fds[1]);
  if (!child.ok()) {
    ::close(fds[0]);
    return child.status();
  }
  CommandResult result;
  const auto deadline = start + timeout;
  // A background grandchild may keep the pipe open after the command itself has exited: read
  // on for a short grace period, then stop (the group is killed below).
  std::optional<SteadyClock::time_point> drain_until;
  char buffer[1 << 14];
  while (true) {
    const auto now = SteadyClock::now();
    if (drain_until && now >= *drain_until) break;
    if (now >= deadline) {
      result.timed_out = !drain_until.has_value();
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count() + 1, 50)));
    if (ready == 0) {
      // Not reaped here: see the straggler kill below.
      if (!drain_until && ExitedButNotReaped(child->pid())) {
        drain_until = SteadyClock::now() + std::chrono::milliseconds(200);
      }
      continue;
    }
    if (ready < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      break;  // cannot watch the pipe: stop reading and wait for the command as after EOF
    }
    ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: every writer is gone
    size_t room = output_cap - std::min(output_cap, result.output.size());
    result.output.append(buffer, std::min(room, static_cast<size_t>(n)));
    if (static_cast<size_t>(n) > room) result.output_truncated = true;
  }
  ::close(fds[0]);
  if (result.timed_out) {
    result.exit = child->Kill();
  } else if (drain_until) {
    // Stragglers that held the pipe. The command has exited but is not reaped yet, so its
    // zombie still owns the group id: once reaped, the id can go to a new process (a sibling
    // command spawned concurrently leads a group of its own), and the kill would hit that.
    // Kill() signals the group first, then reaps and returns the command's own exit status.
    result.exit = child->Kill();
  } else {
    auto exit = child->WaitUntil(deadline);
    if (exit) {
      result.exit = *exit;
    } else {
      result.timed_out = true;
      result.exit = child->Kill();
    }
  }
  result.seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
  // What a command prints may quote untrusted bytes (a compiler quoting a kernel's source).
  result.output = ValidUtf8(result.output);
  return result;
}

}  // namespace cannbot
