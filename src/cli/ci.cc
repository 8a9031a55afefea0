// `cannbot ci`: validated suggestions for the kernels a pull request changed, as one comment.
//
// Flow: flags -> (posting: the forge settings, checked before any work) -> ci::Prepare (git,
// .cannbot.toml, plan) -> a read of the pull request's comments (bad tokens fail in seconds,
// not after an hour of optimising) -> ci::RunPlan -> the comment -> print it, or post it.
//
// Exit codes: 0 done; 1 a changed kernel is broken (unless the repository config says
// fail_on_broken_kernel = false); 2 usage, git, config or API errors, or a kernel that could
// not be judged. The comment is posted before a 1 or a kernel-level 2 is returned.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "cannbot/ci/bot.h"
#include "cannbot/ci/local_optimizer.h"
#include "cannbot/ci/remote_optimizer.h"
#include "cannbot/ci/poster.h"
#include "cannbot/config/config.h"
#include "cannbot/util/fs.h"
#include "cli/commands.h"

namespace cannbot::cli {
namespace {

struct CiFlags {
  std::string repo = ".";
  std::string base;
  std::string head;
  std::string server;
  std::string llm;
  std::string model;
  std::string config_file;
  std::string repo_config;
  std::vector<std::string> skills_dirs;
  std::string db;
  uint64_t seed = 0;
  bool seed_given = false;
  std::string post;  // "", "github", "gitcode"
  int64_t pr = 0;
  std::string remote_repo;  // OWNER/NAME on the forge
  std::string api_url;
  std::string token_env;
  std::string bot_login;
  bool dry_run = false;
  std::string artifacts;
  bool insecure_sandbox = false;  // --insecure-sandbox
};

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

void Say(const std::string& line) { std::fprintf(stderr, "cannbot ci: %s\n", line.c_str()); }

// "refs/pull/42/merge" -> 42, as GitHub Actions sets GITHUB_REF for pull_request events.
int64_t PrFromRef(const std::string& ref) {
  const std::string prefix = "refs/pull/";
  if (ref.rfind(prefix, 0) != 0) return 0;
  return std::strtoll(ref.c_str() + prefix.size(), nullptr, 10);
}

// The forge settings: flags first, then the variables the forge's own CI sets.
Result<ci::PosterConfig> PosterSettings(const CiFlags& flags) {
  ci::PosterConfig poster;
  if (flags.post == "github") {
    poster.forge = ci::Forge::kGitHub;
  } else if (flags.post == "gitcode") {
    poster.forge = ci::Forge::kGitCode;
  } else {
    return Status::InvalidArgument("--post takes github or gitcode, not '" + flags.post + "'");
  }
  const bool github = poster.forge == ci::Forge::kGitHub;
  poster.repo = !flags.remote_repo.empty() ? flags.remote_repo
                : github                   ? Env("GITHUB_REPOSITORY")
                                           : "";
  poster.api_url = !flags.api_url.empty() ? flags.api_url : github ? Env("GITHUB_API_URL") : "";
  poster.pr = flags.pr > 0 ? flags.pr : github ? PrFromRef(Env("GITHUB_REF")) : 0;
  const std::string token_env = !flags.token_env.empty() ? flags.token_env
                                : github                 ? "GITHUB_TOKEN"
                                                         : "GITCODE_TOKEN";
  poster.token = Env(token_env.c_str());
  poster.token_source = "$" + token_env;
  poster.author = flags.bot_login;
  poster.log = Say;
  if (poster.repo.empty()) {
    return Status::InvalidArgument(std::string("which repository? pass --") +
                                   (github ? "github" : "gitcode") + "-repo OWNER/NAME");
  }
  return poster;
}

Status BuildToolConfig(const CiFlags& flags, config::Config* config) {
  if (!flags.config_file.empty()) {
    CANNBOT_RETURN_IF_ERROR(config::LoadFile(flags.config_file, config));
  }
  CANNBOT_RETURN_IF_ERROR(config::ApplyEnvironment(config));
  if (flags.insecure_sandbox) config->insecure_sandbox = true;
  if (!flags.llm.empty()) config->llm.base_url = flags.llm;
  if (!flags.model.empty()) config->llm.model = flags.model;
  if (!flags.db.empty()) config->db = flags.db;
  for (const std::string& dir : flags.skills_dirs) config->skill_dirs.push_back(dir);
  return Status::Ok();
}

Result<std::unique_ptr<ci::KernelOptimizer>> MakeOptimizer(const CiFlags& flags,
                                                           const ci::PreparedRun& run,
                                                           const ops::Registry& registry) {
  if (!flags.server.empty()) {
    ci::RemoteOptimizerConfig remote;
    remote.daemon.server = flags.server;
    remote.daemon.token = Env("CANNBOT_TOKEN");
    remote.thresholds = run.config.thresholds;
    remote.llm = flags.llm;
    remote.model = flags.model;
    if (flags.seed_given) remote.seed = flags.seed;
    return std::unique_ptr<ci::KernelOptimizer>(new ci::RemoteOptimizer(std::move(remote)));
  }
  ci::LocalOptimizerConfig local;
  CANNBOT_RETURN_IF_ERROR(BuildToolConfig(flags, &local.tool));
  local.thresholds = run.config.thresholds;
  if (flags.seed_given) local.seed = flags.seed;
  std::vector<std::string> warnings;
  CANNBOT_ASSIGN_OR_RETURN(std::unique_ptr<ci::LocalOptimizer> optimizer,
                           ci::LocalOptimizer::Create(std::move(local), registry, &warnings));
  for (const std::string& w : warnings) std::fprintf(stderr, "cannbot: warning: %s\n", w.c_str());
  return std::unique_ptr<ci::KernelOptimizer>(std::move(optimizer));
}

void DescribePlan(const ci::PreparedRun& run) {
  Say("config " + run.config_name + "; " + run.base_commit.substr(0, 12) + "..." +
      run.head_commit.substr(0, 12) + ": " + std::to_string(run.plan.jobs.size()) +
      " changed kernel(s)");
  for (const ci::KernelJob& job : run.plan.jobs) Say("  " + job.path + " (" + job.op + ")");
  for (const std::string& path : run.plan.deferred) {
    Say("  " + path + " (over max_kernels; not checked)");
  }
  for (const std::string& w : run.plan.warnings) {
    std::fprintf(stderr, "cannbot: warning: %s\n", w.c_str());
  }
}

// "ops/add.cpp" -> "ops_add.cpp": one flat directory of artefacts.
std::string Flat(std::string path) {
  for (char& c : path) c = c == '/' ? '_' : c;
  return path;
}

Status WriteArtifacts(const std::string& dir, const ci::CiResult& result, const std::string& body) {
  CANNBOT_RETURN_IF_ERROR(WriteFile(dir + "/comment.md", body));
  for (const ci::KernelOutcome& o : result.outcomes) {
    const std::string name = dir + "/" + Flat(o.section.path);
    if (!o.kernel.empty()) CANNBOT_RETURN_IF_ERROR(WriteFile(name + ".suggested", o.kernel));
    if (!o.report.is_null()) {
      CANNBOT_RETURN_IF_ERROR(WriteFile(name + ".report.json", o.report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)));
    }
  }
  return Status::Ok();
}

int Post(ci::CommentPoster& poster, const ci::CiResult& result, const std::string& body) {
  // A change without kernels only updates an earlier comment (its kernels may be fixed now).
  auto posted = poster.Upsert(body, !result.comment.kernels.empty());
  if (!posted.ok()) return ReportError(posted.status(), false);
  using Action = ci::PostResult::Action;
  switch (posted->action) {
    case Action::kCreated:
      std::printf("created comment %s %s\n", posted->id.c_str(), posted->url.c_str());
      break;
    case Action::kUpdated:
      std::printf("updated comment %s %s\n", posted->id.c_str(), posted->url.c_str());
      break;
    case Action::kUnchanged:
      std::printf("comment %s is already up to date\n", posted->id.c_str());
      break;
    case Action::kNothingToUpdate:
      std::printf("no changed kernel and no earlier comment: nothing posted\n");
      break;
  }
  std::fflush(stdout);
  return kExitOk;
}

optimize::ProgressFn CiProgress() {
  return [](const optimize::ProgressEvent& event) {
    if (event.kind == optimize::ProgressEvent::Kind::kAttemptDone) {
      std::fprintf(stderr, "  %s\n", event.text.c_str());
    }
  };
}

int Run(const CiFlags& flags, const ops::Registry& registry) {
  // A dry run never talks to the forge, so it needs none of its settings.
  std::unique_ptr<llm::HttpClient> http;
  std::unique_ptr<ci::CommentPoster> poster;
  if (!flags.post.empty() && !flags.dry_run) {
    auto settings = PosterSettings(flags);
    if (!settings.ok()) return ReportError(settings.status(), false);
    http = llm::NewCurlHttpClient();
    poster = std::make_unique<ci::CommentPoster>(std::move(settings).value(), http.get());
    Status checked = poster->CheckConfig();
    if (!checked.ok()) return ReportError(checked, false);
  }
  ci::CiRequest request;
  request.repo_dir = flags.repo;
  request.base = flags.base;
  request.head = flags.head;
  request.repo_config_path = flags.repo_config;
  request.registry = &registry;
  auto run = ci::Prepare(request);
  if (!run.ok()) return ReportError(run.status(), false);
  DescribePlan(*run);
  if (poster) {  // fail in seconds on a bad token or PR, not after the optimisation
    auto existing = poster->Find();
    if (!existing.ok()) return ReportError(existing.status(), false);
  }
  auto optimizer = MakeOptimizer(flags, *run, registry);
  if (!optimizer.ok()) return ReportError(optimizer.status(), false);
  ci::CiResult result = ci::RunPlan(*run, **optimizer, Say, CiProgress());
  const std::string body = ci::RenderComment(result.comment);
  Say(ci::SummaryText(result.comment));
  if (!flags.artifacts.empty()) {
    Status written = WriteArtifacts(flags.artifacts, result, body);
    if (!written.ok()) return ReportError(written.WithContext("writing artefacts"), false);
  }
  if (!poster) {
    std::printf("%s", body.c_str());
    std::fflush(stdout);
    if (!flags.post.empty()) Say("dry run: nothing was posted");
  } else if (int posted = Post(*poster, result, body); posted != kExitOk) {
    return posted;
  }
  if (result.any_error) return kExitError;
  return result.any_broken && run->config.fail_on_broken_kernel ? kExitRejected : kExitOk;
}

}  // namespace

Command RegisterCi(CLI::App& app, const ops::Registry& registry) {
  auto flags = std::make_shared<CiFlags>();
  CLI::App* cmd = app.add_subcommand(
      "ci", "Check the kernels a change touched and comment on its pull request");
  cmd->add_option("--repo", flags->repo, "The git repository (default: the current directory)");
  cmd->add_option("--base", flags->base, "The revision the change is based on")->required();
  cmd->add_option("--head", flags->head, "The revision with the change")->required();
  cmd->add_option("--server", flags->server,
                  "Optimise through a cannbot daemon at this URL (bearer token: $CANNBOT_TOKEN)");
  cmd->add_option("--llm", flags->llm, "OpenAI-compatible base URL (default: offline recipes)");
  cmd->add_option("--model", flags->model, "Model name on that server");
  cmd->add_option("--config", flags->config_file, "cannbot's own config file (TOML or JSON)");
  cmd->add_option("--repo-config", flags->repo_config,
                  "Repository config file to use instead of .cannbot.toml/.json at head");
  cmd->add_option("--skills-dir", flags->skills_dirs, "Extra skills directory (repeatable)");
  cmd->add_option("--db", flags->db, "Store file");
  AddInsecureSandboxFlag(cmd, &flags->insecure_sandbox);
  cmd->add_option("--seed", flags->seed, "Seed for the validator's random inputs")
      ->each([flags](const std::string&) { flags->seed_given = true; });
  cmd->add_option("--post", flags->post, "Post the comment to: github, gitcode")
      ->check(CLI::IsMember({"github", "gitcode"}));
  cmd->add_option("--pr", flags->pr, "Pull request number (GitHub: default from $GITHUB_REF)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--github-repo,--gitcode-repo", flags->remote_repo,
                  "OWNER/NAME on the forge (GitHub: default $GITHUB_REPOSITORY)");
  cmd->add_option("--api-url", flags->api_url,
                  "API base URL (default https://api.github.com or $GITHUB_API_URL; GitCode "
                  "https://api.gitcode.com/api/v5)");
  cmd->add_option("--token-env", flags->token_env,
                  "Environment variable holding the token (default GITHUB_TOKEN / GITCODE_TOKEN)");
  cmd->add_option("--bot-login", flags->bot_login,
                  "Only a comment by this account is the bot's to update (public repositories: "
                  "anyone can post the marker)");
  cmd->add_flag("--dry-run", flags->dry_run, "Print the comment instead of posting it");
  cmd->add_option("--artifacts", flags->artifacts,
                  "Directory (existing) for comment.md, suggested kernels and JSON reports");
  return {cmd, [flags, &registry] { return Run(*flags, registry); }};
}

}  // namespace cannbot::cli
