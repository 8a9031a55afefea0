#include "cannbot/validator/memory_cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <vector>

#include "cannbot/util/fs.h"

namespace cannbot::validator {
namespace {

// Writes `value` to a control file of a cgroup.
Status WriteControl(const std::string& path, const std::string& value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(path + ": " + std::strerror(errno));
  const ssize_t n = ::write(fd, value.data(), value.size());
  const int error = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(value.size())) {
    return Status::IoError(path + ": " + std::strerror(n < 0 ? error : EIO));
  }
  return Status::Ok();
}

std::string ReadSmall(const std::string& path) {
  auto text = ReadFile(path, 1u << 16);
  return text.ok() ? *text : "";
}

// This process's path in the hierarchy of cgroup `version` (v1: the memory controller's),
// from /proc/self/cgroup; "" when it has none.
std::string OwnPath(int version, const std::string& proc_cgroup) {
  std::stringstream lines(proc_cgroup);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    const bool memory = ("," + controllers + ",").find(",memory,") != std::string::npos;
    if ((version == 2 && line.compare(0, a, "0") == 0 && controllers.empty()) ||
        (version == 1 && memory)) {
      return line.substr(b + 1);
    }
  }
  return "";
}

// The directory of hierarchy `version` holding cgroup `path`, from /proc/self/mountinfo.
std::string MountedDir(int version, const std::string& path) {
  std::stringstream lines(ReadSmall("/proc/self/mountinfo"));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, root, mount_point, token;
    fields >> id >> parent >> device >> root >> mount_point;
    while (fields >> token && token != "-") {}
    std::string type, source, options;
    fields >> type >> source >> options;
    const bool match =
        version == 2 ? type == "cgroup2"
                     : type == "cgroup" &&
                           ("," + options + ",").find(",memory,") != std::string::npos;
    if (!match || path.compare(0, root.size(), root) != 0) continue;
    const std::string below = root == "/" ? path : path.substr(root.size());
    return mount_point + (below == "/" ? "" : below);
  }
  return "";
}

// The machine's memory, or the limit of the cgroup this process is in where that is lower.
uint64_t AvailableMemory(int version, const std::string& own_dir) {
  uint64_t total = 0;
  std::stringstream meminfo(ReadSmall("/proc/meminfo"));
  std::string key;
  uint64_t kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemTotal:") total = kib << 10;
    meminfo.ignore(1 << 10, '\n');
  }
  const std::string own =
      ReadSmall(own_dir + (version == 2 ? "/memory.max" : "/memory.limit_in_bytes"));
  char* end = nullptr;
  const unsigned long long limit = std::strtoull(own.c_str(), &end, 10);
  if (end != own.c_str() && limit > 0 && limit < total) total = limit;
  return total;
}

// Groups of earlier cannbot processes that are gone (left behind by a crash or kill -9).
void RemoveStaleGroups(const std::string& parent) {
  DIR* dir = ::opendir(parent.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> stale;
  while (dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.rfind("cannbot-", 0) != 0) continue;
    const long pid = std::strtol(name.c_str() + 8, nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      stale.push_back(parent + "/" + name);
    }
  }
  ::closedir(dir);
  for (const std::string& group : stale) {
    if (DIR* inner = ::opendir(group.c_str())) {
      while (dirent* entry = ::readdir(inner)) {
        const std::string name = entry->d_name;
        struct stat st {};
        const std::string path = group + "/" + name;
        if (name != "." && name != ".." && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
          ::rmdir(path.c_str());
        }
      }
      ::closedir(inner);
    }
    ::rmdir(group.c_str());
  }
}

// cgroup v2: whether the memory controller is (or can be) enabled for `dir`'s children.
// Enabling fails while a process sits in `dir` itself (the "no internal processes" rule)
// unless `dir` is a namespace's root. Where this process is alone in `dir` (a service whose
// cgroup systemd delegated, Delegate=yes), it moves itself into a leaf `dir`/cannbot-main
// first, as delegated services do; where that does not help it moves back.
bool EnableMemoryForChildren(const std::string& dir) {
  const std::string control = dir + "/cgroup.subtree_control";
  if ((" " + ReadSmall(control)).find(" memory") != std::string::npos) return true;
  if (WriteControl(control, "+memory").ok()) return true;
  const std::string self = std::to_string(::getpid());
  std::string procs = ReadSmall(dir + "/cgroup.procs");
  while (!procs.empty() && procs.back() == '\n') procs.pop_back();
  if (procs != self) return false;  // others share it: not ours to rearrange
  const std::string leaf = dir + "/cannbot-main";
  if ((::mkdir(leaf.c_str(), 0755) != 0 && errno != EEXIST) ||
      !WriteControl(leaf + "/cgroup.procs", self).ok()) {
    return false;
  }
  if (WriteControl(control, "+memory").ok()) return true;
  (void)WriteControl(dir + "/cgroup.procs", self);
  ::rmdir(leaf.c_str());
  return false;
}

// The limit files of a group: v1 memory.limit_in_bytes (then the swap-inclusive limit, which
// may not be below it), v2 memory.max and no swap.
Status SetLimit(int version, const std::string& dir, uint64_t bytes) {
  const std::string value = std::to_string(bytes);
  if (version == 2) {
    CANNBOT_RETURN_IF_ERROR(WriteControl(dir + "/memory.max", value));
    if (PathExists(dir + "/memory.swap.max")) (void)WriteControl(dir + "/memory.swap.max", "0");
    return Status::Ok();
  }
  CANNBOT_RETURN_IF_ERROR(WriteControl(dir + "/memory.limit_in_bytes", value));
  if (PathExists(dir + "/memory.memsw.limit_in_bytes")) {
    (void)WriteControl(dir + "/memory.memsw.limit_in_bytes", value);
  }
  return Status::Ok();
}

std::string Gib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
  return text;
}

// Limits the process's group `dir` to `total` bytes for all its children together; on v2 it
// also hands the memory controller down to them, without which their own limits do nothing.
Status LimitProcessGroup(int version, const std::string& dir, uint64_t total) {
  CANNBOT_RETURN_IF_ERROR(SetLimit(version, dir, total));
  if (version == 2) return WriteControl(dir + "/cgroup.subtree_control", "+memory");
  return Status::Ok();
}

}  // namespace

Result<MemoryCgroups> PrepareMemoryCgroups(const MemoryCgroupConfig& config) {
  MemoryCgroups groups;
  if (config.mode == "off") {
    groups.why_not = "memory cgroups are off (memory_cgroup = \"off\")";
    return groups;
  }
  if (config.mode != "auto" && config.mode != "require") {
    return Status::InvalidArgument("memory_cgroup must be \"auto\", \"require\" or \"off\", not \"" +
                                   config.mode + "\"");
  }
  const std::string proc = ReadSmall("/proc/self/cgroup");
  std::string why = "no writable memory cgroup controller";
  for (int version : {2, 1}) {
    const std::string own_path = OwnPath(version, proc);
    if (own_path.empty()) continue;
    const std::string own_dir = MountedDir(version, own_path);
    if (own_dir.empty()) continue;
    if (version == 2 && !EnableMemoryForChildren(own_dir)) {
      why = "the memory controller is not enabled for this process's cgroup v2 children (" +
            own_dir + "/cgroup.subtree_control; docs/security.md, \"Resources\")";
      continue;
    }
    RemoveStaleGroups(own_dir);
    const std::string dir = own_dir + "/cannbot-" + std::to_string(::getpid());
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      why = "cannot create a memory cgroup in " + own_dir + ": " + std::strerror(errno);
      continue;
    }
    const uint64_t total =
        static_cast<uint64_t>(static_cast<double>(AvailableMemory(version, own_dir)) *
                              config.machine_share);
    const Status limited = LimitProcessGroup(version, dir, total);
    if (!limited.ok()) {
      ::rmdir(dir.c_str());
      why = "cannot limit a memory cgroup: " + limited.message();
      continue;
    }
    groups.dir = dir;
    groups.version = version;
    groups.total_limit_bytes = total;
    groups.owner = std::shared_ptr<const void>(nullptr, [dir](const void*) { ::rmdir(dir.c_str()); });
    return groups;
  }
  if (config.mode == "require") {
    return Status::Unavailable("refusing to validate: memory_cgroup = \"require\" but " + why);
  }
  groups.why_not = why;
  return groups;
}

Result<std::unique_ptr<MemoryCgroup>> MemoryCgroup::Create(const MemoryCgroups& groups,
                                                           const std::string& name,
                                                           uint64_t limit_bytes) {
  std::unique_ptr<MemoryCgroup> group(new MemoryCgroup());
  group->dir_ = groups.dir + "/" + name;
  group->version_ = groups.version;
  group->limit_bytes_ = std::min(limit_bytes, groups.total_limit_bytes);
  bool made = ::mkdir(group->dir_.c_str(), 0755) == 0;
  if (!made && errno == ENOENT) {
    // The process's group was removed with an earlier copy of `groups`: make it again.
    made = ::mkdir(groups.dir.c_str(), 0755) == 0 &&
           LimitProcessGroup(groups.version, groups.dir, groups.total_limit_bytes).ok() &&
           ::mkdir(group->dir_.c_str(), 0755) == 0;
  }
  if (!made) {
    return Status::IoError("cannot create the memory cgroup " + group->dir_ + ": " +
                           std::strerror(errno));
  }
  Status limited = SetLimit(groups.version, group->dir_, group->limit_bytes_);
  if (!limited.ok()) return limited;
  // As /proc/<pid>/cgroup shows it: the path below the hierarchy's root.
  const std::string own = OwnPath(groups.version, ReadSmall("/proc/self/cgroup"));
  group->relative_ = (own == "/" ? "" : own) + groups.dir.substr(groups.dir.rfind('/')) + "/" + name;
  return group;
}

MemoryCgroup::~MemoryCgroup() {
  if (!dir_.empty()) ::rmdir(dir_.c_str());
}

bool MemoryCgroup::Holds(int pid) const {
  return OwnPath(version_, ReadSmall("/proc/" + std::to_string(pid) + "/cgroup")) == relative_;
}

bool MemoryCgroup::OomKilled() const {
  const std::string text =
      ReadSmall(dir_ + (version_ == 2 ? "/memory.events" : "/memory.oom_control"));
  const size_t at = text.find("oom_kill ");
  return at != std::string::npos && std::strtoull(text.c_str() + at + 9, nullptr, 10) > 0;
}

std::string MemoryCgroup::Describe() const {
  return "a cgroup v" + std::to_string(version_) + " memory limit of " + Gib(limit_bytes_);
}

}  // namespace cannbot::validator
