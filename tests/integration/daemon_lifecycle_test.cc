// The daemon keeps every job it accepted: kill -9 in the middle of a job and a restart finish
// it (with the CLI following the job across the restart); SIGTERM lets running jobs finish
// and refuses new work with 503, or checkpoints them when the grace period runs out; a full
// queue answers 429; a running job can be cancelled.
#include <gtest/gtest.h>

#include "integration/daemon_support.h"
#include "integration/fake_llm_server.h"

namespace cannbot {
namespace {

using testing::Chat;
using testing::Daemon;
using testing::FakeLlmServer;
using testing::Fenced;
using testing::HttpReply;
using testing::Json;
using testing::OfflineJob;
using testing::Types;

bool HasEvent(const std::vector<testing::SseEvent>& events, const std::string& type,
              const std::string& reason_part = "") {
  for (const testing::SseEvent& e : events) {
    if (e.type != type) continue;
    if (reason_part.empty() ||
        e.data.value("reason", std::string()).find(reason_part) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(DaemonLifecycleTest, KillNineMidJobThenRestartFinishesItAndTheCliFollowsAcross) {
  Daemon daemon(Daemon::Options{{"--workers", "1"}, {}, ""});
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  const int port = daemon.port();
  // The CLI submits and follows, as a person would.
  SpawnOptions cli;
  cli.argv = {std::string(CANNBOT_BUILD_DIR) + "/cannbot", "suggest",
              testing::SourcePath("examples/relu/naive.cpp"), "--op", "relu", "--server",
              daemon.url(), "--llm", "offline", "--budget", "2", "--rounds", "0", "--seed", "5",
              "--json"};
  cli.extra_environment = {"CANNBOT_TOKEN="};
  cli.output_path = daemon.File("cli.out");
  auto client = ChildProcess::Spawn(cli);
  ASSERT_TRUE(client.ok()) << client.status().ToString();

  std::string id;
  const auto deadline = SteadyClock::now() + std::chrono::seconds(60);
  while (id.empty() && SteadyClock::now() < deadline) {
    Json running = daemon.Get("/jobs?state=running").json();
    if (running.is_object() && running["count"] == 1) id = running["jobs"][0]["job_id"];
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_FALSE(id.empty()) << daemon.Log();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into the kernel check
  daemon.Kill9();
  ASSERT_TRUE(daemon.Start(true, port)) << daemon.Log();

  auto exit = client->WaitUntil(SteadyClock::now() + std::chrono::seconds(180));
  const std::string output = *ReadFile(daemon.File("cli.out"));
  ASSERT_TRUE(exit.has_value()) << output;
  EXPECT_TRUE(exit->exited && (exit->exit_code == 0 || exit->exit_code == 1)) << output;
  EXPECT_NE(output.find("re-queued the job: the daemon restarted while it ran"), std::string::npos)
      << output;
  EXPECT_NE(output.find("\"kernel_check\""), std::string::npos) << output;

  Json job = daemon.Get("/jobs/" + id).json();
  EXPECT_EQ(job["status"], "succeeded") << job.dump(2);
  EXPECT_EQ(job["runs"], 2);
  std::vector<testing::SseEvent> events = daemon.Events(id);
  EXPECT_TRUE(HasEvent(events, "requeued", "restarted")) << daemon.Log();
  EXPECT_EQ(events.back().type, "finished");
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].id, static_cast<int64_t>(i + 1));
  EXPECT_TRUE(daemon.Terminate().has_value());
}

TEST(DaemonLifecycleTest, SigtermFinishesRunningJobsAndRefusesNewWork) {
  Daemon daemon(Daemon::Options{{"--workers", "1"}, {}, "[server]\nshutdown_grace_seconds = 120\n"});
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  HttpReply submitted = daemon.PostJson("/optimize", OfflineJob("relu"));
  ASSERT_EQ(submitted.status, 202) << submitted.body;
  const std::string id = submitted.json()["job_id"];
  daemon.WaitFor(id, {"running", "succeeded"});
  daemon.SendTerm();
  // New work is refused while the running job finishes; reads still work.
  HttpReply refused;
  const auto deadline = SteadyClock::now() + std::chrono::seconds(10);
  do {
    refused = daemon.PostJson("/optimize", OfflineJob("add"));
  } while (refused.status == 202 && SteadyClock::now() < deadline);
  if (refused.status != 0) {  // 0: the job had already finished and the daemon was gone
    EXPECT_EQ(refused.status, 503) << refused.body;
    EXPECT_EQ(refused.error_code(), "shutting_down");
    EXPECT_EQ(refused.header("Retry-After"), "30");
    HttpReply health = daemon.Get("/healthz");
    if (health.status != 0) {
      EXPECT_EQ(health.status, 503);
    }
  }
  auto exit = daemon.WaitExit(std::chrono::seconds(120));
  ASSERT_TRUE(exit.has_value());
  EXPECT_TRUE(exit->Success()) << daemon.Log();
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  Json job = daemon.Get("/jobs/" + id).json();
  EXPECT_EQ(job["status"], "succeeded") << job.dump(2);
  EXPECT_EQ(job["runs"], 1);  // finished within the grace period, not run again
  EXPECT_TRUE(daemon.Terminate().has_value());
}

TEST(DaemonLifecycleTest, SigtermCheckpointsWhenTheGraceRunsOutAndARestartFinishes) {
  FakeLlmServer llm;
  // Slow answers keep the job running past the grace period; their code does not compile.
  testing::ScriptedReply slow = Chat({Fenced("int nope(")});
  slow.delay = std::chrono::milliseconds(1500);
  llm.Push(slow);
  Daemon daemon(Daemon::Options{
      {"--workers", "1"}, {},
      "[server]\nshutdown_grace_seconds = 0.2\n[llm]\nurl = \"" + llm.base_url() +
          "\"\nmodel = \"scripted\"\n"});
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  Json body = OfflineJob("relu");
  body["options"] = {{"samples", 1}, {"rounds", 2}};
  HttpReply submitted = daemon.PostJson("/optimize", body);
  ASSERT_EQ(submitted.status, 202) << submitted.body;
  const std::string id = submitted.json()["job_id"];
  daemon.WaitFor(id, {"running"});
  auto exit = daemon.Terminate();
  ASSERT_TRUE(exit.has_value());
  EXPECT_TRUE(exit->Success()) << daemon.Log();
  EXPECT_NE(daemon.Log().find("checkpointed at shutdown"), std::string::npos) << daemon.Log();

  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  Json job = daemon.WaitFor(id, {"succeeded", "failed"});
  EXPECT_EQ(job["status"], "succeeded") << job.dump(2);
  EXPECT_EQ(job["runs"], 2);
  std::vector<testing::SseEvent> events = daemon.Events(id);
  EXPECT_TRUE(HasEvent(events, "requeued", "checkpointed at shutdown")) << daemon.Log();
  EXPECT_TRUE(daemon.Terminate().has_value());
}

TEST(DaemonLifecycleTest, AFullQueueAnswers429AndACancelStopsARunningJob) {
  FakeLlmServer llm;
  // A model that would take a minute: the cancel below must not wait for it.
  testing::ScriptedReply slow = Chat({Fenced("int nope(")});
  slow.delay = std::chrono::milliseconds(60000);
  llm.Push(slow);
  Daemon daemon(Daemon::Options{
      {"--workers", "1", "--queue-size", "1"}, {},
      "[llm]\nurl = \"" + llm.base_url() + "\"\nmodel = \"scripted\"\n"});
  ASSERT_TRUE(daemon.Start()) << daemon.Log();
  Json body = OfflineJob("relu");
  body["options"] = {{"samples", 1}, {"rounds", 3}};
  HttpReply running = daemon.PostJson("/optimize", body);
  ASSERT_EQ(running.status, 202) << running.body;
  const std::string first = running.json()["job_id"];
  daemon.WaitFor(first, {"running"});
  HttpReply queued = daemon.PostJson("/optimize", body);
  ASSERT_EQ(queued.status, 202) << queued.body;
  HttpReply full = daemon.PostJson("/optimize", body);
  EXPECT_EQ(full.status, 429) << full.body;
  EXPECT_EQ(full.error_code(), "queue_full");
  EXPECT_EQ(full.header("Retry-After"), "10");
  EXPECT_NE(daemon.Get("/metrics").body.find("cannbot_queue_depth 1"), std::string::npos);

  // Cancel the running job, which waits on the model: the question is abandoned at once (not
  // after the model's minute), and the job ends cancelled with its report.
  const auto cancelled_at = std::chrono::steady_clock::now();
  HttpReply cancelling = daemon.Delete("/jobs/" + first);
  EXPECT_EQ(cancelling.status, 202) << cancelling.body;
  Json cancelled = daemon.WaitFor(first, {"cancelled"});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - cancelled_at).count(),
            20.0);
  EXPECT_EQ(cancelled["error"]["code"], "cancelled");
  EXPECT_TRUE(cancelled["report"].is_object()) << cancelled.dump();
  // The queued one is cancelled at once.
  const std::string second = queued.json()["job_id"];
  HttpReply dropped = daemon.Delete("/jobs/" + second);
  if (dropped.status == 200) {
    EXPECT_EQ(dropped.json()["status"], "cancelled");
  } else {
    EXPECT_EQ(dropped.status, 202);  // it had started meanwhile
    daemon.WaitFor(second, {"cancelled"});
  }
  EXPECT_TRUE(daemon.Terminate().has_value());
}

}  // namespace
}  // namespace cannbot
