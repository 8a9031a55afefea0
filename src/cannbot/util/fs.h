// File-system helpers for the core: whole-file reads and writes, and private temporary
// directories that clean themselves up.
//
// Errors come back as Status naming the path and the operating system's reason.
// Thread-safety: free functions are thread-safe; a TempDir is owned by one thread at a time.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "cannbot/util/status.h"

namespace cannbot {

// Reads a whole file; fails with NotFound when it does not exist, InvalidArgument when it is
// larger than `max_bytes` or is a directory.
Result<std::string> ReadFile(const std::string& path, size_t max_bytes = 64u << 20);
// Writes `data` to `path` (mode 0600), replacing it.
Status WriteFile(const std::string& path, const std::string& data);
bool PathExists(const std::string& path);
// True for a relative path that stays below its starting directory: not empty, not absolute,
// no "." or ".." component, no empty component, no backslash or NUL.
bool IsPlainRelativePath(const std::string& path);
// Writes each {relative path, text} under `dir`, creating parent directories; InvalidArgument
// (naming it) for a path that is not IsPlainRelativePath, before anything of it is written.
Status WriteFilesUnder(const std::string& dir,
                       const std::vector<std::pair<std::string, std::string>>& files);
// `program` as an absolute path: itself when it names a path, else the first executable
// regular file of that name in $PATH (or `fallback_path` when PATH is unset). Relative PATH
// entries are skipped: a child running in another directory would find something else.
// "" when there is none.
std::string FindInPath(const std::string& program,
                       const std::string& fallback_path = "/usr/bin:/bin");

// A directory created with mode 0700 under $TMPDIR (or /tmp), removed recursively when the
// object dies unless Keep() was called.
class TempDir {
 public:
  static Result<TempDir> Create(const std::string& prefix);
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  void Keep() { keep_ = true; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
  bool keep_ = false;
};

// Removes a file or directory tree; missing paths are fine.
void RemoveAll(const std::string& path);

// Directory of the running executable (from /proc/self/exe), without a trailing slash.
std::string ExecutableDir();

}  // namespace cannbot
