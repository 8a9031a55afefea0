// A real, throwaway PostgreSQL server for integration tests: initdb into a fresh directory under
// /tmp, run `postgres` on a free loopback port, and stop it and delete the directory at the end.
//
// Ownership: the PostgresServer owns the server process and its temp directory; destroying it
// stops the server (fast shutdown) and removes the directory. The server also gets SIGINT if the
// thread that started it dies (PR_SET_PDEATHSIG), so it does not outlive a crashed test.
// Thread-safety: none; one test thread creates, uses and destroys it.
// As root (CI), initdb and postgres run as the system user `postgres`, which PostgreSQL requires.
#pragma once

#include <libpq-fe.h>

#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace cannbot::testing {

namespace pg_detail {

// The directory holding the server binaries: $CANNBOT_PG_BINDIR if set, else the highest-version
// /usr/lib/postgresql/<version>/bin with an executable `postgres`; "" when there is none.
inline std::string FindBinDir() {
  const char* env = std::getenv("CANNBOT_PG_BINDIR");
  if (env != nullptr && *env != '\0') return env;
  std::string best;
  double best_version = -1;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string bin = entry.path().string() + "/bin";
    const double version = std::strtod(entry.path().filename().c_str(), nullptr);
    if (access((bin + "/postgres").c_str(), X_OK) == 0 && version > best_version) {
      best = bin;
      best_version = version;
    }
  }
  return best;
}

// The last `max_lines` non-empty lines of a file joined with " | ", for one-line error messages.
inline std::string Tail(const std::string& path, size_t max_lines = 6) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  if (lines.empty()) return "(" + path + " is empty)";
  std::string out;
  for (size_t i = lines.size() > max_lines ? lines.size() - max_lines : 0; i < lines.size(); ++i) {
    out += (out.empty() ? "" : " | ") + lines[i];
  }
  return out;
}

// A loopback TCP port that was free a moment ago (bind port 0, read it back, close); 0 on failure.
inline int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

// Forks and execs argv[0] in `cwd`, stdin from /dev/null, stdout and stderr appended to `log`,
// as uid/gid when `drop` is set; the child gets SIGINT when the calling thread dies. Returns the
// child's pid, or -1. Everything is prepared before fork so the child only makes system calls.
inline pid_t Spawn(const std::vector<std::string>& argv, const std::string& log,
                   const std::string& cwd, bool drop, uid_t uid, gid_t gid) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t parent = getpid();
  const pid_t pid = (log_fd < 0 || null_fd < 0) ? -1 : fork();
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (dup2(null_fd, 0) < 0 || dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0) _exit(127);
    close_range(3, ~0U, 0);  // no inherited sockets or pipes of the test process
    if (chdir(cwd.c_str()) != 0) _exit(127);
    if (drop && (setgroups(1, &gid) != 0 || setgid(gid) != 0 || setuid(uid) != 0)) _exit(127);
    // After setuid: a credential change clears the parent-death signal.
    if (prctl(PR_SET_PDEATHSIG, SIGINT) != 0 || getppid() != parent) _exit(1);
    execv(args[0], args.data());
    _exit(127);
  }
  if (log_fd >= 0) close(log_fd);
  if (null_fd >= 0) close(null_fd);
  return pid;
}

// Waits up to `timeout` for child `pid` to exit and reaps it; true (with *status) if it did.
inline bool WaitFor(pid_t pid, std::chrono::milliseconds timeout, int* status) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const pid_t r = waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// "exit status N" or "signal N" for a waitpid status.
inline std::string Describe(int status) {
  return WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                           : "signal " + std::to_string(WTERMSIG(status));
}

}  // namespace pg_detail

class PostgresServer {
 public:
  // initdb into a fresh /tmp directory, start postgres on a free loopback port, wait until it
  // accepts connections and create database "cannbot". On failure: nullptr and *error (one
  // sentence, with the tail of the initdb or server log).
  static std::unique_ptr<PostgresServer> Start(std::string* error) {
    std::unique_ptr<PostgresServer> s(new PostgresServer);
    s->bin_ = pg_detail::FindBinDir();
    if (s->bin_.empty() || access((s->bin_ + "/postgres").c_str(), X_OK) != 0) {
      *error = "PostgreSQL server binaries were not found (looked in " +
               (s->bin_.empty() ? std::string("/usr/lib/postgresql/*/bin") : s->bin_) +
               "; set CANNBOT_PG_BINDIR); `tools/dev.sh test` installs the `postgresql` package.";
      return nullptr;
    }
    if (geteuid() == 0) {  // PostgreSQL refuses to run as root
      const passwd* pw = getpwnam("postgres");
      if (pw == nullptr) {
        *error = "running as root, but there is no `postgres` user to run the server as.";
        return nullptr;
      }
      s->drop_ = true, s->uid_ = pw->pw_uid, s->gid_ = pw->pw_gid;
    }
    char tmpl[] = "/tmp/cannbot-pg-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      *error = std::string("mkdtemp under /tmp failed: ") + std::strerror(errno) + ".";
      return nullptr;
    }
    s->dir_ = tmpl;  // from here on the destructor removes it
    if (s->drop_ && chown(tmpl, s->uid_, s->gid_) != 0) {
      *error = "could not chown " + s->dir_ + " to postgres: " + std::strerror(errno) + ".";
      return nullptr;
    }
    const std::string log = s->dir_ + "/initdb.log";
    const pid_t pid = pg_detail::Spawn(
        {s->bin_ + "/initdb", "-D", s->dir_ + "/data", "-A", "trust", "-U", "cannbot", "--no-sync",
         "-E", "UTF8", "--locale=C"},
        log, s->dir_, s->drop_, s->uid_, s->gid_);
    int status = 0;
    if (pid < 0 || !pg_detail::WaitFor(pid, std::chrono::seconds(120), &status)) {
      if (pid > 0) kill(pid, SIGKILL), waitpid(pid, &status, 0);
      *error = "initdb could not be run or took over 120 s: " + pg_detail::Tail(log);
      return nullptr;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      *error = "initdb failed (" + pg_detail::Describe(status) + "): " + pg_detail::Tail(log);
      return nullptr;
    }
    for (int attempt = 0;; ++attempt) {  // the free port may be taken before postgres binds it
      bool exited = false;
      if (s->Launch(pg_detail::FreePort(), error, &exited)) break;
      if (!exited || attempt == 2) return nullptr;
    }
    if (!s->CreateDatabase("cannbot", error)) return nullptr;
    return s;
  }

  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // Stops the server (fast shutdown) and removes the temp directory.
  ~PostgresServer() {
    std::string ignored;
    Stop(&ignored);
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  // "postgresql://cannbot@127.0.0.1:PORT/cannbot".
  std::string url() const { return UrlFor("cannbot"); }
  // The URL of another database on this server (as user cannbot, no password).
  std::string UrlFor(const std::string& database) const {
    return "postgresql://cannbot@127.0.0.1:" + std::to_string(port_) + "/" + database;
  }
  // The TCP port on 127.0.0.1.
  int port() const { return port_; }
  // The temp directory (data/, server.log, initdb.log, the unix socket).
  const std::string& dir() const { return dir_; }

  // CREATE DATABASE `name` (quoted as an identifier); false and *error on failure.
  bool CreateDatabase(const std::string& name, std::string* error) {
    PGconn* conn = PQconnectdb(UrlFor("postgres").c_str());
    bool ok = PQstatus(conn) == CONNECTION_OK;
    if (ok) {
      char* id = PQescapeIdentifier(conn, name.data(), name.size());
      PGresult* res = PQexec(conn, ("CREATE DATABASE " + std::string(id ? id : "\"\"")).c_str());
      ok = PQresultStatus(res) == PGRES_COMMAND_OK;
      PQclear(res);
      PQfreemem(id);
    }
    if (!ok) {
      std::string msg = PQerrorMessage(conn);
      while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
      *error = "CREATE DATABASE " + name + " failed: " + msg;
    }
    PQfinish(conn);
    return ok;
  }

  // Fast shutdown (SIGINT, up to 10 s, then SIGKILL), keeping the data directory. True if the
  // server was not running or shut down cleanly; false (with *error) if it had to be killed.
  bool Stop(std::string* error) {
    if (pid_ <= 0) return true;
    const pid_t pid = pid_;
    pid_ = -1;
    int status = 0;
    kill(pid, SIGINT);
    if (pg_detail::WaitFor(pid, std::chrono::seconds(10), &status)) return true;
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    *error = "postgres did not shut down within 10 s and was killed: " + Tail();
    return false;
  }

  // Stop, then start again on the same port and data directory and wait until it is ready.
  bool Restart(std::string* error) {
    bool exited = false;
    return Stop(error) && Launch(port_, error, &exited);
  }

  // Whether the server process is alive (it is not reaped here).
  bool running() const {
    if (pid_ <= 0) return false;
    siginfo_t info{};
    const int r = waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    return r == 0 && info.si_pid == 0;
  }
  // The postmaster's pid, or -1 when stopped.
  pid_t pid() const { return pid_; }

 private:
  PostgresServer() = default;

  // The tail of the server log, for error messages.
  std::string Tail() const { return pg_detail::Tail(dir_ + "/server.log"); }

  // Runs postgres on `port` and waits up to 30 s until it accepts connections. On failure sets
  // *error, and *exited when postgres exited by itself (e.g. the port was taken).
  bool Launch(int port, std::string* error, bool* exited) {
    port_ = port;
    const std::string p = std::to_string(port);
    pid_ = pg_detail::Spawn(
        {bin_ + "/postgres", "-D", dir_ + "/data", "-p", p, "-k", dir_, "-c",
         "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c",
         "full_page_writes=off", "-c", "max_connections=100"},
        dir_ + "/server.log", dir_, drop_, uid_, gid_);
    if (pid_ < 0) {
      *error = std::string("could not fork postgres: ") + std::strerror(errno) + ".";
      return false;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1, *exited = true;
        *error = "postgres exited (" + pg_detail::Describe(status) + ") on port " + p +
                 " before accepting connections: " + Tail();
        return false;
      }
      // connect_timeout: something else listening on the port must not hang the ping.
      if (PQping((UrlFor("postgres") + "?connect_timeout=2").c_str()) == PQPING_OK) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::string ignored;
    Stop(&ignored);
    *error = "postgres did not accept connections on port " + p + " within 30 s: " + Tail();
    return false;
  }

  std::string bin_;  // directory of initdb and postgres
  std::string dir_;  // temp directory; removed by the destructor
  int port_ = 0;
  pid_t pid_ = -1;
  bool drop_ = false;  // run the server as uid_/gid_ (we are root)
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

}  // namespace cannbot::testing
