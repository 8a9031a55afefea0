// `cannbot suggest` end to end against a scripted OpenAI-compatible server: the LLM is an
// untrusted generator inside a generate -> validate -> repair loop.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"
#include "integration/fake_llm_server.h"
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
