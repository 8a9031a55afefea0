#include "cannbot/util/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cannbot/util/fs.h"
#include "unit_support.h"

namespace cannbot {
namespace {

using std::chrono::milliseconds;

SpawnOptions Sh(const std::string& script) {
  SpawnOptions options;
  options.argv = {"/bin/sh", "-c", script};
  return options;
}

using cannbot::test::Contains;

// True when `pid` no longer runs: gone from /proc, or a zombie waiting for its reaper.
bool ProcessIsDead(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string line;
  std::getline(stat, line);
  const size_t paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size()) return true;
  const char state = line[paren + 2];
  return state == 'Z' || state == 'X';
}

// Waits (generously) for the kernel to finish delivering SIGKILL.
bool EventuallyDead(pid_t pid) {
  const auto deadline = SteadyClock::now() + std::chrono::seconds(5);
  while (SteadyClock::now() < deadline) {
    if (ProcessIsDead(pid)) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return ProcessIsDead(pid);
}

std::vector<pid_t> ReadPids(const std::string& path) {
  std::vector<pid_t> pids;
  std::ifstream in(path);
  long pid = 0;
  while (in >> pid) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

// Kills processes this test started that somehow survived, so a failure leaves nothing behind.
void KillSurvivors(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    if (pid > 1 && !ProcessIsDead(pid)) ::kill(pid, SIGKILL);
  }
}

// Waits until `path` holds at least `count` pids.
std::vector<pid_t> WaitForPids(const std::string& path, size_t count) {
  const auto deadline = SteadyClock::now() + std::chrono::seconds(10);
  std::vector<pid_t> pids;
  while (SteadyClock::now() < deadline) {
    pids = ReadPids(path);
    if (pids.size() >= count) break;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return pids;
}

// Reads `fd` to end of file; nullopt when that does not come by `deadline` (a writer is held).
std::optional<std::string> ReadToEof(int fd, SteadyClock::time_point deadline) {
  std::string got;
  char buffer[256];
  while (true) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - SteadyClock::now());
    pollfd p{fd, POLLIN, 0};
    const int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
    if (ready == 0) return std::nullopt;
    const ssize_t n = ready > 0 ? ::read(fd, buffer, sizeof(buffer)) : -1;
    if (n == 0) return got;
    if (n > 0) got.append(buffer, static_cast<size_t>(n));
    if (n < 0 && errno != EINTR) return std::nullopt;
  }
}

TEST(SubprocessTest, RunCommandCapturesStdoutAndStderr) {
  auto result = RunCommand(Sh("echo to-stdout; echo to-stderr 1>&2; echo again"), milliseconds(10000));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->exit.Success()) << result->exit.Describe();
  EXPECT_FALSE(result->timed_out);
  EXPECT_FALSE(result->output_truncated);
  EXPECT_EQ(result->output, "to-stdout\nto-stderr\nagain\n");
  EXPECT_GE(result->seconds, 0.0);
}

TEST(SubprocessTest, RunCommandGivesTheChildAnEmptyStdin) {
  // stdin is /dev/null: a reader sees end of file at once instead of waiting for input.
  auto result = RunCommand(Sh("cat; echo after-cat"), milliseconds(10000));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(result->timed_out);
  EXPECT_TRUE(result->exit.Success()) << result->exit.Describe();
  EXPECT_EQ(result->output, "after-cat\n");
}

TEST(SubprocessTest, RunCommandReportsExitCodes) {
  auto zero = RunCommand(Sh("exit 0"), milliseconds(10000));
  ASSERT_TRUE(zero.ok());
  EXPECT_TRUE(zero->exit.exited);
  EXPECT_EQ(zero->exit.exit_code, 0);
  EXPECT_TRUE(zero->exit.Success());

  for (int code : {1, 3, 42, 255}) {
    auto result = RunCommand(Sh("echo failing; exit " + std::to_string(code)), milliseconds(10000));
    ASSERT_TRUE(result.ok());
    EXPECT_TRUE(result->exit.exited);
    EXPECT_EQ(result->exit.exit_code, code);
    EXPECT_FALSE(result->exit.Success());
    EXPECT_FALSE(result->timed_out);
    EXPECT_EQ(result->output, "failing\n");
    EXPECT_TRUE(Contains(result->exit.Describe(), std::to_string(code)))
        << result->exit.Describe();
  }
}

TEST(SubprocessTest, RunCommandReportsDeathBySignal) {
  auto result = RunCommand(Sh("ulimit -c 0; kill -SEGV $$"), milliseconds(10000));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(result->exit.exited);
  EXPECT_EQ(result->exit.signal, SIGSEGV);
  EXPECT_FALSE(result->exit.Success());
  EXPECT_FALSE(result->timed_out);
  const std::string text = result->exit.Describe();
  EXPECT_TRUE(Contains(text, "SIGSEGV")) << text;
  EXPECT_TRUE(Contains(text, "killed")) << text;
}

TEST(SubprocessTest, SignalNameNamesTheSignal) {
  EXPECT_TRUE(Contains(SignalName(SIGSEGV), "SIGSEGV"));
  EXPECT_TRUE(Contains(SignalName(SIGKILL), "SIGKILL"));
  EXPECT_TRUE(Contains(SignalName(SIGABRT), "SIGABRT"));
  ExitInfo exited;
  exited.exited = true;
  exited.exit_code = 7;
  EXPECT_EQ(exited.Describe(), "exited with status 7");
}

TEST(SubprocessTest, RunCommandTimeoutFiresInsteadOfWaiting) {
  const auto start = SteadyClock::now();
  auto result = RunCommand(Sh("sleep 10"), milliseconds(300));
  const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->timed_out);
  EXPECT_FALSE(result->exit.Success());
  EXPECT_LT(elapsed, 5.0);  // proves the 10 s command was cut short, not how fast
}

TEST(SubprocessTest, BackgroundGrandchildHoldingThePipeDoesNotCountAsTimeout) {
  auto dir = TempDir::Create("cannbot-subprocess-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  const std::string pid_file = dir->File("pids");
  const auto start = SteadyClock::now();
  auto result =
      RunCommand(Sh("echo done; sleep 30 & echo $! > '" + pid_file + "'"), milliseconds(20000));
  const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
  const std::vector<pid_t> pids = ReadPids(pid_file);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(result->timed_out);
  EXPECT_TRUE(result->exit.Success()) << result->exit.Describe();
  EXPECT_EQ(result->output, "done\n");
  EXPECT_LT(elapsed, 10.0);  // did not wait for the 30 s grandchild or the 20 s limit
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_TRUE(EventuallyDead(pids[0])) << "the straggler " << pids[0] << " survived";
  KillSurvivors(pids);
}

TEST(SubprocessTest, RunCommandTimeoutKillsTheWholeProcessGroup) {
  auto dir = TempDir::Create("cannbot-subprocess-test");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  const std::string pid_file = dir->File("pids");
  // Two background sleeps whose pids the shell records, then the shell waits on them.
  const std::string script = "sleep 30 & echo $! > '" + pid_file + "'; sleep 30 & echo $! >> '" +
                             pid_file + "'; echo ready; wait";
  const auto start = SteadyClock::now();
  auto result = RunCommand(Sh(script), milliseconds(1500));
  const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
  const std::vector<pid_t> pids = ReadPids(pid_file);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->timed_out);
  EXPECT_LT(elapsed, 15.0);
  EXPECT_FALSE(result->exit.exited);
  EXPECT_EQ(result->exit.signal, SIGKILL) << result->exit.Describe();
  EXPECT_EQ(result->output, "ready\n");
  ASSERT_EQ(pids.size(), 2u) << "the shell did not record its children in time";
  for (pid_t pid : pids) {
    EXPECT_TRUE(EventuallyDead(pid)) << "sleep " << pid << " survived the timeout";
  }
  KillSurvivors(pids);
}

TEST(SubprocessTest, RunCommandOutputCapTruncates) {
  auto result = RunCommand(Sh("head -c 100000 /dev/zero | tr '\\0' a; echo done 1>&2"),
                           milliseconds(10000), 1000);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->exit.Success()) << result->exit.Describe();  // drained, not killed
  EXPECT_FALSE(result->timed_out);
  EXPECT_TRUE(result->output_truncated);
  EXPECT_EQ(result->output, std::string(1000, 'a'));
}

TEST(SubprocessTest, RunCommandOutputCapBoundary) {
  auto exact = RunCommand(Sh("printf abcd"), milliseconds(10000), 4);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->output, "abcd");
  EXPECT_FALSE(exact->output_truncated);

  auto over = RunCommand(Sh("printf abcd"), milliseconds(10000), 3);
  ASSERT_TRUE(over.ok());
  EXPECT_EQ(over->output, "abc");
  EXPECT_TRUE(over->output_truncated);
}

TEST(SubprocessTest, MissingProgramFailsCleanly) {
  for (const std::string program :
       {"/nonexistent/cannbot-no-such-program", "cannbot-no-such-program-in-path"}) {
    SCOPED_TRACE(program);
    SpawnOptions options;
    options.argv = {program, "--version"};
    auto result = RunCommand(options, milliseconds(10000));
    if (result.ok()) {
      EXPECT_FALSE(result->exit.Success());
      EXPECT_FALSE(result->timed_out);
    } else {
      EXPECT_TRUE(Contains(result.status().message(), program)) << result.status().ToString();
    }
  }
}

TEST(SubprocessTest, EmptyCommandLineIsRejected) {
  SpawnOptions options;
  auto child = ChildProcess::Spawn(options);
  EXPECT_FALSE(child.ok());
  auto run = RunCommand(options, milliseconds(1000));
  EXPECT_FALSE(run.ok());
}

TEST(SubprocessTest, EnvironmentAndWorkingDirectory) {
  auto dir = TempDir::Create("cannbot-subprocess-test");
  ASSERT_TRUE(dir.ok());
  SpawnOptions options = Sh("echo \"$CANNBOT_TEST_VAR|$HOME_FOR_TEST\"; pwd -P");
  options.inherit_environment = false;
  options.environment = {"CANNBOT_TEST_VAR=hello", "PATH=/usr/bin:/bin"};
  options.working_dir = dir->path();
  auto result = RunCommand(options, milliseconds(10000));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  char resolved[4096];
  ASSERT_NE(::realpath(dir->path().c_str(), resolved), nullptr);
  EXPECT_EQ(result->output, "hello|\n" + std::string(resolved) + "\n");
}

TEST(SubprocessTest, ChildProcessWritesOutputFile) {
  auto dir = TempDir::Create("cannbot-subprocess-test");
  ASSERT_TRUE(dir.ok());
  SpawnOptions options = Sh("echo out; echo err 1>&2; exit 5");
  options.output_path = dir->File("log");
  auto child = ChildProcess::Spawn(options);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  EXPECT_GT(child->pid(), 0);
  auto exit = child->WaitUntil(SteadyClock::now() + std::chrono::seconds(10));
  ASSERT_TRUE(exit.has_value());
  EXPECT_TRUE(exit->exited);
  EXPECT_EQ(exit->exit_code, 5);
  EXPECT_FALSE(child->running());
  ASSERT_TRUE(child->exit_info().has_value());
  EXPECT_EQ(child->exit_info()->exit_code, 5);
  auto log = ReadFile(dir->File("log"));
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  EXPECT_EQ(log.value(), "out\nerr\n");
}

TEST(SubprocessTest, ChildProcessReceivesInheritedDescriptors) {
  // Numbers are whatever the kernel hands out (other threads open and close descriptors), so
  // one source may carry the number another is passed as: each must still arrive as itself.
  int a[2], b[2];
  ASSERT_EQ(::pipe2(a, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(b, O_CLOEXEC), 0);
  const int first = ::fcntl(a[1], F_DUPFD_CLOEXEC, 20);
  const int second = ::fcntl(b[1], F_DUPFD_CLOEXEC, first + 1);
  ::close(a[1]);
  ::close(b[1]);
  const std::string fd = " > /proc/self/fd/";  // dash's >& takes one digit only
  SpawnOptions options = Sh("echo A" + fd + std::to_string(second) + "; echo B" + fd +
                            std::to_string(second + 1));
  options.inherit_fds = {{first, second}, {second, second + 1}};
  auto child = ChildProcess::Spawn(options);
  ::close(first);
  ::close(second);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  const auto deadline = SteadyClock::now() + std::chrono::seconds(10);
  EXPECT_EQ(ReadToEof(a[0], deadline), "A\n");  // EOF too: no copy of a write end is left
  EXPECT_EQ(ReadToEof(b[0], deadline), "B\n");
  ::close(a[0]);
  ::close(b[0]);
  auto exit = child->WaitUntil(deadline);
  ASSERT_TRUE(exit.has_value());
  EXPECT_TRUE(exit->Success()) << exit->Describe();
}

TEST(SubprocessTest, WaitUntilTimesOutThenKillReaps) {
  auto child = ChildProcess::Spawn(Sh("sleep 30"));
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  const pid_t pid = child->pid();
  auto none = child->WaitUntil(SteadyClock::now() + milliseconds(100));
  EXPECT_FALSE(none.has_value());
  EXPECT_TRUE(child->running());
  EXPECT_FALSE(child->Poll().has_value());
  ExitInfo killed = child->Kill();
  EXPECT_FALSE(killed.exited);
  EXPECT_EQ(killed.signal, SIGKILL);
  EXPECT_FALSE(child->running());
  // Reaped: the pid no longer exists at all.
  errno = 0;
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST(SubprocessTest, PollReapsAnExitedChild) {
  auto child = ChildProcess::Spawn(Sh("exit 9"));
  ASSERT_TRUE(child.ok());
  std::optional<ExitInfo> exit;
  const auto deadline = SteadyClock::now() + std::chrono::seconds(10);
  while (!exit && SteadyClock::now() < deadline) {
    exit = child->Poll();
    if (!exit) std::this_thread::sleep_for(milliseconds(5));
  }
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 9);
  EXPECT_FALSE(child->running());
  // Kill after exit changes nothing.
  ExitInfo again = child->Kill();
  EXPECT_TRUE(again.exited);
  EXPECT_EQ(again.exit_code, 9);
}

TEST(SubprocessTest, DestructorKillsRunningChild) {
  pid_t pid = -1;
  {
    auto child = ChildProcess::Spawn(Sh("sleep 30"));
    ASSERT_TRUE(child.ok()) << child.status().ToString();
    pid = child->pid();
    ASSERT_GT(pid, 0);
    EXPECT_EQ(::kill(pid, 0), 0);  // alive while owned
  }
  errno = 0;
  EXPECT_EQ(::kill(pid, 0), -1);  // killed and reaped
  EXPECT_EQ(errno, ESRCH);
}

TEST(SubprocessTest, DestructorKillsGrandchildrenToo) {
  auto dir = TempDir::Create("cannbot-subprocess-test");
  ASSERT_TRUE(dir.ok());
  const std::string pid_file = dir->File("pids");
  std::vector<pid_t> pids;
  {
    auto child =
        ChildProcess::Spawn(Sh("sleep 30 & echo $! > '" + pid_file + "'; wait"));
    ASSERT_TRUE(child.ok()) << child.status().ToString();
    pids = WaitForPids(pid_file, 1);
  }
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_TRUE(EventuallyDead(pids[0])) << "grandchild " << pids[0] << " survived";
  KillSurvivors(pids);
}

TEST(SubprocessTest, MovedChildIsOwnedByTheTarget) {
  auto spawned = ChildProcess::Spawn(Sh("sleep 30"));
  ASSERT_TRUE(spawned.ok());
  ChildProcess first = std::move(spawned).value();
  const pid_t pid = first.pid();
  ChildProcess second = std::move(first);
  EXPECT_EQ(second.pid(), pid);
  EXPECT_TRUE(second.running());
  EXPECT_FALSE(first.running());  // NOLINT(bugprone-use-after-move): moved-from is inert
  EXPECT_EQ(::kill(pid, 0), 0);   // moving did not kill it
  second.Kill();
  errno = 0;
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

// One command of the stress test below, of kind i % 5; "" when its result is exactly its own.
std::string StressOne(const TempDir& dir, int t, int i) {
  const std::string id = std::to_string(t) + "-" + std::to_string(i);
  const auto soon = SteadyClock::now() + std::chrono::seconds(20);
  const std::string ls = "; ls /proc/self/fd";  // lists 0-2, ls's own 3, and any leaked one
  std::string got, want;
  if (i % 5 == 3) {  // like the kernel runner: a ChildProcess with a pipe at fd 5 and a log file
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return "pipe2 failed";
    SpawnOptions options = Sh("echo via" + id + " >&5; echo log" + id + " >&2" + ls + "; exit 3");
    options.output_path = dir.File(id);
    options.inherit_fds = {{fds[1], 5}};
    auto child = ChildProcess::Spawn(options);
    ::close(fds[1]);
    const std::optional<std::string> via = ReadToEof(fds[0], soon);  // EOF: no one else holds it
    ::close(fds[0]);
    if (!child.ok()) return child.status().ToString();
    const std::optional<ExitInfo> exit = child->WaitUntil(soon);
    const auto log = ReadFile(dir.File(id));
    got = (exit ? exit->Describe() : "running") + "|" + via.value_or("no EOF") + "|" +
          (log.ok() ? *log : "no log");
    want = "exited with status 3|via" + id + "\n|log" + id + "\n0\n1\n2\n3\n5\n";
  } else if (i % 5 == 4) {  // a ChildProcess killed while it runs
    auto child = ChildProcess::Spawn(Sh("exec sleep 5"));
    if (!child.ok()) return child.status().ToString();
    const auto shortly = SteadyClock::now() + milliseconds(20);
    got = child->WaitUntil(shortly) ? "ended" : child->Kill().Describe();
    want = "was killed by " + SignalName(SIGKILL);
  } else {
    // RunCommand: an exit code with both streams; a longer one listing its descriptors (none of
    // a sibling's may leak in); a timeout; a background grandchild holding the pipe.
    const std::string code = std::to_string((t + i) % 7);
    std::string script = "echo out" + id + "; echo err" + id + " >&2; exit " + code;
    want = "exited with status " + code + "|out" + id + "\nerr" + id + "\n";
    milliseconds timeout(20000);
    if (i % 5 == 1) {
      script = "for k in 1 2 3 4 5 6; do echo ${k}" + id + "; echo e" + id + " >&2; done";
      script += "; sleep 0.05" + ls;
      want = "exited with status 0|";
      for (int k = 1; k <= 6; ++k) want += std::to_string(k) + id + "\ne" + id + "\n";
      want += "0\n1\n2\n3\n";
    } else if (i % 10 == 2) {
      script = "echo started" + id + "; exec sleep 5";
      timeout = milliseconds(300);
      want = "was killed by " + SignalName(SIGKILL) + ", timed out|started" + id + "\n";
    } else if (i % 10 == 7) {
      script = "echo bg" + id + "; sleep 5 &";
      want = "exited with status 0|bg" + id + "\n";
    }
    auto result = RunCommand(Sh(script), timeout);
    if (!result.ok()) return "RunCommand: " + result.status().ToString();
    // Under load the timeout may fire before the echo has run: no output is fine then.
    if (i % 10 == 2 && result->output.empty()) result->output = "started" + id + "\n";
    got = result->exit.Describe() + (result->timed_out ? ", timed out|" : "|") + result->output;
  }
  return got == want ? "" : id + ": got [" + got + "], want [" + want + "]\n";
}

size_t OpenDescriptors() {
  return static_cast<size_t>(std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                           std::filesystem::directory_iterator()));
}

// The daemon runs compiles (RunCommand) and kernel runners (ChildProcess) from many threads at
// once: 8 threads x 25 of every kind above, on 2 cores. Every result must be its own, and no
// descriptor or child may be left behind. (It replaces a 4-thread test that flaked because its
// threads set their own flags in one std::vector<bool>, whose elements share a word.)
TEST(SubprocessTest, StressConcurrentCommandsAndChildren) {
  auto dir = TempDir::Create("cannbot-subprocess-stress");
  ASSERT_TRUE(dir.ok()) << dir.status().ToString();
  siginfo_t info{};
  const bool childless =  // other tests run in this process may have left children of ours
      ::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD;
  const size_t descriptors = OpenDescriptors();
  std::vector<std::string> failures(8);  // each thread appends to its own element only
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &dir, &failures] {
      for (int i = 0; i < 25; ++i) failures[static_cast<size_t>(t)] += StressOne(*dir, t, i);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::string& failure : failures) EXPECT_EQ(failure, "");
  EXPECT_EQ(OpenDescriptors(), descriptors) << "descriptors leaked";
  if (childless) {
    errno = 0;
    EXPECT_EQ(::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT), -1) << "a child is left";
    EXPECT_EQ(errno, ECHILD);
  }
}

}  // namespace
}  // namespace cannbot
