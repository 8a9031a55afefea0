#include "cannbot/ci/bot.h"

#include "cannbot/ci/section.h"
#include "cannbot/profile/import.h"
#include "cannbot/util/fs.h"

namespace cannbot::ci {

Result<profile::Format> UsableProfile(const KernelInput& input) {
  profile::Format used = input.job.profile_format;
  profile::ImportOptions options;
  options.format = input.job.profile_format;
  CANNBOT_ASSIGN_OR_RETURN(
      profile::Profile parsed,
      profile::ImportProfileText(input.profile_text, input.job.profile, options, &used));
  (void)parsed;
  return used;
}

namespace {

struct LoadedConfig {
  std::string name;
  RepoConfig config;
};

Result<LoadedConfig> LoadConfig(const CiRequest& request, const GitRepo& repo,
                                const std::string& head_commit) {
  if (!request.repo_config_path.empty()) {
    auto text = ReadFile(request.repo_config_path, 1u << 20);
    if (!text.ok()) return text.status().WithContext("cannot read the repository config");
    CANNBOT_ASSIGN_OR_RETURN(RepoConfig config, ParseRepoConfig(*text, request.repo_config_path, *request.registry));
    return LoadedConfig{request.repo_config_path, std::move(config)};
  }
  for (const char* name : kRepoConfigNames) {
    auto text = repo.ReadFile(head_commit, name);
    if (text.status().code() == Status::Code::kNotFound) continue;
    if (!text.ok()) return text.status();
    CANNBOT_ASSIGN_OR_RETURN(RepoConfig config, ParseRepoConfig(*text, name, *request.registry));
    return LoadedConfig{name, std::move(config)};
  }
  return Status::NotFound("no .cannbot.toml or .cannbot.json at the root of " + repo.dir() +
                          " as of " + request.head +
                          ": add one to say which files are kernels of which op (see docs/ci/)");
}

// The sources under DIR/op_host/ and DIR/op_kernel/ as of head, relative to DIR.
Result<ascendc::PackageFiles> ReadPackage(const PreparedRun& run, const std::string& dir) {
  CANNBOT_ASSIGN_OR_RETURN(std::vector<std::string> files, run.repo.ListFiles(run.head_commit));
  ascendc::PackageFiles package;
  for (const std::string& file : files) {
    if (PackageDirOf(file) != dir || !ascendc::IsPackageSourceName(file)) continue;
    CANNBOT_ASSIGN_OR_RETURN(std::string text, run.repo.ReadFile(run.head_commit, file));
    package.push_back({file.substr(dir.size() + 1), std::move(text)});
  }
  if (package.empty()) return Status::NotFound("no package sources under " + dir + " as of head");
  return package;
}

// Reads a planned kernel's inputs as of head; a missing profile is a note, not a failure.
Result<KernelInput> ReadInput(const PreparedRun& run, const KernelJob& job,
                              std::vector<std::string>* notes) {
  KernelInput input;
  input.job = job;
  if (auto op = run.config.repo_ops.find(job.op); op != run.config.repo_ops.end()) {
    input.op_spec = op->second.spec_text;
    input.op_reference = op->second.reference_text;
  }
  if (job.package) {
    CANNBOT_ASSIGN_OR_RETURN(input.package, ReadPackage(run, job.path));
    return input;
  }
  CANNBOT_ASSIGN_OR_RETURN(input.source, run.repo.ReadFile(run.head_commit, job.path));
  if (job.profile.empty()) return input;
  auto profile = run.repo.ReadFile(run.head_commit, job.profile);
  if (profile.ok()) {
    input.profile_text = std::move(profile).value();
  } else {
    notes->push_back("profile '" + job.profile + "' could not be read (" +
                     profile.status().message() + "); diagnosed without it");
  }
  return input;
}

}  // namespace

Result<PreparedRun> Prepare(const CiRequest& request) {
  CANNBOT_ASSIGN_OR_RETURN(GitRepo repo, GitRepo::Open(request.repo_dir, request.git));
  CANNBOT_ASSIGN_OR_RETURN(std::string base, repo.ResolveCommit(request.base));
  CANNBOT_ASSIGN_OR_RETURN(std::string head, repo.ResolveCommit(request.head));
  CANNBOT_ASSIGN_OR_RETURN(LoadedConfig config, LoadConfig(request, repo, head));
  CANNBOT_ASSIGN_OR_RETURN(std::vector<ChangedFile> changed, repo.ChangedFiles(base, head));
  CANNBOT_ASSIGN_OR_RETURN(std::vector<std::string> files, repo.ListFiles(head));
  if (!config.config.ops_dir.empty()) {  // the repository's own ops, as of head
    auto read = [&repo, &head](const std::string& path) { return repo.ReadFile(head, path); };
    CANNBOT_RETURN_IF_ERROR(LoadRepoOps(files, read, *request.registry, &config.config)
                                .WithContext(config.name + ": ops_dir"));
  }
  CiPlan plan = PlanKernels(config.config, changed, files);
  return PreparedRun{std::move(repo),        std::move(base),          std::move(head),
                     std::move(config.name), std::move(config.config), std::move(plan)};
}

CiResult RunPlan(const PreparedRun& run, KernelOptimizer& optimizer,
                 const std::function<void(const std::string&)>& log,
                 const optimize::ProgressFn& progress) {
  CiResult result;
  result.comment.base = run.base_commit.substr(0, 12);
  result.comment.head = run.head_commit.substr(0, 12);
  result.comment.provider = optimizer.Describe();
  result.comment.deferred = run.plan.deferred;
  result.comment.warnings = run.plan.warnings;
  for (const KernelJob& job : run.plan.jobs) {
    if (log) log(job.path + " (" + job.op + "): checking");
    std::vector<std::string> notes;
    auto input = ReadInput(run, job, &notes);
    Result<KernelOutcome> outcome =
        input.ok() ? optimizer.Optimize(*input, progress) : Result<KernelOutcome>(input.status());
    KernelOutcome done = outcome.ok()
                             ? std::move(outcome).value()
                             : KernelOutcome{SectionFromError(job, outcome.status()), "", nullptr};
    done.section.notes.insert(done.section.notes.begin(), notes.begin(), notes.end());
    result.any_broken |= done.section.status == KernelStatus::kBroken;
    result.any_error |= done.section.status == KernelStatus::kError;
    if (log && !outcome.ok()) log(job.path + ": " + outcome.status().message());
    result.comment.kernels.push_back(done.section);
    result.outcomes.push_back(std::move(done));
  }
  return result;
}

}  // namespace cannbot::ci
