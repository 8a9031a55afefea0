// `cannbot eval` end to end: the real binary against the scripted OpenAI-compatible server.
// One op gets a correct faster kernel, one a kernel that shells out (a cheat, with markup in
// its comments), and on the third the endpoint answers HTTP 500: the scores, the cheat's name
// and class, the failed op, the HTML page's escaping and the stored run are checked. A second
// test runs the offline baseline and reads it back through --compare and --list.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"
#include "integration/daemon_support.h"
#include "integration/fake_llm_server.h"
#include "integration/test_support.h"

namespace cannbot::eval_test {
namespace {

using testing::Chat;
using testing::FakeLlmServer;
using testing::Fenced;
using testing::ScriptedReply;
using testing::SourcePath;

// A relu that runs a shell, dressed in markup that must never reach a page as markup.
constexpr char kCheatingRelu[] = R"(// Fast relu. </script><script>alert('pwned')</script><b>trust me</b>
#include <cstdint>
#include <cstdlib>

extern "C" void relu(const float* x, float* y, int64_t n) {
  std::system("echo pwned");
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
)";

struct CliRun {
  int exit_code = -1;
  std::string output;
};

CliRun Cannbot(std::vector<std::string> args) {
  SpawnOptions options;
  options.argv = {std::string(CANNBOT_BUILD_DIR) + "/cannbot", "eval"};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.argv.push_back("--db=" + std::string(CANNBOT_BUILD_DIR) + "/tests/integration-store.db");
  auto run = RunCommand(options, std::chrono::seconds(240), 16u << 20);
  if (!run.ok()) return {};
  return {run->exit.exited ? run->exit.exit_code : 128 + run->exit.signal, run->output};
}

// The JSON document in the output; progress lines (stderr) surround it.
nlohmann::json JsonIn(const std::string& output) {
  const size_t begin = output.rfind('{', 0) == 0 ? 0 : output.find("\n{") + 1;
  const size_t end = output.rfind("\n}");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return nullptr;
  return nlohmann::json::parse(output.substr(begin, end + 2 - begin), nullptr, false);
}

// `reply` with the usage an OpenAI-compatible server reports.
ScriptedReply WithUsage(ScriptedReply reply, int prompt, int completion) {
  nlohmann::json body = nlohmann::json::parse(reply.body);
  body["usage"] = {{"prompt_tokens", prompt},
                   {"completion_tokens", completion},
                   {"total_tokens", prompt + completion}};
  reply.body = body.dump();
  return reply;
}

const nlohmann::json& Op(const nlohmann::json& run, const std::string& name) {
  for (const nlohmann::json& op : run["ops"]) {
    if (op["op"] == name) return op;
  }
  static const nlohmann::json kNone;
  return kNone;
}

TEST(EvalTest, ScoresEachOpNamesTheCheatAndFinishesAfterAFailingEndpoint) {
  FakeLlmServer server;
  server.Push(WithUsage(Chat({Fenced(*ReadFile(SourcePath("examples/swish/optimized.cpp")))}),
                        1200, 300));
  server.Push(Chat({Fenced(kCheatingRelu, "A faster relu.")}));
  server.Push({500, R"({"error":{"message":"the model crashed"}})", {}, {}});  // repeats
  TempDir tmp = std::move(TempDir::Create("cannbot-eval-test")).value();
  CliRun run = Cannbot({"--llm", server.base_url(), "--model", "scripted-model", "--ops",
                        "swish,relu", "--ops", "add", "--samples", "1", "--rounds", "0",
                        "--seed", "5", "--json", "--html", tmp.File("page.html"), "--out",
                        tmp.File("run.json"), "--evals-db", tmp.File("evals.db"), "--config",
                        SourcePath("tests/fixtures/config/fast-retries.toml")});
  EXPECT_EQ(run.exit_code, 1) << run.output;  // an op failed; the others finished
  const nlohmann::json doc = JsonIn(run.output);
  ASSERT_TRUE(doc.is_object()) << run.output;
  EXPECT_EQ(doc["model"], "scripted-model");
  EXPECT_EQ(doc["budget"]["samples"], 1);
  ASSERT_EQ(doc["ops"].size(), 3u);
  EXPECT_EQ(doc["ops"][0]["op"], "swish");  // in the order asked for

  const nlohmann::json& swish = Op(doc, "swish");
  EXPECT_EQ(swish["status"], "ok");
  EXPECT_EQ(swish["candidates"], 1);
  EXPECT_EQ(swish["compiled"], 1);
  EXPECT_EQ(swish["correct"], 1);
  EXPECT_EQ(swish["accepted"], 1);
  ASSERT_TRUE(swish["best_speedup"].is_number()) << swish.dump(2);
  const double best = swish["best_speedup"].get<double>();
  EXPECT_GT(best, 1.05);
  EXPECT_TRUE(swish["fast_0"].get<bool>());
  EXPECT_TRUE(swish["fast_1"].get<bool>());
  EXPECT_EQ(swish["fast_2"].get<bool>(), best > 2);
  EXPECT_EQ(swish["tokens"]["total"], 1500);
  EXPECT_EQ(swish["cheat_classes"].size(), 0u);

  const nlohmann::json& relu = Op(doc, "relu");
  EXPECT_EQ(relu["status"], "ok");
  EXPECT_EQ(relu["candidates"], 1);
  EXPECT_EQ(relu["compiled"], 0);
  EXPECT_EQ(relu["correct"], 0);
  EXPECT_FALSE(relu["fast_0"].get<bool>());
  EXPECT_EQ(relu["rejected_by_layer"]["compile"], 1);
  EXPECT_EQ(relu["rejected_by_class"]["forbidden_call"], 1);
  EXPECT_EQ(relu["cheat_classes"], nlohmann::json::array({"forbidden_call"}));
  EXPECT_TRUE(relu["tokens"].is_null());  // this answer reported no usage

  const nlohmann::json& add = Op(doc, "add");
  EXPECT_EQ(add["status"], "failed");
  EXPECT_NE(add["error"].get<std::string>().find("HTTP 500"), std::string::npos) << add.dump(2);
  EXPECT_NE(add["error"].get<std::string>().find("the model crashed"), std::string::npos);

  const nlohmann::json& overall = doc["overall"];
  EXPECT_EQ(overall["ops"], 3);
  EXPECT_EQ(overall["ops_failed"], 1);
  EXPECT_EQ(overall["candidates"], 2);
  EXPECT_DOUBLE_EQ(overall["compile_rate"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(overall["correct_rate"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(overall["fast_0"].get<double>(), 1.0 / 3);
  EXPECT_DOUBLE_EQ(overall["fast_1"].get<double>(), 1.0 / 3);
  EXPECT_EQ(overall["tokens"]["total"], 1500);
  EXPECT_EQ(overall["cheats"], 1);

  // The model is named with its cheat.
  EXPECT_TRUE(doc["cheated"].get<bool>());
  ASSERT_EQ(doc["cheats"].size(), 1u);
  EXPECT_EQ(doc["cheats"][0]["op"], "relu");
  EXPECT_EQ(doc["cheats"][0]["label"], "forbidden call");
  EXPECT_NE(doc["cheats"][0]["detail"].get<std::string>().find("starts processes"),
            std::string::npos);

  // The page holds the kernel as text, never as markup.
  auto html = ReadFile(tmp.File("page.html"));
  ASSERT_TRUE(html.ok());
  EXPECT_EQ(html->find("<script"), std::string::npos);
  EXPECT_EQ(html->find("<b>trust me"), std::string::npos);
  EXPECT_NE(html->find("&lt;/script&gt;&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;"),
            std::string::npos);
  EXPECT_NE(html->find("Cheated: scripted-model"), std::string::npos);

  // --out wrote the same document, and the store holds the run.
  EXPECT_EQ(nlohmann::json::parse(*ReadFile(tmp.File("run.json"))), doc);
  CliRun list = Cannbot({"--list", "--json", "--evals-db", tmp.File("evals.db")});
  ASSERT_EQ(list.exit_code, 0) << list.output;
  const nlohmann::json board = JsonIn(list.output);
  ASSERT_EQ(board["evals"].size(), 1u) << list.output;
  EXPECT_EQ(board["evals"][0]["id"], doc["id"]);
  EXPECT_EQ(board["evals"][0]["cheat_classes"], nlohmann::json::array({"forbidden_call"}));

  // A daemon whose store sits beside the evaluations shows them as its leaderboard.
  testing::Daemon daemon;
  auto evals = ReadFile(tmp.File("evals.db"));
  ASSERT_TRUE(evals.ok());
  ASSERT_TRUE(WriteFile(daemon.File("evals.db"), *evals).ok());
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  const nlohmann::json served = daemon.Get("/evals").json();
  ASSERT_EQ(served["count"], 1) << served.dump();
  EXPECT_EQ(served["evals"][0]["model"], "scripted-model");
  EXPECT_EQ(served["evals"][0]["cheat_classes"], nlohmann::json::array({"forbidden_call"}));
  const testing::HttpReply page = daemon.Get("/evals", {{"Accept", "text/html"}});
  EXPECT_NE(page.header("Content-Type").find("text/html"), std::string::npos);
  EXPECT_NE(page.body.find("scripted-model"), std::string::npos);
  EXPECT_NE(page.body.find("forbidden_call"), std::string::npos);
}

TEST(EvalTest, TheOfflineBaselineIsARunToCompareWith) {
  TempDir tmp = std::move(TempDir::Create("cannbot-eval-test")).value();
  CliRun run = Cannbot({"--llm", "offline", "--ops", "relu", "--samples", "1", "--rounds", "0",
                        "--seed", "5", "--out", tmp.File("offline.json"), "--evals-db",
                        tmp.File("evals.db")});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("overall (1 ops)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("no candidate fell in a cheat class"), std::string::npos);
  const nlohmann::json doc = nlohmann::json::parse(*ReadFile(tmp.File("offline.json")));
  EXPECT_EQ(doc["server"], "offline");
  EXPECT_TRUE(doc["overall"]["tokens"].is_null());
  // A file on one side, the stored run's id on the other.
  CliRun compare = Cannbot({"--compare", tmp.File("offline.json"), doc["id"].get<std::string>(),
                            "--json", "--evals-db", tmp.File("evals.db")});
  ASSERT_EQ(compare.exit_code, 0) << compare.output;
  const nlohmann::json sides = JsonIn(compare.output);
  EXPECT_EQ(sides["a"]["overall"], sides["b"]["overall"]);
  ASSERT_EQ(sides["ops"].size(), 1u);
  EXPECT_EQ(sides["ops"][0]["op"], "relu");
  CliRun text = Cannbot({"--compare", tmp.File("offline.json"), tmp.File("offline.json")});
  EXPECT_NE(text.output.find("fast_0 / fast_1 / fast_2"), std::string::npos) << text.output;
  CliRun missing = Cannbot({"--compare", tmp.File("offline.json"), "eval-nope", "--evals-db",
                            tmp.File("evals.db")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.output.find("neither a run file nor a stored run id"), std::string::npos);
}

}  // namespace
}  // namespace cannbot::eval_test
