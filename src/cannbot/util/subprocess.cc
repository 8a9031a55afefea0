#include "cannbot/util/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

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
  for (const auto& [parent_fd, child_fd] : options.inherit_fds) {
    posix_spawn_file_actions_adddup2(&spawn.actions, parent_fd, child_fd);
  }
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
  pid_t got = ::waitpid(pid_, &status, WNOHANG);
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
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  exit_ = FromWaitStatus(status);
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
      if (!drain_until && child->Poll()) drain_until = SteadyClock::now() + std::chrono::milliseconds(200);
      continue;
    }
    if (ready < 0) continue;  // EINTR
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
    result.exit = *child->exit_info();
    ::kill(-child->pid(), SIGKILL);  // stragglers that held the pipe
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
  return result;
}

}  // namespace cannbot
