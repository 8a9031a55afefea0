#include "cannbot/ci/git.h"

#include <algorithm>

#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"

namespace cannbot::ci {
namespace {

// git's first line of complaint, for messages ("fatal: bad revision 'x'").
std::string FirstLine(const std::string& text) {
  const size_t start = text.find_first_not_of("\n ");
  if (start == std::string::npos) return "";
  return text.substr(start, text.find('\n', start) - start);
}

// Splits NUL-separated output ("-z"), dropping the empty piece after the last NUL.
std::vector<std::string> SplitNul(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

Result<GitRepo::Output> GitRepo::Git(std::vector<std::string> args, size_t output_cap) const {
  SpawnOptions options;
  options.argv = {config_.program, "-C", dir_};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  // The C locale keeps git's messages stable; no prompts for credentials, ever; read-only
  // commands must not take the index lock a concurrent CI step may hold.
  options.extra_environment = {"LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0",
                               "GIT_PAGER=cat"};
  auto run = RunCommand(options, config_.timeout, output_cap);
  if (!run.ok()) {
    return Status::InvalidArgument("cannot run '" + config_.program +
                                   "' (is git installed?): " + run.status().message());
  }
  if (run->timed_out) {
    return Status::Timeout("git " + args.front() + " did not finish within " +
                           std::to_string(config_.timeout.count() / 1000) + " s");
  }
  Output out;
  out.exit_code = run->exit.exited ? run->exit.exit_code : 128 + run->exit.signal;
  out.text = std::move(run->output);
  out.truncated = run->output_truncated;
  return out;
}

Result<GitRepo> GitRepo::Open(const std::string& dir, GitConfig config) {
  if (!PathExists(dir)) {
    return Status::InvalidArgument("repository directory '" + dir + "' does not exist");
  }
  GitRepo repo(dir, std::move(config));
  CANNBOT_ASSIGN_OR_RETURN(Output out, repo.Git({"rev-parse", "--git-dir"}));
  if (out.exit_code != 0 && out.text.find("dubious ownership") != std::string::npos) {
    // CI containers often check a repository out as one user and run as another.
    return Status::InvalidArgument("git refuses to read '" + dir +
                                   "': it belongs to another user (mark it safe with `git config "
                                   "--global --add safe.directory <dir>`)");
  }
  if (out.exit_code != 0) {
    return Status::InvalidArgument("'" + dir + "' is not a git repository (" +
                                   FirstLine(out.text) + ")");
  }
  return repo;
}

Result<std::string> GitRepo::ResolveCommit(const std::string& rev) const {
  if (rev.empty()) return Status::InvalidArgument("an empty revision");
  if (rev.front() == '-') return Status::InvalidArgument("revision '" + rev + "' begins with '-'");
  CANNBOT_ASSIGN_OR_RETURN(
      Output out, Git({"rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"}));
  std::string id = out.text.substr(0, out.text.find('\n'));
  if (out.exit_code != 0 || id.size() < 40) {
    return Status::InvalidArgument("unknown revision '" + rev + "' in " + dir_ +
                                   " (a shallow clone may lack it: fetch more history)");
  }
  return id;
}

Result<std::vector<ChangedFile>> GitRepo::ChangedFiles(const std::string& base_commit,
                                                       const std::string& head_commit) const {
  CANNBOT_ASSIGN_OR_RETURN(Output out, Git({"diff", "--name-status", "-z", "--no-renames",
                                            "--no-ext-diff", "--no-textconv", "--diff-filter=AMT",
                                            base_commit + "..." + head_commit, "--"}));
  if (out.exit_code != 0 || out.truncated) {
    return Status::InvalidArgument("cannot list the files changed between " +
                                   base_commit.substr(0, 12) + " and " + head_commit.substr(0, 12) +
                                   " (" + FirstLine(out.text) + ")");
  }
  std::vector<std::string> fields = SplitNul(out.text);
  std::vector<ChangedFile> files;
  for (size_t i = 0; i + 1 < fields.size(); i += 2) {
    if (fields[i].empty()) continue;
    files.push_back({fields[i][0], fields[i + 1]});
  }
  std::sort(files.begin(), files.end(),
            [](const ChangedFile& a, const ChangedFile& b) { return a.path < b.path; });
  return files;
}

Result<std::vector<std::string>> GitRepo::ListFiles(const std::string& commit) const {
  CANNBOT_ASSIGN_OR_RETURN(Output out,
                           Git({"ls-tree", "-r", "-z", "--name-only", "--full-tree", commit}));
  if (out.exit_code != 0 || out.truncated) {
    return Status::InvalidArgument("cannot list the files of " + commit.substr(0, 12) + " (" +
                                   FirstLine(out.text) + ")");
  }
  return SplitNul(out.text);
}

Result<std::string> GitRepo::ReadFile(const std::string& commit, const std::string& path) const {
  const std::string object = commit + ":" + path;
  CANNBOT_ASSIGN_OR_RETURN(Output type, Git({"cat-file", "-t", object}));
  if (type.exit_code != 0) {
    return Status::NotFound("no file '" + path + "' at " + commit.substr(0, 12));
  }
  if (type.text.rfind("blob", 0) != 0) {
    return Status::InvalidArgument("'" + path + "' at " + commit.substr(0, 12) + " is not a file");
  }
  CANNBOT_ASSIGN_OR_RETURN(Output out, Git({"cat-file", "blob", object}, config_.max_blob_bytes));
  if (out.truncated) {
    return Status::InvalidArgument("'" + path + "' is larger than " +
                                   std::to_string(config_.max_blob_bytes >> 20) + " MiB");
  }
  if (out.exit_code != 0) {
    return Status::IoError("cannot read '" + path + "' at " + commit.substr(0, 12) + " (" +
                           FirstLine(out.text) + ")");
  }
  return std::move(out.text);
}

}  // namespace cannbot::ci
