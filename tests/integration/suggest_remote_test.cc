// `cannbot suggest --server URL` is the same optimisation as `cannbot suggest`: the CLI sends
// the same JobSpec to a real daemon on loopback and reads the same report back. Checked on the
// ascendc target (whose perf layer is a deterministic cost model, so two runs can be compared
// figure for figure) with the same scripted model answering both runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"
#include "integration/daemon_support.h"
#include "integration/fake_llm_server.h"
#include "integration/test_support.h"

namespace cannbot {
namespace {

using Json = nlohmann::json;

struct SuggestCliRun {
  int exit_code = -1;
  std::string output;
};

SuggestCliRun SuggestCli(std::vector<std::string> args) {
  SpawnOptions options;
  options.argv = {std::string(CANNBOT_BUILD_DIR) + "/cannbot", "suggest"};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.argv.push_back("--db=" + std::string(CANNBOT_BUILD_DIR) + "/tests/integration-store.db");
  options.extra_environment = {"CANNBOT_TOKEN="};
  auto run = RunCommand(options, std::chrono::seconds(240), 16u << 20);
  if (!run.ok()) return {};
  return {run->exit.exited ? run->exit.exit_code : 128 + run->exit.signal, run->output};
}

Json ReportJsonOf(const std::string& output) {
  const size_t begin = output.rfind('{', 0) == 0 ? 0 : output.find("\n{") + 1;
  const size_t end = output.rfind("\n}");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return nullptr;
  return Json::parse(output.substr(begin, end + 2 - begin), nullptr, false);
}

// What may differ between two runs of the same job: wall-clock durations, whether a compile
// came from the cache (a cached compile has no command line), and private work directories.
void DropRunDependent(Json* j) {
  if (j->is_object()) {
    for (const char* key : {"seconds", "cached", "log", "command", "shared_object_path"}) {
      j->erase(key);
    }
    for (auto& [key, value] : j->items()) DropRunDependent(&value);
  } else if (j->is_array()) {
    for (Json& item : *j) DropRunDependent(&item);
  }
}

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
  SuggestCliRun local = SuggestCli(args);
  std::vector<std::string> remote_args = args;
  remote_args.insert(remote_args.end(), {"--server", daemon.url()});
  SuggestCliRun remote = SuggestCli(remote_args);

  ASSERT_EQ(local.exit_code, 0) << local.output;
  ASSERT_EQ(remote.exit_code, 0) << remote.output << daemon.Log();
  Json local_report = ReportJsonOf(local.output);
  Json remote_report = ReportJsonOf(remote.output);
  ASSERT_TRUE(local_report.is_object()) << local.output;
  ASSERT_TRUE(remote_report.is_object()) << remote.output;
  // The daemon really ran the ascendc target (its perf layer estimates), not the cpu one.
  EXPECT_TRUE(remote_report["attempts"][0]["verdict"]["perf"]["estimated"].get<bool>());
  EXPECT_EQ(remote_report["attempts"][0]["verdict"]["target"], "ascendc");
  DropRunDependent(&local_report);
  DropRunDependent(&remote_report);
  EXPECT_EQ(local_report, remote_report)
      << "what the remote report changes:\n" << Json::diff(local_report, remote_report).dump(1);
  EXPECT_EQ(llm.requests().size(), 2u);
  EXPECT_TRUE(daemon.Terminate().has_value());
}

TEST(SuggestRemoteTest, AnUnknownTargetIsRefusedAtEveryEdge) {
  const std::string kernel = testing::SourcePath("examples/relu/naive.cpp");
  SuggestCliRun cli = SuggestCli({kernel, "--op", "relu", "--target", "cuda"});
  EXPECT_EQ(cli.exit_code, 2) << cli.output;
  EXPECT_NE(cli.output.find("'--target' must be one of: cpu, ascendc (got \"cuda\")"),
            std::string::npos)
      << cli.output;
  testing::Daemon daemon;
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  Json body = {{"op", "relu"}, {"source", "x"}, {"target", "cuda"}};
  testing::HttpReply reply = daemon.Post("/optimize", body.dump());
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(reply.body.find("field 'target' must be one of: cpu, ascendc"), std::string::npos)
      << reply.body;
  EXPECT_TRUE(daemon.Terminate().has_value());
}

}  // namespace
}  // namespace cannbot
