// The CI bot's view of a repository (ci/git.h) and its run (ci/bot.h), on a throwaway git
// repository: pull-request semantics for changed files (since the merge base, deletions
// left out), reads as of a revision, the config looked up at head, and a run with a scripted
// optimiser (notes for missing profiles, errors as sections, nothing for unchanged kernels).
#include <gtest/gtest.h>
#include "builtin_ops.h"

#include <filesystem>

#include "cannbot/ci/bot.h"
#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"

namespace cannbot::ci {
namespace {

class Repo {
 public:
  Repo() : dir_(std::move(TempDir::Create("cannbot-ci-git")).value()) {
    Git({"init", "-q", "-b", "main"});
    Git({"config", "user.name", "t"});
    Git({"config", "user.email", "t@cannbot.invalid"});
    Git({"config", "commit.gpgsign", "false"});
  }
  const std::string& path() const { return dir_.path(); }
  void Write(const std::string& relative, const std::string& text) {
    const std::string full = dir_.path() + "/" + relative;
    std::filesystem::create_directories(std::filesystem::path(full).parent_path());
    ASSERT_TRUE(WriteFile(full, text).ok());
  }
  void Commit(const std::string& message) {
    Git({"add", "-A"});
    Git({"commit", "-q", "-m", message});
  }
  void Git(std::vector<std::string> args) {
    SpawnOptions options;
    options.argv = {"git", "-C", dir_.path()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    auto run = RunCommand(options, std::chrono::seconds(30));
    ASSERT_TRUE(run.ok() && run->exit.Success()) << (run.ok() ? run->output : "");
  }

 private:
  TempDir dir_;
};

constexpr const char* kConfig =
    "[[kernels]]\nglob = \"ops/*.cpp\"\nop = \"add\"\nprofile = \"profiles/{stem}.csv\"\n";

TEST(CiGitTest, ChangedFilesAreThoseOfThePullRequestSinceTheMergeBase) {
  Repo repo;
  repo.Write("a.cpp", "a\n");
  repo.Write("b.cpp", "b\n");
  repo.Write("gone.cpp", "g\n");
  repo.Write("old name.cpp", "o\n");
  repo.Commit("base");
  repo.Git({"checkout", "-q", "-b", "feature"});
  repo.Write("a.cpp", "a changed\n");
  repo.Write("new dir/n.cpp", "n\n");
  repo.Git({"rm", "-q", "gone.cpp"});
  repo.Git({"mv", "old name.cpp", "new name.cpp"});
  repo.Commit("feature");
  repo.Git({"checkout", "-q", "main"});
  repo.Write("b.cpp", "b changed on main after the branch\n");
  repo.Commit("main moves on");

  auto git = GitRepo::Open(repo.path());
  ASSERT_TRUE(git.ok()) << git.status().ToString();
  auto base = git->ResolveCommit("main");
  auto head = git->ResolveCommit("feature");
  ASSERT_TRUE(base.ok() && head.ok());
  EXPECT_EQ(base->size(), 40u);
  auto changed = git->ChangedFiles(*base, *head);
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  std::vector<std::string> paths;
  for (const ChangedFile& f : *changed) paths.push_back(std::string(1, f.status) + " " + f.path);
  // b.cpp changed on main only; gone.cpp was deleted; the rename is an addition.
  EXPECT_EQ(paths, (std::vector<std::string>{"M a.cpp", "A new dir/n.cpp", "A new name.cpp"}));

  auto text = git->ReadFile(*head, "a.cpp");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "a changed\n");
  EXPECT_EQ(git->ReadFile(*base, "new dir/n.cpp").status().code(), Status::Code::kNotFound);
  EXPECT_EQ(git->ReadFile(*head, "new dir").status().code(), Status::Code::kInvalidArgument);
  auto files = git->ListFiles(*head);
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(files->size(), 4u);
}

TEST(CiGitTest, BadRepositoriesAndRevisionsAreClearErrors) {
  TempDir plain = std::move(TempDir::Create("cannbot-ci-plain")).value();
  auto not_repo = GitRepo::Open(plain.path());
  ASSERT_FALSE(not_repo.ok());
  EXPECT_NE(not_repo.status().message().find("is not a git repository"), std::string::npos);
  EXPECT_NE(GitRepo::Open(plain.File("missing")).status().message().find("does not exist"),
            std::string::npos);
  Repo repo;
  repo.Write("a", "a");
  repo.Commit("one");
  auto git = GitRepo::Open(repo.path());
  ASSERT_TRUE(git.ok());
  EXPECT_NE(git->ResolveCommit("main~3").status().message().find("unknown revision 'main~3'"),
            std::string::npos);
  EXPECT_FALSE(git->ResolveCommit("--all").ok());
  EXPECT_FALSE(git->ResolveCommit("").ok());
}

class ScriptedOptimizer : public KernelOptimizer {
 public:
  std::string Describe() const override { return "scripted"; }
  Result<KernelOutcome> Optimize(const KernelInput& input, const optimize::ProgressFn&) override {
    inputs.push_back(input);
    if (input.job.path == "ops/fails.cpp") return Status::Unavailable("the LLM server is down");
    KernelOutcome outcome;
    outcome.section.path = input.job.path;
    outcome.section.op = input.job.op;
    outcome.section.status = KernelStatus::kNoFasterKernel;
    return outcome;
  }
  std::vector<KernelInput> inputs;
};

// A request for the repository's config at `head`, member by member (a braced aggregate with a
// defaulted GitConfig trips GCC 12's -Wmaybe-uninitialized at -O3).
CiRequest RequestFor(const std::string& dir, const std::string& base, const std::string& head) {
  CiRequest request;
  request.repo_dir = dir;
  request.base = base;
  request.head = head;
  request.registry = &cannbot_test::BuiltInOps();
  return request;
}

TEST(CiBotTest, PrepareReadsTheConfigAtHeadAndRunCollectsOneSectionPerChangedKernel) {
  Repo repo;
  repo.Write(".cannbot.toml", kConfig);
  repo.Write("ops/same.cpp", "unchanged\n");
  repo.Write("ops/k.cpp", "v1\n");
  repo.Write("profiles/k.csv", "a profile\n");
  repo.Commit("base");
  repo.Write("ops/k.cpp", "v2\n");
  repo.Write("ops/fails.cpp", "new\n");
  repo.Write("ops/noprofile.cpp", "new\n");
  repo.Commit("head");

  auto run = Prepare(RequestFor(repo.path(), "main~1", "main"));
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->config_name, ".cannbot.toml");
  ASSERT_EQ(run->plan.jobs.size(), 3u);
  ScriptedOptimizer optimizer;
  std::vector<std::string> log;
  CiResult result = RunPlan(*run, optimizer, [&](const std::string& l) { log.push_back(l); });
  ASSERT_EQ(optimizer.inputs.size(), 3u);
  EXPECT_EQ(optimizer.inputs[1].job.path, "ops/k.cpp");
  EXPECT_EQ(optimizer.inputs[1].source, "v2\n");
  EXPECT_EQ(optimizer.inputs[1].profile_text, "a profile\n");
  ASSERT_EQ(result.comment.kernels.size(), 3u);
  EXPECT_EQ(result.comment.kernels[0].status, KernelStatus::kError);
  EXPECT_EQ(result.comment.kernels[0].error, "the LLM server is down");
  EXPECT_TRUE(result.any_error);
  EXPECT_FALSE(result.any_broken);
  const KernelSection& noprofile = result.comment.kernels[2];
  ASSERT_EQ(noprofile.notes.size(), 1u);
  EXPECT_NE(noprofile.notes[0].find("profile 'profiles/noprofile.csv' could not be read"),
            std::string::npos);
  EXPECT_EQ(result.comment.provider, "scripted");
  EXPECT_EQ(result.comment.head.size(), 12u);
}

TEST(CiBotTest, AMissingOrBrokenConfigStopsTheRun) {
  Repo repo;
  repo.Write("ops/k.cpp", "v1\n");
  repo.Commit("base");
  repo.Write(".cannbot.json", "{\"kernels\": [{\"glob\": \"ops/*.cpp\", \"op\": \"nope\"}]}");
  repo.Commit("config");
  // As of the base there is no config at all; at head there is one, with an unknown op.
  auto missing = Prepare(RequestFor(repo.path(), "main~1", "main~1"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
  EXPECT_NE(missing.status().message().find("no .cannbot.toml or .cannbot.json"),
            std::string::npos);
  auto broken = Prepare(RequestFor(repo.path(), "main~1", "main"));
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find(".cannbot.json: kernels[1]: unknown op 'nope'"),
            std::string::npos)
      << broken.status().message();
}

}  // namespace
}  // namespace cannbot::ci
