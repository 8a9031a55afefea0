// A fleet on one machine (docs/scaling.md): a real PostgreSQL server started by the test, an
// API front end (`cannbot serve --store URL --api-only`) and `cannbot worker` processes that
// claim jobs from it. Jobs finish exactly once when submitted concurrently, a worker killed
// with SIGKILL mid-job loses its lease and another worker finishes the job, the front end
// keeps answering while PostgreSQL restarts and the jobs resume, and cancellation reaches
// the worker that runs a job.
#include <libpq-fe.h>

#include <atomic>
#include <map>
#include <thread>

#include "integration/daemon_support.h"
#include "integration/postgres_server.h"

namespace cannbot::testing {
namespace {

// A relu kernel that does not compile: a job on it fails at its first step (the compile
// result is cached), so hundreds of jobs test the line, not the compiler.
Json BrokenJob(int i) {
  return {{"op", "relu"},
          {"source", "extern \"C\" void relu(const float* x, float* y, long n) { oops; }\n"},
          {"name", "broken-" + std::to_string(i) + ".cpp"},
          {"options", {{"llm", "offline"}, {"budget", 1}, {"rounds", 0}}}};
}

// Rows of a query on the test's server.
std::vector<std::vector<std::string>> Sql(const std::string& url, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  PGconn* conn = PQconnectdb(url.c_str());
  if (PQstatus(conn) == CONNECTION_OK) {
    PGresult* result = PQexec(conn, sql.c_str());
    for (int r = 0; r < PQntuples(result); ++r) {
      std::vector<std::string> row;
      for (int c = 0; c < PQnfields(result); ++c) row.push_back(PQgetvalue(result, r, c));
      rows.push_back(row);
    }
    PQclear(result);
  }
  PQfinish(conn);
  return rows;
}

class ScaleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    pg_ = PostgresServer::Start(&error);
    ASSERT_NE(pg_, nullptr) << error;
  }
  std::unique_ptr<Daemon> FrontEnd(std::vector<std::string> extra = {}) {
    Daemon::Options options;
    options.args = {"--store", pg_->url(), "--api-only"};
    options.args.insert(options.args.end(), extra.begin(), extra.end());
    auto daemon = std::make_unique<Daemon>(options);
    EXPECT_TRUE(daemon->Start()) << daemon->Log();
    return daemon;
  }
  std::unique_ptr<Daemon> Worker(double lease_seconds) {
    Daemon::Options options;
    options.args = {"--store", pg_->url(), "--lease-seconds", std::to_string(lease_seconds)};
    auto daemon = std::make_unique<Daemon>(options);
    daemon->RunAsWorker();
    EXPECT_TRUE(daemon->Start()) << daemon->Log();
    return daemon;
  }
  std::string Submit(Daemon& front, const Json& body) {
    HttpReply reply = front.PostJson("/optimize", body);
    EXPECT_EQ(reply.status, 202) << reply.body;
    return reply.json().value("job_id", std::string());
  }
  // Waits until the job's "started" event names a worker; returns that worker's name.
  std::string WaitStarted(const std::string& id) {
    for (int i = 0; i < 600; ++i) {
      auto rows = Sql(pg_->url(), "SELECT data_json FROM job_events WHERE job_id = '" + id +
                                      "' AND type = 'started' ORDER BY seq DESC LIMIT 1");
      if (!rows.empty()) return Json::parse(rows[0][0]).value("worker", std::string());
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return "";
  }
  int FinishedEvents(const std::string& id) {
    return std::stoi(Sql(pg_->url(), "SELECT COUNT(*) FROM job_events WHERE job_id = '" + id +
                                         "' AND type = 'finished'")[0][0]);
  }

  std::unique_ptr<PostgresServer> pg_;
};

TEST_F(ScaleTest, JobsSubmittedConcurrentlyToAFrontEndFinishExactlyOnceOnTwoWorkers) {
  auto front = FrontEnd();
  auto a = Worker(10);
  auto b = Worker(10);
  constexpr int kJobs = 200;
  constexpr int kClients = 8;
  std::vector<std::string> ids(kJobs);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int i = c; i < kJobs; i += kClients) ids[i] = Submit(*front, BrokenJob(i));
    });
  }
  for (std::thread& t : clients) t.join();
  // The front end's event stream follows a job that a worker process runs.
  std::vector<SseEvent> events = front->Events(ids[kJobs - 1]);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(Types(events).front(), "queued");
  EXPECT_EQ(Types(events).back(), "finished");
  for (const std::string& id : ids) {
    Json job = front->WaitFor(id, {"succeeded", "failed"}, std::chrono::seconds(300));
    EXPECT_EQ(job.value("runs", 0), 1) << job.dump();
  }
  auto finished = Sql(pg_->url(), "SELECT job_id, COUNT(*) FROM job_events WHERE type = "
                                  "'finished' GROUP BY job_id HAVING COUNT(*) <> 1");
  EXPECT_TRUE(finished.empty()) << finished.size() << " jobs did not finish exactly once";
  auto starts = Sql(pg_->url(), "SELECT COUNT(*) FROM job_events WHERE type = 'started'");
  EXPECT_EQ(starts[0][0], std::to_string(kJobs));
  // Both workers took part.
  for (Daemon* worker : {a.get(), b.get()}) {
    const std::string pid = ":" + std::to_string(worker->pid()) + ":";
    auto taken = Sql(pg_->url(), "SELECT COUNT(*) FROM job_events WHERE type = 'started' AND "
                                 "data_json LIKE '%" + pid + "%'");
    EXPECT_GT(std::stoi(taken[0][0]), 0) << "worker " << pid << " ran no job";
  }
  EXPECT_NE(a->Get("/metrics").body.find("cannbot_claim_wait_seconds_count"), std::string::npos);
}

TEST_F(ScaleTest, AWorkerKilledMidJobLosesItsLeaseAndAnotherWorkerFinishesTheJob) {
  auto front = FrontEnd();
  auto doomed = Worker(2);
  const std::string id = Submit(*front, OfflineJob("relu"));
  const std::string first = WaitStarted(id);
  ASSERT_NE(first.find(":" + std::to_string(doomed->pid()) + ":"), std::string::npos) << first;
  doomed->Kill9();
  auto rescuer = Worker(2);
  Json job = front->WaitFor(id, {"succeeded", "failed"}, std::chrono::seconds(180));
  EXPECT_EQ(job.value("status", ""), "succeeded") << job.dump() << rescuer->Log();
  EXPECT_EQ(job.value("runs", 0), 2);
  EXPECT_EQ(FinishedEvents(id), 1);
  const std::string second = WaitStarted(id);
  EXPECT_NE(second.find(":" + std::to_string(rescuer->pid()) + ":"), std::string::npos) << second;
  auto requeued = Sql(pg_->url(), "SELECT data_json FROM job_events WHERE job_id = '" + id +
                                      "' AND type = 'requeued'");
  ASSERT_EQ(requeued.size(), 1u);
  EXPECT_NE(requeued[0][0].find("lease of worker " + first + " ran out"), std::string::npos);
}

TEST_F(ScaleTest, TheFrontEndAnswersWhilePostgresRestartsAndTheJobResumes) {
  auto front = FrontEnd();
  // A lease longer than any outage here: the job resumes on its own worker. With 10 s, a busy
  // 2-core machine's stop and restart outlasted the lease once, and the job ran twice, as it
  // should then (the lease-expiry test covers that path).
  auto worker = Worker(60);
  const std::string id = Submit(*front, OfflineJob("relu"));
  ASSERT_FALSE(WaitStarted(id).empty());
  std::string error;
  ASSERT_TRUE(pg_->Stop(&error)) << error;
  HttpReply down = front->Get("/healthz");
  EXPECT_EQ(down.status, 503) << down.body;  // answers, and says the store is unreachable
  HttpReply refused = front->PostJson("/optimize", OfflineJob("relu"));
  EXPECT_EQ(refused.status, 503) << refused.body;  // refused, to be retried; nothing half-stored
  ASSERT_TRUE(pg_->Restart(&error)) << error;
  Json job = front->WaitFor(id, {"succeeded", "failed"}, std::chrono::seconds(180));
  EXPECT_EQ(job.value("status", ""), "succeeded") << job.dump() << worker->Log();
  EXPECT_EQ(job.value("runs", 0), 1);
  EXPECT_EQ(FinishedEvents(id), 1);
  EXPECT_EQ(front->Get("/healthz").status, 200);
  const std::string after = Submit(*front, BrokenJob(0));  // new work flows again
  EXPECT_FALSE(front->WaitFor(after, {"succeeded", "failed"}).empty());
}

TEST_F(ScaleTest, ACancellationReachesTheWorkerOnAnotherProcess) {
  auto front = FrontEnd();
  auto worker = Worker(1.5);  // renewals every half second
  Json body = OfflineJob("relu", 8);
  const std::string id = Submit(*front, body);
  ASSERT_FALSE(WaitStarted(id).empty());
  HttpReply cancel = front->Delete("/jobs/" + id);
  EXPECT_EQ(cancel.status, 202) << cancel.body;
  Json job = front->WaitFor(id, {"cancelled", "succeeded", "failed"}, std::chrono::seconds(120));
  EXPECT_EQ(job.value("status", ""), "cancelled") << job.dump();
}

TEST_F(ScaleTest, AFullSharedLineAnswers429AndBadStoresAreNamed) {
  auto front = FrontEnd({"--queue-size", "2"});
  Submit(*front, BrokenJob(1));
  Submit(*front, BrokenJob(2));
  HttpReply full = front->PostJson("/optimize", BrokenJob(3));
  EXPECT_EQ(full.status, 429) << full.body;
  EXPECT_EQ(full.error_code(), "queue_full");
  EXPECT_FALSE(full.header("Retry-After").empty());

  auto dir = TempDir::Create("cannbot-scale-cli");
  ASSERT_TRUE(dir.ok());
  const std::string db = dir->File("local.db");
  auto run = [](std::vector<std::string> args) {
    SpawnOptions spawn;
    spawn.argv = {std::string(CANNBOT_BUILD_DIR) + "/cannbot"};
    spawn.argv.insert(spawn.argv.end(), args.begin(), args.end());
    return RunCommand(spawn, std::chrono::seconds(60));
  };
  auto unreachable = run({"serve", "--port", "0", "--db", db, "--store",
                          "postgresql://u:pw@127.0.0.1:1/jobs"});
  ASSERT_TRUE(unreachable.ok());
  EXPECT_NE(unreachable->exit.exit_code, 0);
  EXPECT_NE(unreachable->output.find("127.0.0.1:1/jobs"), std::string::npos) << unreachable->output;
  EXPECT_EQ(unreachable->output.find("pw@"), std::string::npos) << unreachable->output;
  auto storeless = run({"worker"});
  ASSERT_TRUE(storeless.ok());
  EXPECT_NE(storeless->exit.exit_code, 0);
  EXPECT_NE(storeless->output.find("needs a shared store"), std::string::npos) << storeless->output;
  auto api_only_local = run({"serve", "--port", "0", "--db", db, "--api-only"});
  ASSERT_TRUE(api_only_local.ok());
  EXPECT_NE(api_only_local->exit.exit_code, 0);
  EXPECT_NE(api_only_local->output.find("needs a shared store"), std::string::npos);
}

}  // namespace
}  // namespace cannbot::testing
