#include "runner/syscall_policy.h"

#include <seccomp.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cannbot/validator/runner_protocol.h"

namespace cannbot::runner {
namespace proto = runner_protocol;
namespace {

// What a compute kernel and the runner serving it need. Anything else is trapped.
constexpr const char* kAllowed[] = {
    // memory
    "brk", "mmap", "munmap", "mprotect", "mremap", "msync", "mincore",
    // the descriptors the runner holds (channel, stdout/stderr) and loading shared objects
    "read", "write", "readv", "writev", "pread64", "lseek", "close", "fstat", "newfstatat",
    "stat", "lstat", "statx", "access", "faccessat", "faccessat2", "readlink", "readlinkat",
    "getcwd", "open", "openat",
    // clocks and waiting
    "clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep", "clock_nanosleep",
    "sched_yield", "restart_syscall", "futex",
    // facts about itself
    "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "uname",
    "sysinfo", "getrusage", "times", "getrandom", "sched_getaffinity", "getcpu",
    "getpriority", "sched_getscheduler", "sched_getparam",
    // signals to itself (abort, raise) and ending
    "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "exit", "exit_group",
};

// madvise advice that cannot destroy shared data (MADV_REMOVE punches holes in the tensors).
constexpr int kSafeAdvice[] = {MADV_NORMAL,   MADV_RANDOM,    MADV_SEQUENTIAL, MADV_WILLNEED,
                               MADV_DONTNEED, MADV_FREE,      MADV_HUGEPAGE,   MADV_NOHUGEPAGE,
                               MADV_DONTDUMP, MADV_DODUMP,
                               // prefaulting private scratch (Linux 5.14+)
                               MADV_POPULATE_READ, MADV_POPULATE_WRITE};

struct Reason {
  const char* name;
  const char* why;
};

// The words a report uses for the calls kernels are seen to try; others read "not among the
// calls a compute kernel needs".
constexpr Reason kReasons[] = {
    {"clone", "starting threads or processes"}, {"clone3", "starting threads or processes"},
    {"fork", "starting processes"}, {"vfork", "starting processes"},
    {"execve", "running programs"}, {"execveat", "running programs"},
    {"socket", "network access"}, {"socketpair", "network access"},
    {"connect", "network access"}, {"bind", "network access"}, {"listen", "network access"},
    {"accept", "network access"}, {"accept4", "network access"}, {"sendto", "network access"},
    {"sendmsg", "network access"}, {"recvfrom", "network access"},
    {"recvmsg", "network access"},
    {"kill", "signalling other processes"}, {"tgkill", "signalling other processes"},
    {"tkill", "signalling threads"}, {"rt_sigqueueinfo", "signalling other processes"},
    {"pidfd_open", "reaching other processes"}, {"pidfd_getfd", "reaching other processes"},
    {"pidfd_send_signal", "signalling other processes"}, {"ptrace", "tracing processes"},
    {"process_vm_readv", "reading other processes"},
    {"process_vm_writev", "writing other processes"},
    {"rt_sigaction", "installing signal handlers"},
    {"setrlimit", "changing its resource limits"}, {"prlimit64", "changing its resource limits"},
    {"sched_setaffinity", "changing its CPU placement"},
    {"sched_setscheduler", "changing its scheduling"},
    {"sched_setparam", "changing its scheduling"}, {"sched_setattr", "changing its scheduling"},
    {"setpriority", "changing its priority"},
    {"setsid", "leaving its process group"}, {"setpgid", "leaving its process group"},
    {"setuid", "changing identity"}, {"setresuid", "changing identity"},
    {"capset", "changing capabilities"}, {"unshare", "changing namespaces"},
    {"setns", "changing namespaces"},
    {"ftruncate", "resizing shared memory"}, {"fallocate", "resizing shared memory"},
    {"madvise", "discarding shared memory"},
    {"adjtimex", "adjusting the clock"}, {"clock_adjtime", "adjusting the clock"},
    {"settimeofday", "adjusting the clock"}, {"clock_settime", "adjusting the clock"},
    {"iopl", "port I/O"}, {"ioperm", "port I/O"},
    {"ioctl", "device control"}, {"fcntl", "changing descriptors"},
    {"dup", "changing descriptors"}, {"dup2", "changing descriptors"},
    {"dup3", "changing descriptors"},
    {"mount", "changing the system"}, {"reboot", "changing the system"},
    {"init_module", "changing the system"}, {"bpf", "using kernel interfaces outside the sandbox"},
    {"perf_event_open", "using kernel interfaces outside the sandbox"},
    {"userfaultfd", "using kernel interfaces outside the sandbox"},
    {"io_uring_setup", "using kernel interfaces outside the sandbox"},
    {"memfd_create", "creating files"},
    {"unlink", "modifying files"}, {"unlinkat", "modifying files"}, {"rename", "modifying files"},
    {"renameat", "modifying files"}, {"renameat2", "modifying files"},
    {"mkdir", "modifying files"}, {"mkdirat", "modifying files"}, {"chmod", "modifying files"},
    {"fchmod", "modifying files"}, {"truncate", "modifying files"},
    {"symlink", "modifying files"}, {"link", "modifying files"},
};

// Trapped in stage two: opening files, and asking about them by path (Landlock does not cover
// metadata: a kernel that stat()ed a host file put its size in a wrong output value).
constexpr const char* kOpens[] = {"open", "openat", "openat2", "creat", "open_by_handle_at"};
constexpr const char* kPathQueries[] = {"stat",   "lstat",     "newfstatat", "statx",
                                        "access", "faccessat", "faccessat2", "readlink",
                                        "readlinkat"};

// The trap handler may only use what was prepared before the filter went in.
constexpr int kMaxSyscall = 1024;
const char* g_syscall_why[kMaxSyscall];
const char* g_syscall_name[kMaxSyscall];
int g_pending_violation = -1;
int g_rt_sigaction = -1;
SandboxChannel g_channel;

void Append(char* buffer, size_t* used, size_t cap, const char* text) {
  while (*text != '\0' && *used + 1 < cap) buffer[(*used)++] = *text++;
  buffer[*used] = '\0';
}

// "the kernel made a forbidden system call: clone (starting threads or processes)"
size_t DescribeViolation(int nr, char* message, size_t cap) {
  size_t used = 0;
  const bool named = nr >= 0 && nr < kMaxSyscall && g_syscall_name[nr] != nullptr;
  const bool explained = named && g_syscall_why[nr] != nullptr;
  Append(message, &used, cap, "the kernel made a forbidden system call: ");
  Append(message, &used, cap, named ? g_syscall_name[nr] : "unknown");
  Append(message, &used, cap, " (");
  Append(message, &used, cap,
         explained ? g_syscall_why[nr] : "not among the calls a compute kernel needs");
  Append(message, &used, cap, ")");
  return used;
}

// SIGSYS from a trapped call: report it as the reply to the current request, then end; or,
// for rt_sigaction, fail it with EPERM and remember it.
void OnForbiddenSyscall(int, siginfo_t* info, void* context) {
  const int nr = info->si_syscall;
  if (nr == g_rt_sigaction) {
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

// Every syscall's name, resolved now: the handler cannot call into libseccomp.
void LearnNames() {
  for (int nr = 0; nr < kMaxSyscall; ++nr) {
    g_syscall_name[nr] = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);  // kept
  }
  for (const Reason& reason : kReasons) {
    const int nr = seccomp_syscall_resolve_name(reason.name);
    if (nr >= 0 && nr < kMaxSyscall) g_syscall_why[nr] = reason.why;
  }
}

int Resolve(const char* name) { return seccomp_syscall_resolve_name(name); }

std::string Load(scmp_filter_ctx ctx) {
  const int rc = seccomp_load(ctx);
  seccomp_release(ctx);
  return rc == 0 ? "" : std::string("seccomp filter failed: ") + std::strerror(-rc);
}

// The conditional allowances: signals only to itself, harmless madvise, prlimit64 to read.
bool AddConditional(scmp_filter_ctx ctx) {
  const auto self = static_cast<scmp_datum_t>(getpid());
  bool ok = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, Resolve("kill"), 1,
                             SCMP_A0(SCMP_CMP_EQ, self)) == 0 &&
            seccomp_rule_add(ctx, SCMP_ACT_ALLOW, Resolve("tgkill"), 1,
                             SCMP_A0(SCMP_CMP_EQ, self)) == 0 &&
            seccomp_rule_add(ctx, SCMP_ACT_ALLOW, Resolve("prlimit64"), 2,
                             SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0)) == 0 &&
            // Only adding filters, which can only take permissions away (stage two does).
            seccomp_rule_add(ctx, SCMP_ACT_ALLOW, Resolve("seccomp"), 1,
                             SCMP_A0(SCMP_CMP_EQ, SECCOMP_SET_MODE_FILTER)) == 0;
  for (int advice : kSafeAdvice) {
    ok = ok && seccomp_rule_add(ctx, SCMP_ACT_ALLOW, Resolve("madvise"), 1,
                                SCMP_A2(SCMP_CMP_EQ, static_cast<scmp_datum_t>(advice))) == 0;
  }
  return ok;
}

}  // namespace

std::string InstallAllowlist(const SandboxChannel& channel) {
  g_channel = channel;
  LearnNames();
  g_rt_sigaction = Resolve("rt_sigaction");
  struct sigaction action {};
  action.sa_sigaction = OnForbiddenSyscall;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSYS, &action, nullptr) != 0) return "cannot install the SIGSYS handler";

  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
  if (ctx == nullptr) return "seccomp is not available: system calls are not filtered";
  for (const char* name : kAllowed) {
    const int nr = Resolve(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
    if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0) != 0) {
      seccomp_release(ctx);
      return std::string("seccomp rule for ") + name + " failed";
    }
  }
  if (!AddConditional(ctx)) {
    seccomp_release(ctx);
    return "seccomp rules with argument checks failed";
  }
  return Load(ctx);
}

std::string InstallNoOpenFilter() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return "seccomp is not available: opening files is not trapped";
  // no_new_privs is set already; setting it again would need prctl, which is trapped.
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
  auto trap = [&](const char* name, const char* why) {
    const int nr = Resolve(name);
    if (nr == __NR_SCMP_ERROR) return true;
    if (nr >= 0 && nr < kMaxSyscall) g_syscall_why[nr] = why;
    return seccomp_rule_add(ctx, SCMP_ACT_TRAP, nr, 0) == 0;
  };
  for (const char* name : kOpens) {
    if (!trap(name, "opening files")) {
      seccomp_release(ctx);
      return std::string("seccomp rule for ") + name + " failed";
    }
  }
  for (const char* name : kPathQueries) {
    if (!trap(name, "asking about files")) {
      seccomp_release(ctx);
      return std::string("seccomp rule for ") + name + " failed";
    }
  }
  return Load(ctx);
}

std::string InstallNoNewCodeFilter() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return "seccomp is not available: new executable memory is not trapped";
  seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
  // Every one takes the protection as its third argument.
  for (const char* name : {"mmap", "mprotect", "pkey_mprotect"}) {
    const int nr = Resolve(name);
    if (nr == __NR_SCMP_ERROR) continue;
    if (nr >= 0 && nr < kMaxSyscall) g_syscall_why[nr] = "making memory executable (changing code)";
    if (seccomp_rule_add(ctx, SCMP_ACT_TRAP, nr, 1,
                         SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC)) != 0) {
      seccomp_release(ctx);
      return std::string("seccomp rule for ") + name + " failed";
    }
  }
  return Load(ctx);
}

std::string TakePendingViolation() {
  if (g_pending_violation < 0) return "";
  char message[256];
  const size_t used = DescribeViolation(g_pending_violation, message, sizeof(message));
  g_pending_violation = -1;
  return std::string(message, used);
}

}  // namespace cannbot::runner
