// The job store on both backends (service/job_store.h): the local SQLite file and a real
// PostgreSQL server started by the test. The same cases run on each: the shared line's
// order (priority, then fairness between submitters), leases that run out and go to another
// worker, a lost lease that can no longer finish the job, cancellation requests, many
// workers claiming at once (each job exactly once), and a schema from the future refused.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "cannbot/service/job_store.h"
#include "cannbot/store/postgres.h"
#include "cannbot/util/fs.h"
#include "integration/postgres_server.h"

namespace cannbot::service {
namespace {

class JobStoreBackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("cannbot-backends-test");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
    if (GetParam() == "postgresql") {
      std::string error;
      server_ = testing::PostgresServer::Start(&error);
      ASSERT_NE(server_, nullptr) << error;
      location_ = server_->url();
    } else {
      location_ = dir_->File("jobs.db");
    }
    jobs_ = Open();
    ASSERT_NE(jobs_, nullptr);
  }
  std::unique_ptr<JobStore> Open() {
    auto opened = JobStore::Open(location_, [this] { return now_.load(); });
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return opened.ok() ? std::move(opened).value() : nullptr;
  }
  std::string Create(const std::string& owner = "", int priority = 0) {
    JobSpec spec;
    spec.op = "relu";
    spec.source = "src";
    if (priority != 0) spec.options.priority = priority;
    auto s = jobs_->Create(spec, "req", "", owner);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? s->job_id : "";
  }
  std::string ClaimId(const std::string& worker, double lease = 10) {
    auto claimed = jobs_->Claim(worker, lease);
    EXPECT_TRUE(claimed.ok()) << claimed.status().ToString();
    return claimed.ok() && *claimed ? (*claimed)->id : "";
  }
  std::vector<std::string> EventTypes(const std::string& id) {
    std::vector<std::string> types;
    auto events = jobs_->EventsAfter(id, 0, 100);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    if (!events.ok()) return types;
    for (const EventRecord& e : *events) types.push_back(e.type);
    return types;
  }

  std::atomic<double> now_{1000};
  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<testing::PostgresServer> server_;
  std::string location_;
  std::unique_ptr<JobStore> jobs_;
};

TEST_P(JobStoreBackendTest, ClaimsTakeHigherPriorityFirstThenTheLeastServedSubmitter) {
  const std::string a1 = Create("alice");
  const std::string a2 = Create("alice");
  const std::string a3 = Create("alice");
  const std::string b1 = Create("bob");
  const std::string urgent = Create("carol", 5);
  EXPECT_EQ(jobs_->shared(), GetParam() == "postgresql");
  EXPECT_EQ(jobs_->Queue()->depth, 5);
  EXPECT_EQ(ClaimId("w1"), urgent);  // priority first, though it came last
  EXPECT_EQ(ClaimId("w2"), a1);      // nobody of alice's or bob's runs: the oldest
  EXPECT_EQ(ClaimId("w3"), b1);      // alice has one running, bob none
  EXPECT_EQ(ClaimId("w4"), a2);
  EXPECT_EQ(ClaimId("w5"), a3);
  EXPECT_EQ(ClaimId("w6"), "");      // the line is empty
  auto job = **jobs_->Get(b1);
  EXPECT_EQ(job.state, JobState::kRunning);
  EXPECT_EQ(job.runs, 1);
  auto started = jobs_->EventsAfter(b1, 1, 10)->at(0);
  EXPECT_EQ(started.type, "started");
  EXPECT_EQ(started.data["worker"], "w3");
}

TEST_P(JobStoreBackendTest, AnExpiredLeaseGoesToAnotherWorkerAndTheFirstCannotFinish) {
  const std::string id = Create();
  ASSERT_EQ(ClaimId("w1", 10), id);
  now_ = 1005;
  EXPECT_TRUE(jobs_->Renew(id, "w1", 10)->held);  // lease now until 1015
  now_ = 1012;
  EXPECT_TRUE(jobs_->RequeueExpired()->empty());  // still held
  now_ = 1016;
  EXPECT_EQ(*jobs_->RequeueExpired(), std::vector<std::string>{id});
  EXPECT_EQ(**jobs_->StateOf(id), JobState::kQueued);
  ASSERT_EQ(ClaimId("w2", 10), id);
  EXPECT_FALSE(jobs_->Renew(id, "w1", 10)->held);  // w1 learns it lost the job
  Outcome outcome;
  outcome.found = true;
  Status late = jobs_->Finish(id, outcome, "w1");
  EXPECT_EQ(late.code(), Status::Code::kAborted) << late.ToString();
  EXPECT_NE(late.message().find("no longer held by worker w1"), std::string::npos);
  EXPECT_TRUE(jobs_->Requeue(id, "w1 stops", "w1").ok());  // changes nothing
  EXPECT_EQ(**jobs_->StateOf(id), JobState::kRunning);
  ASSERT_TRUE(jobs_->Finish(id, outcome, "w2").ok());
  auto job = **jobs_->Get(id);
  EXPECT_EQ(job.state, JobState::kSucceeded);
  EXPECT_EQ(job.runs, 2);
  EXPECT_EQ(EventTypes(id), (std::vector<std::string>{"queued", "started", "requeued", "started",
                                                      "finished"}));
  auto requeued = jobs_->EventsAfter(id, 2, 1)->at(0);
  EXPECT_NE(requeued.data["reason"].get<std::string>().find("lease of worker w1 ran out"),
            std::string::npos);
}

TEST_P(JobStoreBackendTest, ACancellationRequestReachesTheWorkerAtItsNextRenewal) {
  const std::string id = Create();
  ASSERT_EQ(ClaimId("w1"), id);
  EXPECT_FALSE(jobs_->Renew(id, "w1", 10)->cancel_requested);
  EXPECT_TRUE(*jobs_->RequestCancel(id));
  auto lease = *jobs_->Renew(id, "w1", 10);
  EXPECT_TRUE(lease.held);
  EXPECT_TRUE(lease.cancel_requested);
  const std::string queued = Create();
  EXPECT_FALSE(*jobs_->RequestCancel(queued));  // not running: DELETE cancels it at once
  now_ = 1030;
  EXPECT_EQ(jobs_->Queue()->depth, 1);
  EXPECT_DOUBLE_EQ(jobs_->Queue()->oldest_age_seconds, 30);
}

TEST_P(JobStoreBackendTest, ConcurrentWorkersClaimEveryJobExactlyOnce) {
  constexpr int kJobs = 60;
  constexpr int kWorkers = 4;
  std::set<std::string> created;
  for (int i = 0; i < kJobs; ++i) created.insert(Create("owner-" + std::to_string(i % 3)));
  std::mutex mutex;
  std::map<std::string, int> claims;
  std::atomic<int> errors{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&, w] {
      std::unique_ptr<JobStore> mine = Open();  // each worker its own connection
      if (mine == nullptr) return;
      const std::string name = "w" + std::to_string(w);
      while (true) {
        auto claimed = mine->Claim(name, 60);
        if (!claimed.ok()) {
          ++errors;
          continue;
        }
        if (!*claimed) break;
        {
          std::lock_guard<std::mutex> lock(mutex);
          ++claims[(*claimed)->id];
        }
        if (!mine->Finish((*claimed)->id, Outcome{}, name).ok()) ++errors;
      }
    });
  }
  for (std::thread& t : workers) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(claims.size(), created.size());
  for (const auto& [id, n] : claims) EXPECT_EQ(n, 1) << id;
  auto counts = *jobs_->CountByState();
  EXPECT_EQ(counts["succeeded"], kJobs);
}

TEST_P(JobStoreBackendTest, ASchemaFromTheFutureIsRefusedNotMigratedDown) {
  jobs_.reset();
  if (GetParam() == "postgresql") {
    PGconn* conn = PQconnectdb(location_.c_str());
    ASSERT_EQ(PQstatus(conn), CONNECTION_OK);
    PQclear(PQexec(conn, "UPDATE cannbot_schema SET version = 99"));
    PQfinish(conn);
  } else {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(location_.c_str(), &db), SQLITE_OK);
    sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  auto opened = JobStore::Open(location_);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(opened.status().message().find("schema version 99"), std::string::npos)
      << opened.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Backends, JobStoreBackendTest,
                         ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST(PostgresStoreTest, AnUnreachableServerIsNamedWithTheReason) {
  auto opened = JobStore::Open("postgresql://cannbot:secret@127.0.0.1:1/cannbot");
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), Status::Code::kUnavailable);
  const std::string message = opened.status().message();
  EXPECT_NE(message.find("127.0.0.1:1/cannbot"), std::string::npos) << message;
  EXPECT_NE(message.find("refused"), std::string::npos) << message;
  EXPECT_EQ(message.find("secret"), std::string::npos) << message;  // never the password
}

}  // namespace
}  // namespace cannbot::service
