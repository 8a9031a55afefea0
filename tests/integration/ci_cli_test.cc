// `cannbot ci` end to end: a throwaway git repository built here (a base commit and a head
// commit that changes a naive kernel), the real binary, and a fake GitHub/GitCode API on
// loopback that records every request. The first run creates one comment with a validated
// suggestion, the second updates the same comment (after paging through other comments);
// the token authenticates every request and appears in no output; 401/403/5xx paths; a
// kernel the change broke is reported as broken; bad input fails with exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"
#include "integration/ci_fake_forge.h"
#include "integration/daemon_support.h"
#include "integration/fake_llm_server.h"
#include "integration/package_support.h"
#include "integration/test_support.h"

namespace cannbot {
namespace {

using testing::FakeForge;
using testing::ForgeFailure;
using testing::SourcePath;

constexpr const char* kToken = "ghs_ciTestToken0123456789abcdef";
constexpr const char* kMarker = "<!-- cannbot-ci -->";

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A git repository in a temporary directory, committed to with a local identity.
class TestRepo {
 public:
  TestRepo() : dir_(std::move(TempDir::Create("cannbot-ci-repo")).value()) {
    Git({"init", "-q", "-b", "main"});
    Git({"config", "user.name", "cannbot test"});
    Git({"config", "user.email", "ci-test@cannbot.invalid"});
    Git({"config", "commit.gpgsign", "false"});
  }
  const std::string& path() const { return dir_.path(); }

  void Write(const std::string& relative, const std::string& text) {
    const std::string full = dir_.path() + "/" + relative;
    std::filesystem::create_directories(full.substr(0, full.rfind('/')));
    ASSERT_TRUE(WriteFile(full, text).ok());
  }
  void Copy(const std::string& relative, const std::string& source) {
    Write(relative, *ReadFile(source));
  }
  void Commit(const std::string& message) {
    Git({"add", "-A"});
    Git({"commit", "-q", "-m", message});
  }
  std::string Git(std::vector<std::string> args) {
    SpawnOptions options;
    options.argv = {"git", "-C", dir_.path()};
    options.argv.insert(options.argv.end(), args.begin(), args.end());
    auto run = RunCommand(options, std::chrono::seconds(30));
    EXPECT_TRUE(run.ok() && run->exit.Success())
        << (run.ok() ? run->output : run.status().ToString());
    return run.ok() ? run->output : "";
  }

 private:
  TempDir dir_;
};

// The base commit holds naive add and relu kernels and the config; the head changes one.
void BaseCommit(TestRepo& repo) {
  repo.Copy(".cannbot.toml", testing::Fixture("ci/repo/cannbot.toml"));
  repo.Copy("ops/add/add.cpp", SourcePath("examples/add/naive.cpp"));
  repo.Copy("ops/relu/relu.cpp", SourcePath("examples/relu/naive.cpp"));
  repo.Write("README.md", "kernels\n");
  repo.Commit("base");
}

struct CliRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

CliRun Ci(const std::string& cwd, std::vector<std::string> args,
          std::vector<std::string> env = {}) {
  SpawnOptions options;
  options.argv = {std::string(CANNBOT_BUILD_DIR) + "/cannbot", "ci"};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.argv.push_back("--db=" + std::string(CANNBOT_BUILD_DIR) + "/tests/integration-store.db");
  options.working_dir = cwd;
  // The ambient CI's variables must not leak into the test, whatever runs it.
  for (const char* name :
       {"GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_REF", "GITHUB_API_URL", "GITCODE_TOKEN"}) {
    const std::string prefix = std::string(name) + "=";
    bool given = false;
    for (const std::string& e : env) given |= e.rfind(prefix, 0) == 0;
    if (!given) options.extra_environment.push_back(prefix);
  }
  options.extra_environment.insert(options.extra_environment.end(), env.begin(), env.end());
  auto run = RunCommand(options, std::chrono::seconds(280), 16u << 20);
  if (!run.ok()) return {};
  return {run->exit.exited ? run->exit.exit_code : 128 + run->exit.signal, run->output};
}

std::vector<std::string> PostFlags(const FakeForge& forge) {
  return {"--post", "github", "--github-repo", "acme/kernels",
          "--pr",   "7",      "--api-url",     forge.url()};
}

int BotComments(FakeForge& forge) {
  int n = 0;
  for (const auto& c : forge.comments()) n += c.body.rfind(kMarker, 0) == 0;
  return n;
}

void ExpectTokenOnlyInHeaders(FakeForge& forge, const std::vector<CliRun>& runs) {
  for (const CliRun& run : runs) EXPECT_FALSE(Contains(run.output, kToken)) << run.output;
  ASSERT_FALSE(forge.requests().empty());
  for (const auto& r : forge.requests()) {
    EXPECT_EQ(r.authorization, std::string("Bearer ") + kToken) << r.method << " " << r.target;
    EXPECT_FALSE(Contains(r.target, kToken));
    EXPECT_FALSE(Contains(r.body, kToken));
  }
}

TEST(CiCliTest, FirstRunCreatesOneCommentSecondRunUpdatesItInPlace) {
  TestRepo repo;
  BaseCommit(repo);
  repo.Copy("ops/add/add.cpp", testing::Fixture("ci/repo/add_commuted.cpp"));
  repo.Commit("commute add's operands");
  FakeForge forge;
  forge.AddComments(230);  // three pages of other people's comments at 100 per page

  // Both runs exactly as a workflow runs them: the repository from the working directory, the
  // forge settings from the variables GitHub Actions sets.
  const std::vector<std::string> command = {"--base", "main~1", "--head",
                                            "main",   "--post", "github"};
  const std::vector<std::string> actions_env = {
      std::string("GITHUB_TOKEN=") + kToken, "GITHUB_REPOSITORY=acme/kernels",
      "GITHUB_REF=refs/pull/7/merge", "GITHUB_API_URL=" + forge.url()};
  CliRun first = Ci(repo.path(), command, actions_env);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_TRUE(Contains(first.output, "created comment")) << first.output;
  EXPECT_TRUE(Contains(first.output, "warning: kernels[3]: glob 'ops/gelu/**/*.cpp'"))
      << first.output;
  ASSERT_EQ(BotComments(forge), 1);
  const testing::ForgeComment created = forge.comments().back();
  EXPECT_TRUE(Contains(created.body, "### `ops/add/add.cpp` · op `add` · faster kernel found"))
      << created.body;
  EXPECT_TRUE(Contains(created.body, "**Verdict: accepted.**"));
  EXPECT_TRUE(Contains(created.body, "| after (suggested) |"));
  EXPECT_TRUE(Contains(created.body, "```diff\n--- ops/add/add.cpp"));
  EXPECT_FALSE(Contains(created.body, "ops/relu/relu.cpp"));  // unchanged kernels are not touched
  // The listing read every page before deciding to create.
  int gets = 0;
  for (const auto& r : forge.requests()) gets += r.method == "GET";
  EXPECT_GE(gets, 6);  // preflight + final listing, three pages each
  bool third_page = false;
  for (const auto& r : forge.requests()) third_page |= Contains(r.target, "page=3");
  EXPECT_TRUE(third_page);

  // The second push: the same command finds its comment on the third page and updates it.
  forge.AddComments(5);
  CliRun second = Ci(repo.path(), command, actions_env);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_TRUE(Contains(second.output, "comment " + std::to_string(created.id))) << second.output;
  EXPECT_EQ(BotComments(forge), 1);
  EXPECT_EQ(forge.comments().size(), 236u);
  int patches = 0, posts = 0;
  for (const auto& r : forge.requests()) {
    patches += r.method == "PATCH";
    posts += r.method == "POST";
    if (r.method == "PATCH") {
      EXPECT_EQ(r.target, "/repos/acme/kernels/issues/comments/" + std::to_string(created.id));
    }
  }
  EXPECT_EQ(posts, 1);
  EXPECT_LE(patches, 1);  // none when the new body is identical
  ExpectTokenOnlyInHeaders(forge, {first, second});
}

TEST(CiCliTest, ThroughADaemonTheCommentCarriesTheDaemonsValidatedSuggestion) {
  TestRepo repo;
  BaseCommit(repo);
  repo.Copy("ops/add/add.cpp", testing::Fixture("ci/repo/add_commuted.cpp"));
  repo.Commit("commute add's operands");
  testing::Daemon daemon;
  ASSERT_TRUE(daemon.Start());

  CliRun run = Ci(repo.path(), {"--base", "main~1", "--head", "main", "--dry-run", "--server",
                                daemon.url()});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "### `ops/add/add.cpp` · op `add` · faster kernel found"))
      << run.output;
  EXPECT_TRUE(Contains(run.output, "**Verdict: accepted.**"));
  EXPECT_TRUE(Contains(run.output, "| after (suggested) |"));
  EXPECT_TRUE(Contains(run.output, "```diff\n--- ops/add/add.cpp"));
  EXPECT_TRUE(Contains(run.output, "a cannbot daemon")) << "the footer names the optimiser";
  EXPECT_FALSE(Contains(run.output, daemon.url())) << "the comment must not name the server";

  // The work was the daemon's: it holds one finished job for the changed kernel, none for
  // the unchanged one.
  testing::HttpReply jobs = daemon.Get("/jobs");
  ASSERT_EQ(jobs.status, 200) << jobs.body;
  nlohmann::json listed = nlohmann::json::parse(jobs.body);
  ASSERT_TRUE(listed.contains("jobs")) << jobs.body;
  ASSERT_EQ(listed["jobs"].size(), 1u) << jobs.body;
  EXPECT_EQ(listed["jobs"][0]["op"], "add");
  EXPECT_EQ(listed["jobs"][0]["status"], "succeeded");
}

// An Ascend C operator package in the repository: a change to its kernel plans one job for
// the whole package (its op_host/ and op_kernel/ as of head), the model's answer is validated
// against it, and the comment carries the package diff. Files outside any package are not
// planned; a [[packages]] dir that matches no package is a warning.
TEST(CiCliTest, AChangedOperatorPackageGetsOneValidatedSuggestion) {
  TestRepo repo;
  repo.Write(".cannbot.toml",
             "[[packages]]\ndir = \"ops/*\"\nop = \"add\"\n\n"
             "[[packages]]\ndir = \"nowhere/*\"\nop = \"add\"\n");
  const ascendc::PackageFiles slow = testing::FloatOnlyExamplePackage("add_custom_slow");
  const ascendc::PackageFiles fast = testing::FloatOnlyExamplePackage("add_custom_fast");
  ASSERT_FALSE(slow.empty() || fast.empty());
  for (const auto& [path, text] : slow) repo.Write("ops/add_custom/" + path, text);
  repo.Write("ops/add_custom/README.md", "the add operator\n");
  repo.Commit("base");
  for (const auto& [path, text] : slow) {
    if (path == "op_kernel/add_custom.cpp") {
      repo.Write("ops/add_custom/" + path, "// Adds two tensors.\n" + text);
    }
  }
  repo.Write("ops/add_custom/README.md", "the add operator, documented\n");
  repo.Commit("document the kernel");
  testing::FakeLlmServer llm;
  llm.Push(testing::Chat({testing::KernelFilesAnswer(fast)}));

  CliRun run = Ci(repo.path(), {"--base", "main~1", "--head", "main", "--dry-run", "--llm",
                                llm.base_url(), "--model", "m", "--seed", "3"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output, "### `ops/add_custom` · op `add` · faster kernel found"))
      << run.output;
  EXPECT_TRUE(Contains(run.output, "+++ b/op_kernel/add_custom.cpp")) << run.output;
  EXPECT_TRUE(Contains(run.output, "warning: packages[2]: dir 'nowhere/*'")) << run.output;
  // One job (one section), not one per changed file.
  size_t sections = 0;
  for (size_t at = run.output.find("\n### "); at != std::string::npos;
       at = run.output.find("\n### ", at + 1)) {
    ++sections;
  }
  EXPECT_EQ(sections, 1u) << run.output;
  ASSERT_FALSE(llm.requests().empty());
  EXPECT_TRUE(Contains(llm.requests()[0], "File: op_host/add_custom.cpp"));
  EXPECT_TRUE(Contains(llm.requests()[0], "// Adds two tensors."));  // as of head
}

TEST(CiCliTest, AKernelTheChangeBrokeIsReportedAsBroken) {
  TestRepo repo;
  BaseCommit(repo);
  repo.Copy("ops/relu/relu.cpp", testing::Fixture("ci/repo/relu_broken.cpp"));
  repo.Commit("simplify relu");
  CliRun run = Ci(repo.path(), {"--base", "main~1", "--head", "main", "--dry-run"});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(Contains(run.output, std::string(kMarker) + "\n**cannbot** · ")) << run.output;
  EXPECT_TRUE(Contains(run.output, "1 broken by this change"));
  EXPECT_TRUE(Contains(run.output,
                       "### `ops/relu/relu.cpp` · op `relu` · "
                       "**this change breaks numeric equivalence**"));
  EXPECT_TRUE(Contains(run.output, "rejected at the numeric layer"));
  EXPECT_TRUE(Contains(run.output, "expected"));
  EXPECT_FALSE(Contains(run.output, "ops/add/add.cpp ("));
}

TEST(CiCliTest, ForbiddenPostNamesEndpointAndStatusAndCreatesNothing) {
  TestRepo repo;
  BaseCommit(repo);
  repo.Copy("ops/relu/relu.cpp", testing::Fixture("ci/repo/relu_broken.cpp"));
  repo.Commit("simplify relu");
  FakeForge forge;
  forge.AddComments(3);
  forge.Fail({"POST", 403, R"({"message":"Resource not accessible by integration"})", {}, false});
  std::vector<std::string> args = {"--base", "main~1", "--head", "main"};
  for (const std::string& f : PostFlags(forge)) args.push_back(f);
  CliRun run = Ci(repo.path(), args, {std::string("GITHUB_TOKEN=") + kToken});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(
      Contains(run.output, "POST " + forge.url() +
                               "/repos/acme/kernels/issues/7/comments answered 403 Forbidden: "
                               "Resource not accessible by integration"))
      << run.output;
  EXPECT_EQ(BotComments(forge), 0);
  ExpectTokenOnlyInHeaders(forge, {run});
}

TEST(CiCliTest, BadCredentialsFailBeforeAnyOptimisation) {
  TestRepo repo;
  BaseCommit(repo);
  repo.Copy("ops/add/add.cpp", testing::Fixture("ci/repo/add_commuted.cpp"));
  repo.Commit("commute add");
  FakeForge forge;
  forge.Fail({"GET", 401, R"({"message":"Bad credentials"})", {}, false});
  std::vector<std::string> args = {"--base", "main~1", "--head", "main"};
  for (const std::string& f : PostFlags(forge)) args.push_back(f);
  CliRun run = Ci(repo.path(), args, {std::string("GITHUB_TOKEN=") + kToken});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(
      Contains(run.output, "GET " + forge.url() +
                               "/repos/acme/kernels/issues/7/comments?per_page=100 answered "
                               "401 Unauthorized: Bad credentials. The token in $GITHUB_TOKEN"))
      << run.output;
  EXPECT_FALSE(Contains(run.output, "): checking"));
  EXPECT_EQ(forge.requests().size(), 1u);
  ExpectTokenOnlyInHeaders(forge, {run});

  CliRun no_token = Ci(repo.path(), args);
  EXPECT_EQ(no_token.exit_code, 2);
  EXPECT_TRUE(Contains(no_token.output, "$GITHUB_TOKEN is empty or unset")) << no_token.output;
}

TEST(CiCliTest, ServerErrorsAreRetriedAndALostReplyMakesNoDuplicate) {
  TestRepo repo;
  BaseCommit(repo);
  repo.Copy("ops/relu/relu.cpp", testing::Fixture("ci/repo/relu_broken.cpp"));
  repo.Commit("simplify relu");
  FakeForge forge;
  forge.AddComments(120);
  forge.Fail({"GET", 502, "<html>bad gateway</html>", {{"Retry-After", "1"}}, false});
  // The POST lands, but its answer is a 503: the bot must find it rather than post again.
  forge.Fail({"POST", 503, R"({"message":"try later"})", {{"Retry-After", "0"}}, true});
  std::vector<std::string> args = {"--base", "main~1", "--head", "main"};
  for (const std::string& f : PostFlags(forge)) args.push_back(f);
  CliRun run = Ci(repo.path(), args, {std::string("GITHUB_TOKEN=") + kToken});
  EXPECT_EQ(run.exit_code, 1) << run.output;  // posted; the kernel is broken
  EXPECT_TRUE(Contains(run.output, "answered 502; retrying in 1 s")) << run.output;
  EXPECT_TRUE(Contains(run.output, "answered 503; retrying in 0 s")) << run.output;
  EXPECT_EQ(BotComments(forge), 1);
  int posts = 0;
  for (const auto& r : forge.requests()) posts += r.method == "POST";
  EXPECT_EQ(posts, 1);
  ExpectTokenOnlyInHeaders(forge, {run});
}

TEST(CiCliTest, GitCodeCommentsGoThroughItsPullRequestApi) {
  TestRepo repo;
  BaseCommit(repo);
  repo.Copy("ops/relu/relu.cpp", testing::Fixture("ci/repo/relu_broken.cpp"));
  repo.Commit("simplify relu");
  FakeForge forge;
  forge.AddComments(100);  // exactly one full page: the bot asks for a second, empty one
  std::vector<std::string> args = {"--base", "main~1",  "--head",         "main",
                                   "--post", "gitcode", "--gitcode-repo", "acme/kernels",
                                   "--pr",   "3",       "--api-url",      forge.url() + "/"};
  CliRun first = Ci(repo.path(), args, {std::string("GITCODE_TOKEN=") + kToken});
  args.insert(args.end(), {"--bot-login", "cannbot-bot"});  // the fake's author of posted comments
  CliRun second = Ci(repo.path(), args, {std::string("GITCODE_TOKEN=") + kToken});
  EXPECT_EQ(first.exit_code, 1) << first.output;
  EXPECT_EQ(second.exit_code, 1) << second.output;
  EXPECT_EQ(BotComments(forge), 1);
  for (const auto& r : forge.requests()) {
    EXPECT_TRUE(r.target.rfind("/repos/acme/kernels/pulls/", 0) == 0) << r.target;
    EXPECT_EQ(r.private_token, kToken);
  }
  bool page_two = false;
  for (const auto& r : forge.requests()) page_two |= Contains(r.target, "page=2");
  EXPECT_TRUE(page_two);
  for (const CliRun& run : {first, second}) EXPECT_FALSE(Contains(run.output, kToken));
}

TEST(CiCliTest, BadInputIsAClearErrorWithExitTwo) {
  TempDir plain = std::move(TempDir::Create("cannbot-ci-plain")).value();
  CliRun not_repo = Ci(plain.path(), {"--base", "main~1", "--head", "main"});
  EXPECT_EQ(not_repo.exit_code, 2);
  EXPECT_TRUE(Contains(not_repo.output, "is not a git repository")) << not_repo.output;

  TestRepo repo;
  BaseCommit(repo);
  CliRun unknown = Ci(repo.path(), {"--base", "main~5", "--head", "main"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_TRUE(Contains(unknown.output, "unknown revision 'main~5'")) << unknown.output;
  CliRun dash = Ci(repo.path(), {"--base=--output=x", "--head", "main"});
  EXPECT_EQ(dash.exit_code, 2);

  repo.Git({"rm", "-q", ".cannbot.toml"});
  repo.Commit("drop the config");
  CliRun no_config = Ci(repo.path(), {"--base", "main~1", "--head", "main"});
  EXPECT_EQ(no_config.exit_code, 2);
  EXPECT_TRUE(Contains(no_config.output, "no .cannbot.toml or .cannbot.json")) << no_config.output;
}

TEST(CiCliTest, AChangeWithoutKernelsWarnsAboutDeadGlobsAndPostsNothingNew) {
  TestRepo repo;
  BaseCommit(repo);
  repo.Write("README.md", "kernels, documented\n");
  repo.Commit("docs");
  FakeForge forge;
  std::vector<std::string> args = {"--base", "main~1", "--head", "main"};
  for (const std::string& f : PostFlags(forge)) args.push_back(f);
  CliRun run = Ci(repo.path(), args, {std::string("GITHUB_TOKEN=") + kToken});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_TRUE(Contains(run.output,
                       "warning: kernels[3]: glob 'ops/gelu/**/*.cpp' (op gelu) matches no file"))
      << run.output;
  EXPECT_TRUE(Contains(run.output, "nothing posted")) << run.output;
  EXPECT_TRUE(forge.comments().empty());
}

}  // namespace
}  // namespace cannbot

namespace cannbot {
namespace {

// An operator repository that carries its own op spec (ops_dir) next to its kernels: the
// bot reads the spec as of head and sends it with the kernel's job, so a local run and a
// daemon that has never seen the op judge the kernel alike.
TEST(CiCliTest, ARepositorysOwnOpSpecIsUsedHereAndThroughADaemon) {
  TestRepo repo;
  repo.Write(".cannbot.toml",
             "ops_dir = \"specs\"\n[thresholds]\ntime_budget_seconds = 60\nmax_variants = 2\n"
             "[[kernels]]\nglob = \"kernels/*.cpp\"\nop = \"add_broadcast\"\n");
  repo.Copy("specs/add_broadcast.toml", testing::Fixture("user_ops/add_broadcast.toml"));
  repo.Copy("specs/add_broadcast_ref.cpp", testing::Fixture("user_ops/add_broadcast_ref.cpp"));
  repo.Copy("kernels/add_broadcast.cpp", testing::Fixture("user_ops/kernels/add_broadcast_naive.cpp"));
  repo.Commit("base");
  repo.Copy("kernels/add_broadcast.cpp", testing::Fixture("user_ops/kernels/add_broadcast_wrong.cpp"));
  repo.Commit("index the bias by row");

  CliRun local = Ci(repo.path(), {"--base", "main~1", "--head", "main", "--dry-run"});
  EXPECT_EQ(local.exit_code, 1) << local.output;
  EXPECT_TRUE(Contains(local.output, "### `kernels/add_broadcast.cpp` · op `add_broadcast` · "
                                     "**this change breaks numeric equivalence**"))
      << local.output;
  EXPECT_TRUE(Contains(local.output, "first at index")) << local.output;

  testing::Daemon daemon;  // knows only the built-in ops
  ASSERT_TRUE(daemon.Start());
  CliRun remote = Ci(repo.path(), {"--base", "main~1", "--head", "main", "--dry-run", "--server",
                                   daemon.url()});
  EXPECT_EQ(remote.exit_code, 1) << remote.output << daemon.Log();
  EXPECT_TRUE(Contains(remote.output, "**this change breaks numeric equivalence**"))
      << remote.output;
}

TEST(CiCliTest, ABadSpecInTheRepositoryNamesItsFileAndLine) {
  TestRepo repo;
  repo.Write(".cannbot.toml",
             "ops_dir = \"specs\"\n[[kernels]]\nglob = \"kernels/*.cpp\"\nop = \"k\"\n");
  repo.Write("specs/k.toml", "name = \"k\"\nsummary = \"s\"\nflops = \"n\"\nreference = \"baseline\"\n"
                             "params = [ { name = \"x\", kind = \"input\", dtype = \"half\", "
                             "extent = \"m\" }, { name = \"y\", kind = \"output\", dtype = \"half\", "
                             "extent = \"n\" }, { name = \"n\", kind = \"size\" } ]\n");
  repo.Write("kernels/k.cpp", "// k\n");
  repo.Commit("base");
  repo.Write("kernels/k.cpp", "// k, changed\n");
  repo.Commit("head");
  CliRun run = Ci(repo.path(), {"--base", "main~1", "--head", "main", "--dry-run"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_TRUE(Contains(run.output, "specs/k.toml")) << run.output;
  EXPECT_TRUE(Contains(run.output, "'m', which is not a size parameter")) << run.output;
}

}  // namespace
}  // namespace cannbot
