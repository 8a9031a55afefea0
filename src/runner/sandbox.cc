#include "runner/sandbox.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runner/syscall_policy.h"

namespace cannbot::runner {
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

// A private network namespace and, where possible, a user namespace: inside one, even a
// runner started as root holds no capability over anything outside it.
std::string PrivateNamespaces() {
  if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) return "";
  const int user_errno = errno;
  if (geteuid() == 0 && unshare(CLONE_NEWNET) == 0) return "";  // capabilities dropped below
  return std::string("no private user and network namespace (") + std::strerror(user_errno) +
         ")";
}

// Empties the bounding, ambient, effective, permitted and inheritable capability sets. In a
// fresh user namespace the runner holds them all there, so dropping works as root or not;
// outside one, an unprivileged runner has none to drop.
std::string DropCapabilities() {
  for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; ++cap) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
      if (geteuid() != 0) break;  // no CAP_SETPCAP: nothing to gain back without exec
      return std::string("cannot drop capability ") + std::to_string(cap) + " from the bounding set";
    }
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capset, &header, data) != 0) {
    return std::string("cannot clear the capability sets: ") + std::strerror(errno);
  }
  return "";
}

bool Withheld(const SandboxOptions& options, const std::string& layer) {
  for (const std::string& w : options.withheld) {
    if (w == layer) return true;
  }
  return false;
}

// Applies `layer` unless the options withhold it (tests of the fail-closed rule do).
void Apply(const SandboxOptions& options, const std::string& layer,
           std::vector<std::string>* warnings, std::string (*apply)(const SandboxOptions&)) {
  if (Withheld(options, layer)) {
    warnings->push_back(layer + " was not applied (withheld by --without)");
    return;
  }
  const std::string problem = apply(options);
  if (!problem.empty()) warnings->push_back(problem);
}

}  // namespace

std::vector<std::string> EnterStageOne(const SandboxOptions& options) {
  std::vector<std::string> warnings;
  prctl(PR_SET_DUMPABLE, 0);  // no core dumps, no ptrace attach by peers
  Apply(options, "namespaces", &warnings,
        [](const SandboxOptions&) { return PrivateNamespaces(); });
  Apply(options, "capabilities", &warnings,
        [](const SandboxOptions&) { return DropCapabilities(); });
  Apply(options, "no_new_privs", &warnings, [](const SandboxOptions&) -> std::string {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? "" : "no_new_privs could not be set";
  });
  Apply(options, "landlock", &warnings, [](const SandboxOptions& o) {
    return ApplyLandlock({{o.work_dir.c_str(), kFsReadFile | kFsReadDir}});
  });
  Apply(options, "seccomp", &warnings,
        [](const SandboxOptions& o) { return InstallAllowlist(o.channel); });
  return warnings;
}

std::vector<std::string> EnterStageTwo(const SandboxOptions& options) {
  std::vector<std::string> warnings;
  Apply(options, "seccomp", &warnings, [](const SandboxOptions&) { return InstallNoOpenFilter(); });
  if (options.immutable_code) {
    Apply(options, "seccomp", &warnings,
          [](const SandboxOptions&) { return InstallNoNewCodeFilter(); });
  }
  return warnings;
}

std::vector<std::string> ConfineCompiler(const std::string& work_dir) {
  std::vector<std::string> warnings;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) warnings.push_back("no_new_privs could not be set");
  std::string problem = PrivateNamespaces();
  if (!problem.empty()) warnings.push_back(problem);
  problem = DropCapabilities();
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
