#include "cannbot/util/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace cannbot {
namespace {

std::string Errno() { return std::strerror(errno); }

}  // namespace

Result<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::NotFound(path + ": no such file");
    return Status::IoError(path + ": " + Errno());
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(path + ": is a directory, not a file");
  }
  std::string data;
  char buffer[1 << 16];
  while (true) {
    ssize_t got = ::read(fd, buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      std::string why = Errno();
      ::close(fd);
      return Status::IoError(path + ": " + why);
    }
    if (got == 0) break;
    if (data.size() + static_cast<size_t>(got) > max_bytes) {
      ::close(fd);
      return Status::InvalidArgument(path + ": larger than " + std::to_string(max_bytes) +
                                     " bytes");
    }
    data.append(buffer, static_cast<size_t>(got));
  }
  ::close(fd);
  return data;
}

Status WriteFile(const std::string& path, const std::string& data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IoError(path + ": " + Errno());
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string why = Errno();
      ::close(fd);
      return Status::IoError(path + ": " + why);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return Status::IoError(path + ": " + Errno());
  return Status::Ok();
}

bool IsPlainRelativePath(const std::string& path) {
  if (path.empty() || path.front() == '/' || path.find('\\') != std::string::npos ||
      path.find('\0') != std::string::npos) {
    return false;
  }
  size_t start = 0;
  while (start <= path.size()) {
    const size_t end = std::min(path.find('/', start), path.size());
    const std::string part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

Status WriteFilesUnder(const std::string& dir,
                       const std::vector<std::pair<std::string, std::string>>& files) {
  for (const auto& [name, text] : files) {
    if (!IsPlainRelativePath(name)) {
      return Status::InvalidArgument("a file's name must be a relative path inside " + dir +
                                     ", not \"" + name + "\"");
    }
  }
  for (const auto& [name, text] : files) {
    const std::filesystem::path path = std::filesystem::path(dir) / name;
    std::error_code error;
    std::filesystem::create_directories(path.parent_path(), error);
    if (error) return Status::IoError(path.parent_path().string() + ": " + error.message());
    CANNBOT_RETURN_IF_ERROR(WriteFile(path.string(), text));
  }
  return Status::Ok();
}

bool PathExists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string FindInPath(const std::string& program, const std::string& fallback_path) {
  auto executable = [](const std::string& candidate) {
    struct stat st {};
    return ::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(candidate.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string::npos) return executable(program) ? program : "";
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : fallback_path;
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(start, end - start);
    if (!dir.empty() && dir[0] == '/' && executable(dir + "/" + program)) {
      return dir + "/" + program;
    }
    start = end + 1;
  }
  return "";
}

Result<TempDir> TempDir::Create(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string base = (tmp && *tmp) ? tmp : "/tmp";
  std::string pattern = base + "/" + prefix + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Status::IoError("cannot create a temporary directory in " + base + ": " + Errno());
  }
  return TempDir(pattern);
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)), keep_(other.keep_) {
  other.path_.clear();
}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    if (!path_.empty() && !keep_) RemoveAll(path_);
    path_ = std::move(other.path_);
    keep_ = other.keep_;
    other.path_.clear();
  }
  return *this;
}

TempDir::~TempDir() {
  if (!path_.empty() && !keep_) RemoveAll(path_);
}

void RemoveAll(const std::string& path) {
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
}

std::string ExecutableDir() {
  char buffer[4096];
  ssize_t n = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return ".";
  std::string path(buffer, static_cast<size_t>(n));
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace cannbot
