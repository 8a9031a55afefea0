// The daemon with an LLM: a job through the scripted OpenAI-compatible server, readiness that
// depends on reaching it, and the rule that a job may only name LLM servers the operator
// allowed.
#include <gtest/gtest.h>

#include <thread>

#include "cannbot/engine/job_spec.h"
#include "integration/daemon_support.h"
#include "integration/fake_llm_server.h"
#include "integration/package_support.h"

namespace cannbot {
namespace {

using testing::Chat;
using testing::Daemon;
using testing::FakeLlmServer;
using testing::Fenced;
using testing::HttpReply;
using testing::Json;

std::string LlmConfig(const std::string& url, const std::string& extra_server = "") {
  return "[llm]\nurl = \"" + url + "\"\nmodel = \"scripted\"\nretries = 0\n" +
         (extra_server.empty() ? "" : "[server]\n" + extra_server + "\n");
}

Json LlmJob() {
  return {{"op", "relu"},
          {"source", testing::KernelText("relu")},
          {"options", {{"samples", 1}, {"rounds", 0}, {"seed", 3}}}};
}

TEST(DaemonLlmTest, AJobAsksTheConfiguredServerAndTimesIt) {
  FakeLlmServer llm;
  llm.Push(Chat({Fenced("#include <cstdint>\nextern \"C\" void relu(const float* x, float* y, "
                        "int64_t n) { y[0] = missing_symbol; }",
                        "A faster relu.")}));
  FakeLlmServer other;
  Daemon daemon(Daemon::Options{
      {}, {}, LlmConfig(llm.base_url(), "llm_urls = [\"" + other.base_url() + "\"]")});
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  Json health = daemon.Get("/healthz").json();
  EXPECT_EQ(health["llm"], "reachable");

  HttpReply r = daemon.PostJson("/optimize?wait=true", LlmJob());
  ASSERT_EQ(r.status, 200) << r.body;
  Json job = r.json();
  EXPECT_EQ(job["status"], "succeeded") << job.dump(2);
  EXPECT_EQ(job["found"], false);
  ASSERT_EQ(job["attempts"].size(), 1u);
  EXPECT_EQ(job["attempts"][0]["layer"], "compile");
  EXPECT_NE(job["report"]["provider"].get<std::string>().find("scripted"), std::string::npos)
      << job["report"]["provider"];
  EXPECT_EQ(llm.requests().size(), 1u);
  const std::string metrics = daemon.Get("/metrics").body;
  EXPECT_NE(metrics.find("cannbot_llm_request_seconds_count 1"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("cannbot_attempts_total{outcome=\"rejected\",layer=\"compile\"} 1"),
            std::string::npos)
      << metrics;

  // Another server the operator listed is allowed; any other is refused before anything runs.
  Json allowed = LlmJob();
  allowed["options"]["llm"] = {{"url", other.base_url()}, {"model", "x"}};
  other.Push(Chat({Fenced("int nope(")}));
  HttpReply ok = daemon.PostJson("/optimize?wait=true", allowed);
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_EQ(other.requests().size(), 1u);
  Json refused = LlmJob();
  refused["options"]["llm"] = {{"url", "http://127.0.0.1:9/v1"}};
  HttpReply no = daemon.PostJson("/optimize", refused);
  EXPECT_EQ(no.status, 400) << no.body;
  EXPECT_EQ(no.error_code(), "invalid_argument");
  EXPECT_TRUE(daemon.Terminate().has_value());
}

TEST(DaemonLlmTest, AnUnreachableLlmMakesTheDaemonNotReadyAndFailsJobsCleanly) {
  Daemon daemon(Daemon::Options{{}, {}, LlmConfig("http://127.0.0.1:9/v1")});
  ASSERT_TRUE(daemon.Start(/*ready=*/false)) << daemon.Log();
  HttpReply health = daemon.Get("/healthz");
  EXPECT_EQ(health.status, 503) << health.body;
  Json h = health.json();
  EXPECT_EQ(h["ready"], false);
  EXPECT_EQ(h["store"], "open");
  EXPECT_EQ(h["error"]["code"], "not_ready");
  EXPECT_NE(h["llm"].get<std::string>().find("unreachable"), std::string::npos) << h.dump();
  // A job still runs (the loop reports the provider's failure); offline ones work.
  HttpReply failed = daemon.PostJson("/optimize?wait=true", LlmJob());
  ASSERT_EQ(failed.status, 200) << failed.body;
  EXPECT_EQ(failed.json()["status"], "failed");
  EXPECT_EQ(failed.json()["error"]["code"], "unavailable") << failed.body;
  EXPECT_TRUE(daemon.Terminate().has_value());
}

TEST(DaemonLlmTest, HeldConnectionsLeaveThreadsForShortRequests) {
  FakeLlmServer llm;
  testing::ScriptedReply slow = Chat({Fenced("int nope(")});
  slow.delay = std::chrono::milliseconds(2500);
  llm.Push(slow);
  // 6 HTTP threads: at most 2 connections held open, 4 kept for short requests.
  Daemon daemon(Daemon::Options{{}, {}, LlmConfig(llm.base_url(), "http_threads = 6")});
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  HttpReply submitted = daemon.PostJson("/optimize", LlmJob());
  ASSERT_EQ(submitted.status, 202) << submitted.body;
  const std::string id = submitted.json()["job_id"];
  std::vector<std::thread> followers;
  std::vector<size_t> seen(2);
  for (size_t i = 0; i < 2; ++i) {
    followers.emplace_back([&, i] { seen[i] = daemon.Events(id).size(); });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  HttpReply third = daemon.Get("/jobs/" + id + "/events");
  EXPECT_EQ(third.status, 429) << third.body;
  EXPECT_EQ(third.error_code(), "busy");
  HttpReply waiting = daemon.PostJson("/optimize?wait=true", LlmJob());
  EXPECT_EQ(waiting.status, 202) << waiting.body;  // accepted, but not held open
  EXPECT_EQ(daemon.Get("/healthz").status, 200);
  for (std::thread& t : followers) t.join();
  for (size_t n : seen) EXPECT_GE(n, 4u);  // each follower saw the job to its end
  EXPECT_EQ(daemon.Events(id).back().type, "finished");  // slots were given back
  EXPECT_TRUE(daemon.Terminate().has_value());
}

// A job that carries an Ascend C operator package: the model (scripted) answers the slow
// example package with the fast one's kernel; the daemon validates it in every dtype
// combination and reports it like a kernel job: accepted, with a diff of the package and a job
// page. A package job without a model is refused with the reason.
TEST(DaemonLlmTest, APackageJobComesBackAsAValidatedPackageDiff) {
  const ascendc::PackageFiles slow = testing::FloatOnlyExamplePackage("add_custom_slow");
  const ascendc::PackageFiles fast = testing::FloatOnlyExamplePackage("add_custom_fast");
  ASSERT_FALSE(slow.empty() || fast.empty());
  FakeLlmServer llm;
  llm.Push(Chat({testing::KernelFilesAnswer(fast)}));
  Daemon daemon(Daemon::Options{{}, {}, LlmConfig(llm.base_url())});
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  const Json job_body = {{"op", "add"},
                         {"name", "add_custom"},
                         {"package", engine::PackageJson(slow)},
                         {"options", {{"samples", 1}, {"rounds", 0}, {"seed", 7}}}};
  HttpReply r = daemon.PostJson("/optimize?wait=true", job_body);
  ASSERT_EQ(r.status, 200) << r.body;
  const Json job = r.json();
  ASSERT_EQ(job["status"], "succeeded") << job.dump(2);
  EXPECT_EQ(job["found"], true) << job["report"]["attempts"].dump(2);
  const Json& report = job["report"];
  EXPECT_EQ(report["kernel_check"]["ok"], true);
  EXPECT_NE(report["attempts"][0]["detail"].get<std::string>().find("accepted: an estimated"),
            std::string::npos);
  const std::string diff = report["diff"];
  EXPECT_NE(diff.find("+++ b/op_kernel/add_custom.cpp"), std::string::npos) << diff;
  EXPECT_EQ(diff.find("op_host"), std::string::npos) << diff;  // only what the answer changed
  EXPECT_NE(report["original_code"].get<std::string>().find("File: op_host/add_custom.cpp"),
            std::string::npos);
  ASSERT_EQ(llm.requests().size(), 1u);
  EXPECT_NE(llm.requests()[0].find("File: op_kernel/add_custom.cpp"), std::string::npos);
  const HttpReply page = daemon.Get("/jobs/" + job["job_id"].get<std::string>(),
                                    {{"Accept", "text/html"}});
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.body.find("op_kernel/add_custom.cpp"), std::string::npos);

  Json offline = job_body;
  offline["options"]["llm"] = "offline";
  HttpReply refused = daemon.PostJson("/optimize?wait=true", offline);
  ASSERT_EQ(refused.status, 200) << refused.body;
  EXPECT_EQ(refused.json()["status"], "failed");
  EXPECT_NE(refused.body.find("needs a model"), std::string::npos) << refused.body;
  EXPECT_TRUE(daemon.Terminate().has_value());
}

}  // namespace
}  // namespace cannbot
