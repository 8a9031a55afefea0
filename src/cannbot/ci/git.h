// GitRepo: the few read-only questions the CI bot asks a git repository, answered by running
// the `git` program (the one every CI checkout already has).
//
// Nothing here writes to the repository, its index or its config: revisions are resolved, trees
// listed and blobs read straight from the object store, so the bot works the same on a
// detached CI checkout, a bare clone or a developer's dirty work tree. Revisions beginning
// with '-' are refused, so no argument is ever read as an option.
//
// Errors carry git's own first line ("fatal: not a git repository ...") after a sentence for
// people. Thread-safety: a GitRepo is an immutable value; its methods may run concurrently.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "cannbot/util/status.h"

namespace cannbot::ci {

struct GitConfig {
  std::string program = "git";                // looked up in PATH
  std::chrono::milliseconds timeout{120000};  // per git command
  size_t max_blob_bytes = 8u << 20;           // kernels and profiles larger than this are refused
};

struct ChangedFile {
  char status = 'M';  // 'A' added, 'M' modified, 'T' type changed (present at head either way)
  std::string path;   // repository-relative
};

class GitRepo {
 public:
  // InvalidArgument when `dir` does not exist or is not inside a git work tree or repository.
  static Result<GitRepo> Open(const std::string& dir, GitConfig config = {});

  const std::string& dir() const { return dir_; }

  // The full commit id of `rev` ("main~1", a tag, an id). InvalidArgument naming the revision
  // when it does not exist here (a shallow clone often lacks the base: fetch more history).
  Result<std::string> ResolveCommit(const std::string& rev) const;

  // Files added or modified on the way from the merge base of `base` and `head` to `head`
  // (what a pull request shows: `git diff base...head`), sorted by path. Deleted files are
  // left out: there is no kernel left to look at. Renames count as additions.
  Result<std::vector<ChangedFile>> ChangedFiles(const std::string& base_commit,
                                                const std::string& head_commit) const;

  // Every file path in the tree of `commit`.
  Result<std::vector<std::string>> ListFiles(const std::string& commit) const;

  // The contents of `path` at `commit`. NotFound when there is no such file there;
  // InvalidArgument when it is larger than GitConfig::max_blob_bytes.
  Result<std::string> ReadFile(const std::string& commit, const std::string& path) const;

 private:
  GitRepo(std::string dir, GitConfig config) : dir_(std::move(dir)), config_(std::move(config)) {}

  struct Output {
    int exit_code = 0;
    std::string text;
    bool truncated = false;
  };
  // Runs `git -C dir args...`; errors only when git cannot be run at all or times out.
  Result<Output> Git(std::vector<std::string> args, size_t output_cap = 16u << 20) const;

  std::string dir_;
  GitConfig config_;
};

}  // namespace cannbot::ci
