// The daemon's durable jobs (service/job_store.h), its queue (job_queue.h) and its event
// streams (event_stream.h): lifecycle, idempotency, event numbering, recovery after a crash,
// retention, and SSE replay-then-follow.
#include "cannbot/service/job_store.h"

#include <gtest/gtest.h>

#include <thread>

#include "cannbot/service/event_stream.h"
#include "cannbot/service/job_queue.h"
#include "cannbot/util/fs.h"

namespace cannbot::service {
namespace {

class JobStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dir = TempDir::Create("cannbot-jobstore-test");
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = std::make_unique<TempDir>(std::move(dir).value());
    Reopen();
  }
  void Reopen() {
    jobs_.reset();
    auto opened = JobStore::Open(dir_->File("jobs.db"), [this] { return now_; });
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    jobs_ = std::move(opened).value();
  }
  static JobSpec Spec(const std::string& source = "src") {
    JobSpec spec;
    spec.op = "relu";
    spec.source = source;
    spec.options.samples = 2;
    return spec;
  }
  std::string Create(const std::string& key = "", const std::string& source = "src") {
    auto s = jobs_->Create(Spec(source), "req-1", key);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? s->job_id : "";
  }
  std::vector<std::string> EventTypes(const std::string& id) {
    auto events = jobs_->EventsAfter(id, 0, 100);
    EXPECT_TRUE(events.ok());
    std::vector<std::string> types;
    for (const EventRecord& e : *events) types.push_back(e.type);
    return types;
  }

  double now_ = 1000;
  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<JobStore> jobs_;
};

TEST_F(JobStoreTest, CreateStoresTheRequestAndAQueuedEvent) {
  const std::string id = Create();
  ASSERT_EQ(id.rfind("j-", 0), 0u);
  auto job = jobs_->Get(id);
  ASSERT_TRUE(job.ok() && job->has_value());
  EXPECT_EQ((*job)->state, JobState::kQueued);
  EXPECT_EQ((*job)->spec.source, "src");
  EXPECT_EQ(*(*job)->spec.options.samples, 2);
  EXPECT_EQ((*job)->request_id, "req-1");
  EXPECT_DOUBLE_EQ((*job)->created_at, 1000);
  EXPECT_EQ(EventTypes(id), std::vector<std::string>{"queued"});
  EXPECT_FALSE(jobs_->Get("j-none")->has_value());
}

TEST_F(JobStoreTest, LifecycleEventsAreNumberedWithoutGaps) {
  const std::string id = Create();
  ASSERT_TRUE(*jobs_->Start(id));
  EXPECT_FALSE(*jobs_->Start(id));  // only a queued job starts
  ASSERT_TRUE(jobs_->AppendEvent(id, "asking", {{"round", 0}}).ok());
  ASSERT_TRUE(jobs_->AddAttempt(id, 1, 0, {{"outcome", "accepted"}}).ok());
  Outcome outcome;
  outcome.found = true;
  outcome.speedup = 1.5;
  outcome.report = nlohmann::json{{"found", true}};
  outcome.report_text = "RESULT";
  ASSERT_TRUE(jobs_->Finish(id, outcome).ok());
  EXPECT_EQ(EventTypes(id), (std::vector<std::string>{"queued", "started", "asking", "finished"}));
  auto events = *jobs_->EventsAfter(id, 0, 100);
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].seq, static_cast<int64_t>(i + 1));
  EXPECT_EQ(events[1].data["run"], 1);
  EXPECT_EQ(events[3].data["status"], "succeeded");
  EXPECT_EQ(jobs_->EventsAfter(id, 2, 100)->size(), 2u);
  auto job = **jobs_->Get(id);
  EXPECT_EQ(job.state, JobState::kSucceeded);
  EXPECT_TRUE(job.found);
  EXPECT_DOUBLE_EQ(*job.speedup, 1.5);
  EXPECT_EQ((*job.report)["found"], true);
  EXPECT_EQ(job.report_text, "RESULT");
  EXPECT_EQ(jobs_->Attempts(id, 1)->size(), 1u);
  EXPECT_EQ(jobs_->Attempts(id, 2)->size(), 0u);
}

TEST_F(JobStoreTest, IdempotencyKeyReturnsTheOriginalOrAConflict) {
  auto first = jobs_->Create(Spec("a"), "r1", "key-1");
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->existing);
  auto again = jobs_->Create(Spec("a"), "r2", "key-1");
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->existing);
  EXPECT_FALSE(again->conflict);
  EXPECT_EQ(again->job_id, first->job_id);
  auto other = jobs_->Create(Spec("b"), "r3", "key-1");
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->conflict);
  auto found = jobs_->FindByKey("key-1", Spec("a"));
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->job_id, first->job_id);
  EXPECT_FALSE(jobs_->FindByKey("key-2", Spec("a"))->has_value());
  EXPECT_EQ(jobs_->List(std::nullopt, 10)->size(), 1u);
}

TEST_F(JobStoreTest, UnfinishedJobsSurviveAReopenAndCanBeRequeued) {
  const std::string queued = Create();
  const std::string running = Create();
  const std::string done = Create();
  ASSERT_TRUE(*jobs_->Start(running));
  ASSERT_TRUE(*jobs_->Start(done));
  ASSERT_TRUE(jobs_->Finish(done, Outcome{}).ok());
  Reopen();  // as after kill -9: nothing but the file
  auto unfinished = jobs_->Unfinished();
  ASSERT_TRUE(unfinished.ok());
  EXPECT_EQ(*unfinished, (std::vector<std::string>{queued, running}));
  ASSERT_TRUE(jobs_->Requeue(running, "restart").ok());
  EXPECT_EQ(**jobs_->StateOf(running), JobState::kQueued);
  ASSERT_TRUE(*jobs_->Start(running));
  EXPECT_EQ((**jobs_->Get(running)).runs, 2);
  EXPECT_EQ(EventTypes(running),
            (std::vector<std::string>{"queued", "started", "requeued", "started"}));
  ASSERT_TRUE(jobs_->Requeue(done, "too late").ok());  // a finished job stays finished
  EXPECT_EQ(**jobs_->StateOf(done), JobState::kSucceeded);
}

TEST_F(JobStoreTest, OnlyQueuedJobsCancelAtOnce) {
  const std::string queued = Create();
  const std::string running = Create();
  ASSERT_TRUE(*jobs_->Start(running));
  EXPECT_TRUE(*jobs_->CancelQueued(queued));
  EXPECT_FALSE(*jobs_->CancelQueued(running));
  auto job = **jobs_->Get(queued);
  EXPECT_EQ(job.state, JobState::kCancelled);
  EXPECT_EQ(job.error_code, "cancelled");
  EXPECT_EQ(EventTypes(queued).back(), "finished");
}

TEST_F(JobStoreTest, ListFiltersByStateNewestFirst) {
  const std::string a = Create();
  const std::string b = Create();
  ASSERT_TRUE(*jobs_->Start(a));
  auto all = *jobs_->List(std::nullopt, 10);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, b);
  auto running = *jobs_->List(JobState::kRunning, 10);
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].id, a);
  EXPECT_EQ(jobs_->List(std::nullopt, 1)->size(), 1u);
  auto counts = *jobs_->CountByState();
  EXPECT_EQ(counts["queued"], 1);
  EXPECT_EQ(counts["running"], 1);
}

TEST_F(JobStoreTest, PruneRemovesOldAndSurplusFinishedJobsOnly) {
  std::vector<std::string> finished;
  for (int i = 0; i < 4; ++i) {
    finished.push_back(Create());
    ASSERT_TRUE(*jobs_->Start(finished.back()));
    ASSERT_TRUE(jobs_->Finish(finished.back(), Outcome{}).ok());
    now_ += 100;
  }
  const std::string waiting = Create("key-w");
  // Age: finished at 1000, 1100, 1200, 1300; now 1400; older than 250 s: the first two.
  auto pruned = jobs_->Prune(250, 0);
  ASSERT_TRUE(pruned.ok()) << pruned.status().ToString();
  EXPECT_EQ(*pruned, 2);
  EXPECT_FALSE(jobs_->Get(finished[0])->has_value());
  EXPECT_EQ(jobs_->EventsAfter(finished[0], 0, 10)->size(), 0u);  // events went with it
  // Count: keep the newest finished one.
  EXPECT_EQ(*jobs_->Prune(0, 1), 1);
  EXPECT_FALSE(jobs_->Get(finished[2])->has_value());
  EXPECT_TRUE(jobs_->Get(finished[3])->has_value());
  EXPECT_TRUE(jobs_->Get(waiting)->has_value());  // unfinished jobs are never pruned
  EXPECT_EQ(*jobs_->Prune(1000, 1), 0);  // nothing older, nothing beyond one
}

TEST(JobQueueTest, BoundedAdmissionAndRecoveryBeyondTheBound) {
  JobQueue queue(2);
  ASSERT_TRUE(queue.Reserve());
  queue.PushReserved("a");
  ASSERT_TRUE(queue.Reserve());
  EXPECT_FALSE(queue.Reserve());  // a reserved place counts
  queue.CancelReservation();
  ASSERT_TRUE(queue.Reserve());
  queue.PushReserved("b");
  EXPECT_FALSE(queue.Reserve());
  queue.PushRecovered("c");  // recovery ignores the bound
  EXPECT_EQ(queue.size(), 3u);
  EXPECT_TRUE(queue.Remove("b"));
  EXPECT_FALSE(queue.Remove("b"));
  EXPECT_EQ(*queue.Pop(), "a");
  EXPECT_EQ(*queue.Pop(), "c");
  std::thread closer([&] { queue.Close(); });
  EXPECT_FALSE(queue.Pop().has_value());  // woken by Close
  closer.join();
  EXPECT_FALSE(queue.Reserve());
}

TEST(JobQueueTest, HigherPrioritiesGoFirstAndEqualsKeepTheirOrder) {
  JobQueue queue(8);
  for (auto [id, priority] : std::vector<std::pair<std::string, int>>{
           {"batch-1", -5}, {"plain-1", 0}, {"ci-1", 10}, {"plain-2", 0}, {"ci-2", 10}}) {
    ASSERT_TRUE(queue.Reserve());
    queue.PushReserved(id, priority);
  }
  for (const char* expected : {"ci-1", "ci-2", "plain-1", "plain-2", "batch-1"}) {
    EXPECT_EQ(*queue.Pop(), expected);
  }
}

TEST_F(JobStoreTest, EventStreamReplaysThenFollowsUntilFinished) {
  const std::string id = Create();
  EventHub hub;
  std::string received;
  std::thread producer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(*jobs_->Start(id));
    hub.Publish();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(jobs_->Finish(id, Outcome{}).ok());
    hub.Publish();
  });
  StreamFn stream = MakeEventStream(jobs_.get(), &hub, id, 0, std::chrono::milliseconds(20));
  stream([&](std::string_view chunk) {
    received += chunk;
    return true;
  });
  producer.join();
  const size_t queued = received.find("id: 1\nevent: queued\n");
  const size_t started = received.find("id: 2\nevent: started\ndata: {\"run\":1}\n\n");
  const size_t finished = received.find("id: 3\nevent: finished\n");
  ASSERT_NE(queued, std::string::npos) << received;
  ASSERT_NE(started, std::string::npos) << received;
  ASSERT_NE(finished, std::string::npos) << received;
  EXPECT_LT(queued, started);
  EXPECT_LT(started, finished);
  EXPECT_EQ(received.rfind("retry: 2000\n\n", 0), 0u);
}

TEST_F(JobStoreTest, EventStreamResumesAfterAnEventAndEndsForAFinishedJob) {
  const std::string id = Create();
  ASSERT_TRUE(*jobs_->Start(id));
  ASSERT_TRUE(jobs_->Finish(id, Outcome{}).ok());
  EventHub hub;
  std::string received;
  MakeEventStream(jobs_.get(), &hub, id, 2)([&](std::string_view chunk) {
    received += chunk;
    return true;
  });
  EXPECT_EQ(received.find("event: queued"), std::string::npos);
  EXPECT_NE(received.find("id: 3\nevent: finished"), std::string::npos);
  received.clear();  // resuming after the last event: nothing, and no wait
  MakeEventStream(jobs_.get(), &hub, id, 3)([&](std::string_view chunk) {
    received += chunk;
    return true;
  });
  EXPECT_EQ(received, "retry: 2000\n\n");
}

TEST_F(JobStoreTest, EventStreamEndsWhenTheHubClosesOrTheClientLeaves) {
  const std::string id = Create();
  EventHub hub;
  std::thread closer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    hub.Close();
  });
  int writes = 0;
  MakeEventStream(jobs_.get(), &hub, id, 0)([&](std::string_view) {
    ++writes;
    return true;
  });
  closer.join();
  EXPECT_EQ(writes, 2);  // retry + queued, then the hub closed
  EventHub open;
  writes = 0;
  MakeEventStream(jobs_.get(), &open, id, 0)([&](std::string_view) {
    ++writes;
    return false;  // the client went away at once
  });
  EXPECT_EQ(writes, 1);
}

}  // namespace
}  // namespace cannbot::service
