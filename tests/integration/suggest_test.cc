// `cannbot suggest` end to end against a scripted OpenAI-compatible server (and through a
// daemon on loopback): the LLM is an untrusted generator inside a generate -> validate ->
// repair loop.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"
#include "integration/daemon_support.h"
#include "integration/fake_llm_server.h"
#include "integration/package_support.h"
#include "integration/test_support.h"

namespace cannbot {
namespace {

using testing::Chat;
using testing::FakeLlmServer;
using testing::Fenced;
using testing::SourcePath;

struct SuggestRun {
  int exit_code = -1;
  std::string output;
};

SuggestRun Suggest(std::vector<std::string> args) {
  SpawnOptions options;
  options.argv = {std::string(CANNBOT_BUILD_DIR) + "/cannbot", "suggest"};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.argv.push_back("--db=" + std::string(CANNBOT_BUILD_DIR) + "/tests/integration-store.db");
  auto run = RunCommand(options, std::chrono::seconds(240), 16u << 20);
  if (!run.ok()) return {};
  return {run->exit.exited ? run->exit.exit_code : 128 + run->exit.signal, run->output};
}

// The JSON document in the output; progress lines (stderr) surround it.
nlohmann::json JsonOf(const std::string& output) {
  const size_t begin = output.rfind('{', 0) == 0 ? 0 : output.find("\n{") + 1;
  const size_t end = output.rfind("\n}");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return nullptr;
  return nlohmann::json::parse(output.substr(begin, end + 2 - begin), nullptr, false);
}

std::string Read(const std::string& path) { return *ReadFile(path); }

TEST(SuggestTest, BrokenKernelIsRepairedAfterOneRoundAndAccepted) {
  FakeLlmServer server;
  // Round 0: a kernel that does not compile. Round 1 (the repair): the fast, correct one.
  server.Push(Chat({Fenced("#include <cstdint>\nextern \"C\" void swish(const float* x, float* y, "
                           "int64_t n) {\n  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * sigmoid(x[i]);\n}",
                           "Here is a faster swish using a sigmoid helper.")}));
  server.Push(Chat({Fenced(Read(SourcePath("examples/swish/optimized.cpp")),
                           "Fixed: replaced the missing sigmoid with an AVX-512 exp.")}));
  TempDir tmp = std::move(TempDir::Create("cannbot-suggest-test")).value();
  SuggestRun run = Suggest({SourcePath("examples/swish/naive.cpp"), "--op", "swish", "--llm",
                     server.base_url(), "--model", "m", "--samples", "1", "--rounds", "1",
                     "--json", "--out", tmp.File("accepted.cpp"), "--seed", "5"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  nlohmann::json report = JsonOf(run.output);
  ASSERT_TRUE(report.is_object()) << run.output;
  EXPECT_TRUE(report["found"].get<bool>());
  ASSERT_EQ(report["attempts"].size(), 2u) << report["attempts"].dump(2);
  EXPECT_EQ(report["attempts"][0]["outcome"], "rejected");
  EXPECT_EQ(report["attempts"][0]["verdict"]["layer"], "compile");
  EXPECT_EQ(report["attempts"][1]["outcome"], "accepted");
  EXPECT_EQ(report["attempts"][1]["round"], 1);
  EXPECT_EQ(report["best_attempt"], 1);
  EXPECT_GT(report["before_after"]["speedup"].get<double>(), 2.0);
  EXPECT_NE(report["diff"].get<std::string>().find("+++ suggested/swish.cpp"), std::string::npos);
  EXPECT_EQ(*ReadFile(tmp.File("accepted.cpp")), report["kernel"].get<std::string>());

  // The repair prompt carried the compiler's own error line back to the model.
  std::vector<std::string> requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  const std::string repair = nlohmann::json::parse(requests[1])["messages"][1]["content"];
  EXPECT_NE(repair.find("was rejected"), std::string::npos);
  EXPECT_NE(repair.find("'sigmoid' was not declared"), std::string::npos) << repair;
  // And the first prompt carried the contract and the kernel.
  const std::string first = nlohmann::json::parse(requests[0])["messages"][1]["content"];
  EXPECT_NE(first.find("void swish(const float* x, float* y, int64_t n)"), std::string::npos);
  EXPECT_NE(first.find("x[i] / (1.0f + std::exp(-x[i]))"), std::string::npos);
}

// With `[skills] model_picks`, the model chooses among the best-scored skills by name and
// description; only its pick reaches the optimisation prompt, and the report says so.
TEST(SuggestTest, TheModelPicksAmongTheTopSkillsAndThePickIsRecorded) {
  FakeLlmServer server;
  server.Push(Chat({"PICK: fast-math-approximations\nThe expf call is what blocks the loop."}));
  server.Push(Chat({Fenced(Read(SourcePath("examples/swish/optimized.cpp")))}));
  TempDir tmp = std::move(TempDir::Create("cannbot-suggest-test")).value();
  ASSERT_TRUE(WriteFile(tmp.File("cannbot.toml"), "[skills]\nmodel_picks = true\n").ok());
  // A profile whose diagnosis gives several skills a reason (memory, vectorisation, cache).
  SuggestRun run = Suggest({SourcePath("examples/swish/naive.cpp"), "--op", "swish", "--llm",
                            server.base_url(), "--model", "m", "--samples", "1", "--rounds", "0",
                            "--profile", SourcePath("tests/fixtures/profiles/json/depthwise_brief.json"),
                            "--config", tmp.File("cannbot.toml"), "--json", "--seed", "5"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::vector<std::string> requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_NE(requests[0].find("PICK:"), std::string::npos) << requests[0];
  EXPECT_NE(requests[0].find("memory-tiling-double-buffering"), std::string::npos);
  EXPECT_NE(requests[0].find("vectorize-simd"), std::string::npos);
  // The rules rank memory-tiling-double-buffering first; the model's pick replaces them.
  EXPECT_NE(requests[1].find("### Skill: fast-math-approximations"), std::string::npos);
  EXPECT_EQ(requests[1].find("### Skill: memory-tiling-double-buffering"), std::string::npos);
  nlohmann::json report = JsonOf(run.output);
  ASSERT_TRUE(report.is_object()) << run.output;
  EXPECT_NE(report.dump().find("skills picked by the model: fast-math-approximations"),
            std::string::npos) << report.dump(2);
}

TEST(SuggestTest, WrongNumbersAreRepairedWithTheMismatchReport) {
  FakeLlmServer server;
  server.Push(Chat({Fenced(Read(SourcePath("tests/fixtures/kernels/swish/wrong_formula.cpp")))}));
  server.Push(Chat({"<think>the sign was wrong</think>\n" +
                    Fenced(Read(SourcePath("examples/swish/optimized.cpp")))}));
  SuggestRun run = Suggest({SourcePath("examples/swish/naive.cpp"), "--op", "swish", "--llm",
                     server.base_url(), "--model", "m", "--samples", "1", "--rounds", "1",
                     "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::vector<std::string> requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  const std::string repair = nlohmann::json::parse(requests[1])["messages"][1]["content"];
  EXPECT_NE(repair.find("Rejected at the numeric layer"), std::string::npos) << repair;
  EXPECT_NE(repair.find("expected"), std::string::npos);
}

TEST(SuggestTest, GarbageAnswersEndWithNoKernelFound) {
  FakeLlmServer server;
  server.Push(Chat({"I would love to help, but I cannot write code today."}));
  SuggestRun run = Suggest({SourcePath("examples/swish/naive.cpp"), "--op", "swish", "--llm",
                     server.base_url(), "--model", "m", "--samples", "1", "--rounds", "1",
                     "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.output;
  nlohmann::json report = JsonOf(run.output);
  ASSERT_TRUE(report.is_object()) << run.output;
  EXPECT_FALSE(report["found"].get<bool>());
  ASSERT_GE(report["attempts"].size(), 1u);
  EXPECT_EQ(report["attempts"][0]["outcome"], "no code");
}

TEST(SuggestTest, ServerDownIsAClearError) {
  SuggestRun run = Suggest({SourcePath("examples/swish/naive.cpp"), "--op", "swish", "--llm",
                     "http://127.0.0.1:9/v1", "--model", "m", "--samples", "1", "--rounds", "0",
                     "--config", SourcePath("tests/fixtures/config/fast-retries.toml")});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("could not be reached"), std::string::npos) << run.output;
}

TEST(SuggestTest, BrokenInputKernelIsReportedNotOptimised) {
  FakeLlmServer server;
  SuggestRun run = Suggest({SourcePath("tests/fixtures/kernels/swish/wrong_formula.cpp"), "--op",
                     "swish", "--llm", server.base_url(), "--model", "m", "--json"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  nlohmann::json report = JsonOf(run.output);
  EXPECT_FALSE(report["kernel_check"]["ok"].get<bool>());
  EXPECT_EQ(report["kernel_check"]["layer"], "numeric");
  EXPECT_TRUE(server.requests().empty());  // no model was asked to optimise a wrong kernel
}

// What may differ between two runs of the same job: wall-clock durations, whether a compile
// came from the cache (a cached compile has no command line), and compiler logs.
void DropRunDependent(nlohmann::json* j) {
  if (j->is_object()) {
    for (const char* key : {"seconds", "cached", "log", "command"}) {
      j->erase(key);
    }
    for (auto& [key, value] : j->items()) DropRunDependent(&value);
  } else if (j->is_array()) {
    for (nlohmann::json& item : *j) DropRunDependent(&item);
  }
}

// `cannbot suggest --server URL` is the same optimisation as `cannbot suggest`: the CLI sends
// the same JobSpec to a real daemon on loopback and reads the same report back. Checked on the
// ascendc target (whose perf layer is a deterministic cost model, so two runs can be compared
// figure for figure) with the same scripted model answering both runs.
TEST(SuggestRemoteTest, AscendcReportIsTheSameThroughADaemon) {
  testing::FakeLlmServer llm;
  const testing::ScriptedReply answer = testing::Chat({testing::Fenced(
      *ReadFile(testing::SourcePath("examples/ascendc/add_fast.cpp")),
      "Double-buffered three-stage pipeline across all vector cores.")});
  llm.Push(answer);  // the local run
  llm.Push(answer);  // the daemon's run
  testing::Daemon daemon(testing::Daemon::Options{
      {}, {}, "[llm]\nurl = \"" + llm.base_url() + "\"\nmodel = \"m\"\n"});
  ASSERT_TRUE(daemon.Start()) << daemon.Log();

  const std::vector<std::string> args = {
      testing::SourcePath("examples/ascendc/add_slow.cpp"), "--op", "add", "--target", "ascendc",
      "--llm", llm.base_url(), "--model", "m", "--samples", "1", "--rounds", "0",
      "--seed", "7", "--json"};
  SuggestRun local = Suggest(args);
  std::vector<std::string> remote_args = args;
  remote_args.insert(remote_args.end(), {"--server", daemon.url()});
  SuggestRun remote = Suggest(remote_args);

  ASSERT_EQ(local.exit_code, 0) << local.output;
  ASSERT_EQ(remote.exit_code, 0) << remote.output << daemon.Log();
  nlohmann::json local_report = JsonOf(local.output);
  nlohmann::json remote_report = JsonOf(remote.output);
  ASSERT_TRUE(local_report.is_object()) << local.output;
  ASSERT_TRUE(remote_report.is_object()) << remote.output;
  // The daemon really ran the ascendc target (its perf layer estimates), not the cpu one.
  EXPECT_TRUE(remote_report["attempts"][0]["verdict"]["perf"]["estimated"].get<bool>());
  EXPECT_EQ(remote_report["attempts"][0]["verdict"]["target"], "ascendc");
  DropRunDependent(&local_report);
  DropRunDependent(&remote_report);
  EXPECT_EQ(local_report, remote_report)
      << "what the remote report changes:\n" << nlohmann::json::diff(local_report, remote_report).dump(1);
  EXPECT_EQ(llm.requests().size(), 2u);
  EXPECT_TRUE(daemon.Terminate().has_value());
}

// `suggest --package DIR`: the same job as a kernel's, so the same report, and --out DIR gets
// the answer's changed files; --package with a kernel FILE or another target is refused.
TEST(SuggestTest, APackageGetsAValidatedAnswerWrittenUnderOut) {
  const ascendc::PackageFiles slow = testing::FloatOnlyExamplePackage("add_custom_slow");
  const ascendc::PackageFiles fast = testing::FloatOnlyExamplePackage("add_custom_fast");
  ASSERT_FALSE(slow.empty() || fast.empty());
  TempDir tmp = std::move(TempDir::Create("cannbot-suggest-package")).value();
  ASSERT_TRUE(WriteFilesUnder(tmp.File("add_custom"), slow).ok());
  FakeLlmServer server;
  server.Push(Chat({testing::KernelFilesAnswer(fast)}));
  SuggestRun run = Suggest({"--package", tmp.File("add_custom"), "--target", "ascendc", "--op",
                            "add", "--llm", server.base_url(), "--model", "m", "--samples", "1",
                            "--rounds", "0", "--json", "--out", tmp.File("answer"), "--seed", "5"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  nlohmann::json report = JsonOf(run.output);
  ASSERT_TRUE(report.is_object()) << run.output;
  EXPECT_TRUE(report["found"].get<bool>());
  EXPECT_EQ(report["original"], "add_custom");
  std::string fast_kernel;
  for (const auto& [path, text] : fast) {
    if (path == "op_kernel/add_custom.cpp") fast_kernel = text;
  }
  auto written = ReadFile(tmp.File("answer/op_kernel/add_custom.cpp"));
  ASSERT_TRUE(written.ok()) << run.output;
  EXPECT_EQ(*written, fast_kernel);
  EXPECT_FALSE(ReadFile(tmp.File("answer/op_host/add_custom.cpp")).ok());  // not changed

  SuggestRun wrong = Suggest({"--package", tmp.File("add_custom"), "--op", "add", "--llm",
                              server.base_url(), "--model", "m"});
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_NE(wrong.output.find("--target ascendc"), std::string::npos) << wrong.output;
}

// A kernel-launch sample given as FILE: the model's changed host program (eight cores instead
// of one) is validated against the sample's own launch and written under --out.
TEST(SuggestTest, ASampleDirectoryGetsAValidatedAnswerWrittenUnderOut) {
  const std::string slow = testing::SourcePath("examples/ascendc/samples/add_custom_single_core");
  auto eight_cores = ReadFile(testing::SourcePath("examples/ascendc/samples/add_custom/main.cpp"));
  ASSERT_TRUE(eight_cores.ok());
  FakeLlmServer server;
  server.Push(Chat({"File: main.cpp\n```cpp\n" + *eight_cores + "```\n"}));
  TempDir tmp = std::move(TempDir::Create("cannbot-suggest-sample")).value();
  SuggestRun run = Suggest({slow, "--target", "ascendc", "--op", "add", "--llm",
                            server.base_url(), "--model", "m", "--samples", "1", "--rounds", "0",
                            "--json", "--out", tmp.File("answer"), "--seed", "5"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  nlohmann::json report = JsonOf(run.output);
  ASSERT_TRUE(report.is_object()) << run.output;
  EXPECT_TRUE(report["found"].get<bool>());
  auto written = ReadFile(tmp.File("answer/main.cpp"));
  ASSERT_TRUE(written.ok()) << run.output;
  EXPECT_EQ(*written, *eight_cores);
  EXPECT_FALSE(ReadFile(tmp.File("answer/add_custom.cpp")).ok());  // not changed
}

TEST(SuggestRemoteTest, AnUnknownTargetIsRefusedAtEveryEdge) {
  const std::string kernel = testing::SourcePath("examples/relu/naive.cpp");
  SuggestRun cli = Suggest({kernel, "--op", "relu", "--target", "cuda"});
  EXPECT_EQ(cli.exit_code, 2) << cli.output;
  EXPECT_NE(cli.output.find("'--target' must be one of: cpu, ascendc (got \"cuda\")"),
            std::string::npos)
      << cli.output;
  testing::Daemon daemon;
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  nlohmann::json body = {{"op", "relu"}, {"source", "x"}, {"target", "cuda"}};
  testing::HttpReply reply = daemon.Post("/optimize", body.dump());
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(reply.body.find("field 'target' must be one of: cpu, ascendc"), std::string::npos)
      << reply.body;
  EXPECT_TRUE(daemon.Terminate().has_value());
}

}  // namespace
}  // namespace cannbot

namespace cannbot {
namespace {

TEST(SuggestAscendcTest, AscendcKernelIsOptimisedThroughTheScriptedLlm) {
  testing::FakeLlmServer server;
  server.Push(testing::Chat({testing::Fenced(
      *ReadFile(testing::SourcePath("examples/ascendc/add_fast.cpp")),
      "Double-buffered three-stage pipeline across all vector cores.")}));
  SuggestRun run = Suggest({testing::SourcePath("examples/ascendc/add_slow.cpp"), "--op", "add",
                        "--target", "ascendc", "--llm", server.base_url(), "--model", "m",
                        "--samples", "1", "--rounds", "0", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  nlohmann::json report = JsonOf(run.output);
  ASSERT_TRUE(report.is_object()) << run.output;
  EXPECT_TRUE(report["found"].get<bool>());
  EXPECT_TRUE(report["attempts"][0]["verdict"]["perf"]["estimated"].get<bool>());
  // The prompt carried the ascendc contract and the device, not the CPU's.
  const std::string prompt =
      nlohmann::json::parse(server.requests()[0])["messages"][1]["content"];
  EXPECT_NE(prompt.find("add_kernel"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("add_tiling"), std::string::npos);
  const std::string system =
      nlohmann::json::parse(server.requests()[0])["messages"][0]["content"];
  EXPECT_NE(system.find("Ascend"), std::string::npos) << system;
}

}  // namespace
}  // namespace cannbot

// Users' own ops (docs/op-spec.md) through `suggest`, offline and with an LLM, here and on a
// daemon that has never seen the op (the spec travels with the job).
namespace cannbot {
namespace {

std::string UserOps() { return SourcePath("tests/fixtures/user_ops"); }
std::string UserKernel(const std::string& name) {
  return UserOps() + "/kernels/" + name + ".cpp";
}

TEST(SuggestUserOpTest, AnFp16OpIsOptimisedThroughAnLlmHereAndOnADaemonThatNeverSawIt) {
  FakeLlmServer llm;
  const testing::ScriptedReply answer = Chat(
      {Fenced(Read(UserKernel("rms_norm_fast")), "Sixteen fp32 partial sums, one rsqrt per row.")});
  llm.Push(answer);  // the local run
  llm.Push(answer);  // the daemon's run
  // No ops_dirs: the daemon learns rms_norm_custom from the job.
  testing::Daemon daemon(testing::Daemon::Options{
      {}, {}, "[llm]\nurl = \"" + llm.base_url() + "\"\nmodel = \"m\"\n"});
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  const std::vector<std::string> args = {
      UserKernel("rms_norm_naive"), "--ops-dir", UserOps(), "--op", "rms_norm_custom", "--llm",
      llm.base_url(), "--model", "m", "--samples", "1", "--rounds", "0", "--seed", "11", "--json"};
  SuggestRun local = Suggest(args);
  std::vector<std::string> remote_args = args;
  remote_args.insert(remote_args.end(), {"--server", daemon.url()});
  SuggestRun remote = Suggest(remote_args);

  ASSERT_EQ(local.exit_code, 0) << local.output;
  ASSERT_EQ(remote.exit_code, 0) << remote.output << daemon.Log();
  nlohmann::json local_report = JsonOf(local.output);
  nlohmann::json remote_report = JsonOf(remote.output);
  ASSERT_TRUE(local_report.is_object()) << local.output;
  ASSERT_TRUE(remote_report.is_object()) << remote.output;
  EXPECT_TRUE(local_report["found"].get<bool>());
  const auto& verdict = remote_report["attempts"][0]["verdict"];
  EXPECT_EQ(verdict["verdict"], "accepted");
  EXPECT_NE(verdict["reference"].get<std::string>().find("rms_norm_ref.cpp (sandboxed)"),
            std::string::npos);
  EXPECT_EQ(local_report["attempts"][0]["verdict"]["verdict"], verdict["verdict"]);
  EXPECT_EQ(local_report["attempts"][0]["verdict"]["numeric"]["cases"].size(),
            verdict["numeric"]["cases"].size());
  // The prompt carried the spec: the fp16 signature, the dtypes and the CANN standard.
  ASSERT_EQ(llm.requests().size(), 2u);
  const std::string prompt =
      nlohmann::json::parse(llm.requests()[1])["messages"][1]["content"];
  EXPECT_NE(prompt.find("void rms_norm_custom(const half* x, const half* gamma, half* y"),
            std::string::npos) << prompt;
  EXPECT_NE(prompt.find("CANN standard"), std::string::npos);
  EXPECT_NE(prompt.find("`half` is _Float16"), std::string::npos);
  EXPECT_TRUE(daemon.Terminate().has_value());
}

TEST(SuggestUserOpTest, OfflineSuggestTriesTheFamilyRecipesOnAUsersOp) {
  SuggestRun run = Suggest({UserKernel("add_broadcast_naive"), "--ops-dir", UserOps(), "--op",
                            "add_broadcast", "--budget", "2", "--seed", "3", "--json"});
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.output;
  nlohmann::json report = JsonOf(run.output);
  ASSERT_TRUE(report.is_object()) << run.output;
  ASSERT_FALSE(report["attempts"].empty()) << run.output;
  EXPECT_NE(report["attempts"][0]["origin"].get<std::string>().find("compile-hints"),
            std::string::npos) << run.output;
  EXPECT_NE(report["attempts"][0]["verdict"]["layer"], "compile") << run.output;
}

TEST(SuggestUserOpTest, AnInlineSpecThatDoesNotParseIsRefusedByTheDaemon) {
  testing::Daemon daemon;
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  nlohmann::json body = {{"source", "x"},
                         {"op_spec", "name = \"k\"\nsummary = \"s\"\nunknown_key = 1\n"}};
  testing::HttpReply reply = daemon.Post("/optimize", body.dump());
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(reply.body.find("field 'op_spec'"), std::string::npos) << reply.body;
  EXPECT_NE(reply.body.find("unknown_key"), std::string::npos) << reply.body;
  // A well-formed spec named like a built-in op, without overrides = true.
  std::string clash = Read(UserOps() + "/add_broadcast.toml");
  clash.replace(clash.find("name = \"add_broadcast\""), 22, "name = \"relu\"");
  body = {{"source", "x"},
          {"op_spec", clash},
          {"op_reference", Read(UserOps() + "/add_broadcast_ref.cpp")}};
  reply = daemon.Post("/optimize", body.dump());
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(reply.body.find("op 'relu' is already defined by built-in"), std::string::npos)
      << reply.body;
  EXPECT_TRUE(daemon.Terminate().has_value());
}

TEST(SuggestUserOpTest, ABadSpecDirectoryIsRefusedNamingTheFileAndLine) {
  TempDir dir = std::move(TempDir::Create("cannbot-bad-specs")).value();
  ASSERT_TRUE(WriteFile(dir.File("broken.toml"),
                        "name = \"k\"\nsummary = \"s\"\nreference = \"baseline\"\nflops = \"n\"\n"
                        "params = [ { name = \"x\", kind = \"input\", dtype = \"fp8\", "
                        "extent = \"n\" } ]\n")
                  .ok());
  SuggestRun run = Suggest({UserKernel("add_broadcast_naive"), "--ops-dir", dir.path(), "--op",
                            "k"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("broken.toml:5: field 'params[0].dtype'"), std::string::npos)
      << run.output;
}

}  // namespace
}  // namespace cannbot
