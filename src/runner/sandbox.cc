#include "runner/sandbox.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <ucontext.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cannbot/validator/runner_protocol.h"

namespace cannbot::runner {
namespace proto = runner_protocol;
namespace {

// ---- Landlock -------------------------------------------------------------------------
// Declared here rather than taken from <linux/landlock.h>, whose copy on older systems
// lacks the newer access rights; the kernel tells us which ABI it speaks.

constexpr uint64_t kFsExecute = 1ULL << 0;
constexpr uint64_t kFsWriteFile = 1ULL << 1;
constexpr uint64_t kFsReadFile = 1ULL << 2;
constexpr uint64_t kFsReadDir = 1ULL << 3;
constexpr uint64_t kFsRemoveDir = 1ULL << 4;
constexpr uint64_t kFsRemoveFile = 1ULL << 5;
constexpr uint64_t kFsMakeDir = 1ULL << 7;
constexpr uint64_t kFsMakeReg = 1ULL << 8;
constexpr uint64_t kFsTruncate = 1ULL << 14;
constexpr uint64_t kNetBindTcp = 1ULL << 0;
constexpr uint64_t kNetConnectTcp = 1ULL << 1;

struct RulesetAttr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
};

struct PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

int LandlockAbi() {
  long abi = syscall(__NR_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

uint64_t HandledFs(int abi) {
  uint64_t all = (1ULL << 13) - 1;  // ABI 1: execute .. make_sym
  if (abi >= 2) all |= 1ULL << 13;  // refer
  if (abi >= 3) all |= kFsTruncate;
  if (abi >= 5) all |= 1ULL << 15;  // ioctl_dev
  return all;
}

// Grants `access` beneath `path` (a directory, or a single file with file rights only).
bool AllowPath(int ruleset, const char* path, uint64_t access, uint64_t handled) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT;  // nothing to allow
  PathBeneathAttr rule{access & handled, fd};
  long rc = syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  close(fd);
  return rc == 0;
}

struct PathGrant {
  const char* path;
  uint64_t access;
};

std::string ApplyLandlock(const std::vector<PathGrant>& grants) {
  const int abi = LandlockAbi();
  if (abi < 1) return "Landlock is not available: file-system access is not restricted";
  RulesetAttr attr{HandledFs(abi), abi >= 4 ? (kNetBindTcp | kNetConnectTcp) : 0};
  const size_t size = abi >= 4 ? sizeof(RulesetAttr) : sizeof(uint64_t);
  int ruleset = static_cast<int>(syscall(__NR_landlock_create_ruleset, &attr, size, 0));
  if (ruleset < 0) return std::string("Landlock ruleset failed: ") + std::strerror(errno);
  for (const PathGrant& grant : grants) {
    if (!AllowPath(ruleset, grant.path, grant.access, attr.handled_access_fs)) {
      close(ruleset);
      return std::string("Landlock rule for ") + grant.path + " failed: " + std::strerror(errno);
    }
  }
  long rc = syscall(__NR_landlock_restrict_self, ruleset, 0);
  close(ruleset);
  if (rc != 0) return std::string("Landlock restrict failed: ") + std::strerror(errno);
  return "";
}

std::string PrivateNetwork() {
  // As root a network namespace alone works; otherwise a user namespace makes it possible.
  if (unshare(CLONE_NEWNET) == 0) return "";
  if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) return "";
  return std::string("no private network namespace (") + std::strerror(errno) +
         "); sockets are still trapped by seccomp";
}

// ---- seccomp --------------------------------------------------------------------------

struct Forbidden {
  const char* name;
  const char* why;
};

// What a kernel has no business doing, with the words a report uses for it.
constexpr Forbidden kStageOne[] = {
    {"clone", "starting threads or processes"}, {"clone3", "starting threads or processes"},
    {"fork", "starting processes"}, {"vfork", "starting processes"},
    {"execve", "running programs"}, {"execveat", "running programs"},
    {"socket", "network access"}, {"socketpair", "network access"},
    {"connect", "network access"}, {"bind", "network access"}, {"listen", "network access"},
    {"accept", "network access"}, {"accept4", "network access"},
    {"sendto", "network access"}, {"sendmsg", "network access"},
    {"sendmmsg", "network access"}, {"recvfrom", "network access"},
    {"recvmsg", "network access"}, {"recvmmsg", "network access"},
    {"tkill", "signalling threads"}, {"rt_sigqueueinfo", "signalling other processes"},
    {"rt_tgsigqueueinfo", "signalling other processes"},
    {"pidfd_open", "reaching other processes"}, {"pidfd_getfd", "reaching other processes"},
    {"pidfd_send_signal", "signalling other processes"},
    {"ptrace", "tracing processes"}, {"process_vm_readv", "reading other processes"},
    {"process_vm_writev", "writing other processes"}, {"kcmp", "inspecting other processes"},
    {"setrlimit", "changing its resource limits"}, {"prlimit64", "changing its resource limits"},
    {"sched_setaffinity", "changing its CPU placement"},
    {"sched_setscheduler", "changing its scheduling"}, {"sched_setparam", "changing its scheduling"},
    {"setpriority", "changing its priority"},
    {"setsid", "leaving its process group"}, {"setpgid", "leaving its process group"},
    {"setuid", "changing identity"}, {"setgid", "changing identity"},
    {"setreuid", "changing identity"}, {"setregid", "changing identity"},
    {"setresuid", "changing identity"}, {"setresgid", "changing identity"},
    {"setgroups", "changing identity"}, {"capset", "changing capabilities"},
    {"unshare", "changing namespaces"}, {"setns", "changing namespaces"},
    {"mount", "changing the system"}, {"umount2", "changing the system"},
    {"pivot_root", "changing the system"}, {"chroot", "changing the system"},
    {"reboot", "changing the system"}, {"swapon", "changing the system"},
    {"swapoff", "changing the system"}, {"init_module", "changing the system"},
    {"finit_module", "changing the system"}, {"delete_module", "changing the system"},
    {"kexec_load", "changing the system"}, {"sethostname", "changing the system"},
    {"bpf", "using kernel interfaces outside the sandbox"},
    {"perf_event_open", "using kernel interfaces outside the sandbox"},
    {"userfaultfd", "using kernel interfaces outside the sandbox"},
    {"io_uring_setup", "using kernel interfaces outside the sandbox"},
    {"keyctl", "using kernel interfaces outside the sandbox"},
    {"add_key", "using kernel interfaces outside the sandbox"},
    {"request_key", "using kernel interfaces outside the sandbox"},
    {"unlink", "modifying files"}, {"unlinkat", "modifying files"}, {"rename", "modifying files"},
    {"renameat", "modifying files"}, {"renameat2", "modifying files"},
    {"mkdir", "modifying files"}, {"mkdirat", "modifying files"}, {"rmdir", "modifying files"},
    {"chmod", "modifying files"}, {"fchmod", "modifying files"}, {"fchmodat", "modifying files"},
    {"chown", "modifying files"}, {"fchown", "modifying files"}, {"lchown", "modifying files"},
    {"fchownat", "modifying files"}, {"truncate", "modifying files"},
    {"link", "modifying files"}, {"linkat", "modifying files"}, {"symlink", "modifying files"},
    {"symlinkat", "modifying files"}, {"mknod", "modifying files"},
    {"mknodat", "modifying files"},
};

// Trapped but survivable: the call fails with EPERM and the violation is reported when the
// kernel's call returns. glibc installs handlers on the way to creating threads and
// processes; failing softly lets the sandbox name the call that matters (clone, execve).
constexpr Forbidden kDeferred[] = {
    {"rt_sigaction", "installing signal handlers"},
};

constexpr Forbidden kStageTwo[] = {
    {"open", "opening files"}, {"openat", "opening files"}, {"openat2", "opening files"},
    {"creat", "opening files"}, {"open_by_handle_at", "opening files"},
    {"name_to_handle_at", "opening files"}, {"memfd_create", "creating files"},
};

// Signals to anything but itself: what kill/tgkill need to reach the parent.
constexpr Forbidden kSignalOthers = {"kill", "signalling other processes"};
constexpr Forbidden kSignalOtherThreads = {"tgkill", "signalling other processes"};

// The trap handler may only use what was prepared before the filter went in.
constexpr int kMaxSyscall = 1024;
const char* g_syscall_why[kMaxSyscall];
const char* g_syscall_name[kMaxSyscall];
bool g_deferred[kMaxSyscall];
int g_pending_violation = -1;
SandboxChannel g_channel;

void Append(char* buffer, size_t* used, size_t cap, const char* text) {
  while (*text != '\0' && *used + 1 < cap) buffer[(*used)++] = *text++;
  buffer[*used] = '\0';
}

// "the kernel made a forbidden system call: clone (starting threads or processes)"
size_t DescribeViolation(int nr, char* message, size_t cap) {
  size_t used = 0;
  const bool known = nr >= 0 && nr < kMaxSyscall && g_syscall_name[nr] != nullptr;
  Append(message, &used, cap, "the kernel made a forbidden system call: ");
  Append(message, &used, cap, known ? g_syscall_name[nr] : "unknown");
  Append(message, &used, cap, " (");
  Append(message, &used, cap, known ? g_syscall_why[nr] : "not allowed");
  Append(message, &used, cap, ")");
  return used;
}

// SIGSYS from a trapped call: report it as the reply to the current request, then end; or,
// for a deferred call, fail it with EPERM and remember it.
void OnForbiddenSyscall(int, siginfo_t* info, void* context) {
  const int nr = info->si_syscall;
  if (nr >= 0 && nr < kMaxSyscall && g_deferred[nr]) {
    if (g_pending_violation < 0) g_pending_violation = nr;
    static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RAX] = -EPERM;
    return;
  }
  char message[256];
  const size_t used = DescribeViolation(nr, message, sizeof(message));
  proto::Header header{proto::kMagic, static_cast<uint32_t>(proto::Type::kError), g_channel.nonce,
                       static_cast<uint32_t>(used),
                       g_channel.sequence ? *g_channel.sequence : 0};
  char frame[sizeof(header) + sizeof(message)];
  std::memcpy(frame, &header, sizeof(header));
  std::memcpy(frame + sizeof(header), message, used);
  ssize_t ignored = write(g_channel.fd, frame, sizeof(header) + used);
  (void)ignored;
  _exit(proto::kForbiddenSyscallExit);
}

void Remember(int nr, const Forbidden& f) {
  if (nr >= 0 && nr < kMaxSyscall) {
    g_syscall_name[nr] = f.name;
    g_syscall_why[nr] = f.why;
  }
}

template <size_t N>
std::string AddTraps(scmp_filter_ctx ctx, const Forbidden (&list)[N], bool deferred = false) {
  for (const Forbidden& f : list) {
    int nr = seccomp_syscall_resolve_name(f.name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
    Remember(nr, f);
    if (deferred && nr >= 0 && nr < kMaxSyscall) g_deferred[nr] = true;
    if (seccomp_rule_add(ctx, SCMP_ACT_TRAP, nr, 0) != 0) {
      return std::string("seccomp rule for ") + f.name + " failed";
    }
  }
  return "";
}

std::string LoadFilter(scmp_filter_ctx ctx) {
  int rc = seccomp_load(ctx);
  seccomp_release(ctx);
  return rc == 0 ? "" : std::string("seccomp filter failed: ") + std::strerror(-rc);
}

}  // namespace

std::vector<std::string> EnterStageOne(const std::string& work_dir,
                                       const SandboxChannel& channel) {
  std::vector<std::string> warnings;
  g_channel = channel;
  prctl(PR_SET_DUMPABLE, 0);  // no core dumps, no ptrace attach by peers
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    warnings.push_back("no_new_privs could not be set");
  }
  std::string problem = PrivateNetwork();
  if (!problem.empty()) warnings.push_back(problem);
  problem = ApplyLandlock({{work_dir.c_str(), kFsReadFile | kFsReadDir}});
  if (!problem.empty()) warnings.push_back(problem);

  struct sigaction action {};
  action.sa_sigaction = OnForbiddenSyscall;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSYS, &action, nullptr);

  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) {
    warnings.push_back("seccomp is not available: system calls are not filtered");
    return warnings;
  }
  problem = AddTraps(ctx, kStageOne);
  if (problem.empty()) problem = AddTraps(ctx, kDeferred, /*deferred=*/true);
  // kill and tgkill stay allowed against itself (abort() and raise() use them).
  const pid_t self = getpid();
  int kill_nr = seccomp_syscall_resolve_name(kSignalOthers.name);
  int tgkill_nr = seccomp_syscall_resolve_name(kSignalOtherThreads.name);
  Remember(kill_nr, kSignalOthers);
  Remember(tgkill_nr, kSignalOtherThreads);
  if (problem.empty() &&
      (seccomp_rule_add(ctx, SCMP_ACT_TRAP, kill_nr, 1,
                        SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(self))) != 0 ||
       seccomp_rule_add(ctx, SCMP_ACT_TRAP, tgkill_nr, 1,
                        SCMP_A0(SCMP_CMP_NE, static_cast<scmp_datum_t>(self))) != 0)) {
    problem = "seccomp rules for kill/tgkill failed";
  }
  if (problem.empty()) {
    problem = LoadFilter(ctx);
  } else {
    seccomp_release(ctx);
  }
  if (!problem.empty()) warnings.push_back(problem);
  return warnings;
}

std::string TakePendingViolation() {
  if (g_pending_violation < 0) return "";
  char message[256];
  const size_t used = DescribeViolation(g_pending_violation, message, sizeof(message));
  g_pending_violation = -1;
  return std::string(message, used);
}

std::vector<std::string> EnterStageTwo() {
  std::vector<std::string> warnings;
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return {"seccomp is not available: opening files is not trapped"};
  std::string problem = AddTraps(ctx, kStageTwo);
  if (problem.empty()) {
    problem = LoadFilter(ctx);
  } else {
    seccomp_release(ctx);
  }
  if (!problem.empty()) warnings.push_back(problem);
  return warnings;
}

std::vector<std::string> ConfineCompiler(const std::string& work_dir) {
  std::vector<std::string> warnings;
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  std::string problem = PrivateNetwork();
  if (!problem.empty()) warnings.push_back(problem);
  const uint64_t read_exec = kFsExecute | kFsReadFile | kFsReadDir;
  const uint64_t read_write = read_exec | kFsWriteFile | kFsRemoveFile | kFsRemoveDir |
                              kFsMakeReg | kFsMakeDir | kFsTruncate;
  problem = ApplyLandlock({{"/usr", read_exec},
                           {"/lib", read_exec},
                           {"/lib64", read_exec},
                           {"/bin", read_exec},
                           {"/etc/ld.so.cache", kFsReadFile},
                           {"/etc/alternatives", read_exec},
                           {"/dev/null", kFsReadFile | kFsWriteFile},
                           {work_dir.c_str(), read_write}});
  if (!problem.empty()) warnings.push_back(problem);
  return warnings;
}

}  // namespace cannbot::runner
