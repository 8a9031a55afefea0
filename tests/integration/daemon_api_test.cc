// The daemon's HTTP API against the real `cannbot serve` (offline provider, no tokens): every
// endpoint, every bad-input case with the one error shape, a whole job with its events in
// order, and idempotent resubmission. One daemon serves the whole suite.
#include <gtest/gtest.h>

#include "integration/daemon_support.h"

namespace cannbot {
namespace {

using testing::Daemon;
using testing::HttpReply;
using testing::Json;
using testing::KernelText;
using testing::OfflineJob;
using testing::Types;

constexpr int kBodyLimit = 256 * 1024;

class DaemonApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Daemon::Options options;
    options.config_toml = "[server]\nmax_body_bytes = " + std::to_string(kBodyLimit) +
                          "\nworkers = 2\n";
    daemon_ = new Daemon(options);
    ASSERT_TRUE(daemon_->Start()) << daemon_->Log();
  }
  static void TearDownTestSuite() {
    if (daemon_) {
      auto exit = daemon_->Terminate();
      EXPECT_TRUE(exit && exit->Success()) << daemon_->Log();
    }
    delete daemon_;
    daemon_ = nullptr;
  }

  // The one error shape with this status and code.
  static void ExpectError(const HttpReply& r, int status, const std::string& code) {
    EXPECT_EQ(r.status, status) << r.body;
    Json body = r.json();
    ASSERT_TRUE(body.is_object()) << r.body;
    ASSERT_TRUE(body.contains("error")) << r.body;
    EXPECT_EQ(body.size(), 1u) << r.body;
    EXPECT_EQ(body["error"]["code"], code) << r.body;
    EXPECT_TRUE(body["error"]["message"].is_string()) << r.body;
    EXPECT_FALSE(body["error"]["message"].get<std::string>().empty());
  }

  static Daemon* daemon_;
};

Daemon* DaemonApiTest::daemon_ = nullptr;

TEST_F(DaemonApiTest, HealthzIsReadyOffline) {
  HttpReply r = daemon_->Get("/healthz");
  ASSERT_EQ(r.status, 200) << r.body;
  Json h = r.json();
  EXPECT_EQ(h["status"], "ok");
  EXPECT_EQ(h["ready"], true);
  EXPECT_EQ(h["store"], "open");
  EXPECT_EQ(h["llm"], "offline");
  EXPECT_EQ(h["workers"], 2);
  EXPECT_FALSE(r.header("X-Request-Id").empty());
}

TEST_F(DaemonApiTest, RequestIdsAreEchoedAndLogged) {
  HttpReply r = daemon_->Get("/ops", {{"X-Request-Id", "test-req-42"}});
  EXPECT_EQ(r.header("X-Request-Id"), "test-req-42");
  HttpReply odd = daemon_->Get("/ops", {{"X-Request-Id", "bad id with spaces"}});
  EXPECT_NE(odd.header("X-Request-Id"), "bad id with spaces");
  EXPECT_EQ(odd.header("X-Request-Id").size(), 16u);
  EXPECT_NE(daemon_->Log().find("req=test-req-42 GET /ops -> 200"), std::string::npos);
}

TEST_F(DaemonApiTest, OpsAndOneOp) {
  HttpReply all = daemon_->Get("/ops");
  ASSERT_EQ(all.status, 200);
  Json ops = all.json()["ops"];
  ASSERT_GE(ops.size(), 13u);
  bool relu = false;
  for (const Json& op : ops) {
    if (op["name"] == "relu") {
      relu = true;
      EXPECT_EQ(op["signature"], "void relu(const float* x, float* y, int64_t n)");
    }
  }
  EXPECT_TRUE(relu);
  HttpReply one = daemon_->Get("/ops/softmax");
  ASSERT_EQ(one.status, 200);
  Json softmax = one.json();
  EXPECT_EQ(softmax["name"], "softmax");
  EXPECT_FALSE(softmax["shapes"].empty());
  EXPECT_NE(softmax["reference_source"].get<std::string>().find("softmax"), std::string::npos);
  ExpectError(daemon_->Get("/ops/nonesuch"), 404, "not_found");
}

TEST_F(DaemonApiTest, SkillsListsRecipes) {
  HttpReply r = daemon_->Get("/skills");
  ASSERT_EQ(r.status, 200);
  bool vectorize = false;
  const Json skills = r.json()["skills"];
  for (const Json& s : skills) {
    if (s["name"] == "vectorize-simd") {
      vectorize = true;
      EXPECT_FALSE(s["recipes"].empty());
    }
    EXPECT_FALSE(s.contains("directory"));  // no server paths in answers
  }
  EXPECT_TRUE(vectorize);
}

TEST_F(DaemonApiTest, UnknownRoutesAndMethods) {
  ExpectError(daemon_->Get("/nope"), 404, "route_not_found");
  ExpectError(daemon_->Get("/jobs/x/y/z"), 404, "route_not_found");
  HttpReply r = daemon_->Delete("/ops");
  ExpectError(r, 405, "method_not_allowed");
  EXPECT_EQ(r.header("Allow"), "GET");
  ExpectError(daemon_->Post("/healthz", "{}"), 405, "method_not_allowed");
}

TEST_F(DaemonApiTest, OptimizeBadInputAnswersTheRightErrors) {
  const Json jobs_before = daemon_->Get("/jobs").json()["count"];
  ExpectError(daemon_->Post("/optimize", "{\"op\": \"relu\", "), 400, "invalid_json");
  ExpectError(daemon_->Post("/optimize", "[1, 2]"), 400, "invalid_json");
  ExpectError(daemon_->Post("/optimize", ""), 400, "invalid_json");
  ExpectError(daemon_->PostJson("/optimize", {{"op", "relu"}}), 400, "invalid_argument");
  ExpectError(daemon_->PostJson("/optimize", {{"source", "x"}}), 400, "invalid_argument");
  ExpectError(daemon_->PostJson("/optimize", {{"op", 5}, {"source", "x"}}), 400,
              "invalid_argument");
  ExpectError(daemon_->PostJson("/optimize", {{"op", "relu"}, {"source", "x"}, {"color", 1}}),
              400, "invalid_argument");
  ExpectError(daemon_->PostJson("/optimize", {{"op", "relu"},
                                              {"source", "x"},
                                              {"options", {{"samples", "many"}}}}),
              400, "invalid_argument");
  ExpectError(daemon_->PostJson("/optimize", {{"op", "rleu"}, {"source", "x"}}), 400,
              "unknown_op");
  ExpectError(daemon_->PostJson("/optimize", {{"op", "relu"}, {"source", "x"},
                                              {"profile_format", "vtune"}}),
              400, "invalid_argument");
  ExpectError(daemon_->PostJson("/optimize", {{"op", "relu"}, {"source", "x"}, {"profile", 42}}),
              400, "invalid_argument");  // a profile is text
  ExpectError(daemon_->PostJson("/optimize", {{"op", "relu"}, {"source", "x"}, {"profile", ""}}),
              400, "invalid_argument");  // present but empty
  for (const char* bad : {"bad/garbage.bin", "bad/header_only.csv", "bad/unknown_format.txt",
                          "bad/truncated_timeline.json"}) {
    auto text = ReadFile(testing::Fixture(std::string("profiles/") + bad));
    ASSERT_TRUE(text.ok()) << bad;
    Json body = {{"op", "relu"}, {"source", "x"}};
    body["profile"] = std::string(text->begin(), text->end());
    HttpReply r = daemon_->Post("/optimize", body.dump(-1, ' ', false, Json::error_handler_t::replace));
    ExpectError(r, 400, "bad_profile");
  }
  ExpectError(daemon_->Post("/optimize", OfflineJob("relu").dump(), {}, "text/plain"), 415,
              "unsupported_media_type");
  ExpectError(daemon_->Post("/optimize", OfflineJob("relu").dump(), {}, "application/xml"), 415,
              "unsupported_media_type");
  Json huge = OfflineJob("relu");
  huge["source"] = std::string(kBodyLimit + 1024, ' ');
  ExpectError(daemon_->PostJson("/optimize", huge), 413, "payload_too_large");
  ExpectError(daemon_->PostJson("/optimize?wait=perhaps", OfflineJob("relu")), 400,
              "invalid_argument");
  ExpectError(daemon_->PostJson("/optimize", OfflineJob("relu"),
                                {{"Idempotency-Key", std::string(300, 'k')}}),
              400, "invalid_argument");
  ExpectError(daemon_->PostJson("/optimize", {{"op", "relu"},
                                              {"source", "x"},
                                              {"options", {{"llm", {{"url", "http://10.0.0.1/v1"},
                                                                    {"model", "m"}}}}}}),
              400, "invalid_argument");  // not an LLM server this daemon may call
  // Nothing above created a job.
  EXPECT_EQ(daemon_->Get("/jobs").json()["count"], jobs_before);
}

TEST_F(DaemonApiTest, JobsBadInput) {
  ExpectError(daemon_->Get("/jobs?state=done"), 400, "invalid_argument");
  ExpectError(daemon_->Get("/jobs?limit=-1"), 400, "invalid_argument");
  ExpectError(daemon_->Get("/jobs?limit=ten"), 400, "invalid_argument");
  ExpectError(daemon_->Get("/jobs/j-0000000000000000"), 404, "not_found");
  ExpectError(daemon_->Delete("/jobs/j-0000000000000000"), 404, "not_found");
  ExpectError(daemon_->Get("/jobs/j-0000000000000000/events"), 404, "not_found");
}

TEST_F(DaemonApiTest, ValidateGivesTheVerdictJson) {
  // A candidate that does not compile is rejected at the first layer (quickly).
  HttpReply r = daemon_->PostJson(
      "/validate", {{"op", "relu"}, {"candidate", "extern \"C\" void relu(const float* x, "
                                                  "float* y, long n) { y[0] = undeclared; }"}});
  ASSERT_EQ(r.status, 200) << r.body;
  Json v = r.json();
  EXPECT_EQ(v["verdict"], "rejected");
  EXPECT_EQ(v["layer"], "compile");
  EXPECT_TRUE(v["reason"].is_string());
  EXPECT_TRUE(v.contains("compile"));
  EXPECT_TRUE(v["numeric"].is_null());
  EXPECT_TRUE(v["perf"].is_null());
  // A wrong kernel fails the numeric layer.
  HttpReply wrong = daemon_->PostJson(
      "/validate", {{"op", "relu"},
                    {"candidate", "#include <cstdint>\nextern \"C\" void relu(const float* x, "
                                  "float* y, int64_t n) { for (int64_t i = 0; i < n; ++i) "
                                  "y[i] = x[i]; }"},
                    {"seed", 3}});
  ASSERT_EQ(wrong.status, 200) << wrong.body;
  EXPECT_EQ(wrong.json()["layer"], "numeric");
  ExpectError(daemon_->PostJson("/validate", {{"op", "relu"}}), 400, "invalid_argument");
  ExpectError(daemon_->PostJson("/validate", {{"op", "nope"}, {"candidate", "x"}}), 400,
              "unknown_op");
  ExpectError(daemon_->Post("/validate", "{nope"), 400, "invalid_json");
  ExpectError(daemon_->Post("/validate", "{}", {}, "text/plain"), 415, "unsupported_media_type");
}

// An Ascend C operator package as files in the request: the example, with its OpDef cut to
// fp32 (one combination: one build), checked through the compile and numeric layers.
TEST_F(DaemonApiTest, ValidateTakesAnOperatorPackage) {
  Json files = Json::object();
  for (const char* name : {"op_host/add_custom.cpp", "op_host/add_custom_tiling.h",
                           "op_kernel/add_custom.cpp"}) {
    auto text = ReadFile(testing::SourcePath(std::string("examples/ascendc/packages/"
                                                         "add_custom_fast/") + name));
    ASSERT_TRUE(text.ok()) << name;
    std::string t = *text;
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"{ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16, ge::DT_INT32}",
                                              "{ge::DT_FLOAT}"},
          {"{ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND, ge::FORMAT_ND}", "{ge::FORMAT_ND}"}}) {
      for (size_t at; (at = t.find(from)) != std::string::npos;) t.replace(at, from.size(), to);
    }
    files[name] = t;
  }
  HttpReply r = daemon_->PostJson("/validate", {{"op", "add"}, {"package", {{"files", files}}}});
  ASSERT_EQ(r.status, 200) << r.body;
  Json report = r.json();
  EXPECT_EQ(report["ok"], true) << r.body;
  EXPECT_EQ(report["op_type"], "AddCustom");
  ASSERT_EQ(report["combinations"].size(), 1u) << r.body;
  EXPECT_EQ(report["combinations"][0]["dtypes"], "x=float32 y=float32 z=float32");
  EXPECT_EQ(report["combinations"][0]["check"]["ok"], true);

  Json escaping = files;
  escaping["../op_host/evil.cpp"] = "int x;";
  ExpectError(daemon_->PostJson("/validate", {{"op", "add"}, {"package", {{"files", escaping}}}}),
              400, "invalid_argument");
  ExpectError(daemon_->PostJson("/validate", {{"op", "add"}, {"package", 5}}), 400,
              "invalid_argument");
  ExpectError(daemon_->PostJson("/validate", {{"op", "add"},
                                              {"candidate", "x"},
                                              {"package", {{"files", files}}}}),
              400, "invalid_argument");
}

TEST_F(DaemonApiTest, DiagnoseAProfile) {
  auto text = ReadFile(testing::Fixture("profiles/msprof/op_summary_swish_serialized.csv"));
  ASSERT_TRUE(text.ok());
  HttpReply r = daemon_->PostJson("/diagnose", {{"profile", *text}});
  ASSERT_EQ(r.status, 200) << r.body;
  Json d = r.json();
  EXPECT_TRUE(d["profile"].is_object());
  EXPECT_TRUE(d["diagnosis"].is_object());
  EXPECT_FALSE(d["diagnosis"]["kernel"].get<std::string>().empty());
  auto garbage = ReadFile(testing::Fixture("profiles/bad/header_only.csv"));
  ExpectError(daemon_->PostJson("/diagnose", {{"profile", *garbage}}), 400, "bad_profile");
  ExpectError(daemon_->PostJson("/diagnose", {{"profile", *text}, {"kernel", "no-such-kernel"}}),
              400, "bad_profile");
  ExpectError(daemon_->PostJson("/diagnose", {{"profile", *text}, {"profile_format", "vtune"}}),
              400, "invalid_argument");
  ExpectError(daemon_->PostJson("/diagnose", {{"format", "msprof"}}), 400, "invalid_argument");
}

TEST_F(DaemonApiTest, AJobRunsToAReportWithItsEventsInOrder) {
  const std::string key = "api-test-relu-1";
  HttpReply submitted =
      daemon_->PostJson("/optimize?wait=true", OfflineJob("relu"), {{"Idempotency-Key", key}});
  ASSERT_EQ(submitted.status, 200) << submitted.body << daemon_->Log();
  Json job = submitted.json();
  const std::string id = job["job_id"];
  EXPECT_EQ(job["status"], "succeeded") << job.dump(2);
  EXPECT_EQ(job["runs"], 1);
  EXPECT_EQ(submitted.header("Location"), "/jobs/" + id);
  ASSERT_TRUE(job["report"].is_object());
  EXPECT_EQ(job["report"]["op"], "relu");
  EXPECT_EQ(job["report"]["kernel_check"]["ok"], true);
  EXPECT_EQ(job["found"], job["report"]["found"]);
  EXPECT_NE(job["report_text"].get<std::string>().find("RESULT:"), std::string::npos);
  ASSERT_FALSE(job["attempts"].empty());
  EXPECT_EQ(job["attempts"].size(), job["report"]["attempts"].size());
  if (job["found"] == true) {
    EXPECT_NE(job["report"]["kernel"].get<std::string>().find("relu"), std::string::npos);
  }

  // The stored events, replayed: queued, started, then per attempt, then finished, numbered
  // 1, 2, 3, ... without gaps.
  std::vector<testing::SseEvent> events = daemon_->Events(id);
  std::vector<std::string> types = Types(events);
  ASSERT_GE(types.size(), 5u);
  EXPECT_EQ(types.front(), "queued");
  EXPECT_EQ(types[1], "started");
  EXPECT_EQ(types[2], "asking");
  EXPECT_EQ(types.back(), "finished");
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].id, static_cast<int64_t>(i + 1));
  size_t attempts = 0;
  for (const testing::SseEvent& e : events) {
    if (e.type == "attempt") {
      EXPECT_EQ(e.data["index"], attempts);
      EXPECT_TRUE(e.data["text"].is_string());
      ++attempts;
    }
  }
  EXPECT_EQ(attempts, job["attempts"].size());
  EXPECT_EQ(events.back().data["status"], "succeeded");
  // Resuming after an event replays only what came after it.
  std::vector<testing::SseEvent> tail = daemon_->Events(id, events.size() - 1);
  ASSERT_EQ(tail.size(), 1u);
  EXPECT_EQ(tail[0].type, "finished");
  HttpReply raw = daemon_->Get("/jobs/" + id + "/events?after=1");
  EXPECT_EQ(raw.status, 200);
  EXPECT_EQ(raw.header("Content-Type"), "text/event-stream");
  EXPECT_EQ(raw.body.find("event: queued"), std::string::npos);
  EXPECT_NE(raw.body.find("id: 2\nevent: started\n"), std::string::npos);

  // Idempotency: the same key and body is the same job; another body is a conflict.
  HttpReply again = daemon_->PostJson("/optimize", OfflineJob("relu"), {{"Idempotency-Key", key}});
  EXPECT_EQ(again.status, 202) << again.body;
  EXPECT_EQ(again.json()["job_id"], id);
  EXPECT_EQ(again.json()["status"], "succeeded");  // where the original stands now
  EXPECT_EQ(again.header("Idempotent-Replayed"), "true");
  HttpReply waited = daemon_->PostJson("/optimize?wait=true", OfflineJob("relu"),
                                       {{"Idempotency-Key", key}});
  EXPECT_EQ(waited.status, 200);
  EXPECT_EQ(waited.json()["job_id"], id);
  ExpectError(daemon_->PostJson("/optimize", OfflineJob("add"), {{"Idempotency-Key", key}}), 422,
              "idempotency_conflict");

  // Listed, filterable; a finished job cannot be cancelled.
  Json list = daemon_->Get("/jobs?state=succeeded&limit=5").json();
  ASSERT_GE(list["count"].get<int>(), 1);
  EXPECT_EQ(list["jobs"][0]["job_id"], id);
  ExpectError(daemon_->Delete("/jobs/" + id), 409, "conflict");

  // The metrics saw it.
  HttpReply metrics = daemon_->Get("/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.header("Content-Type").find("text/plain"), std::string::npos);
  // (Counts depend on which tests ran before in this process: names and labels only.)
  for (const char* line : {"cannbot_jobs{state=\"succeeded\"} ", "cannbot_jobs{state=\"queued\"} ",
                           "cannbot_queue_depth ", "cannbot_jobs_submitted_total ",
                           "# TYPE cannbot_attempts_total counter", "cannbot_validation_seconds_count ",
                           "# TYPE cannbot_llm_request_seconds histogram",
                           "cannbot_job_seconds_bucket{state=\"succeeded\",le=\"+Inf\"} ",
                           "cannbot_http_requests_total{code=\"200\"} "}) {
    EXPECT_NE(metrics.body.find(line), std::string::npos) << line << "\n" << metrics.body;
  }
}

TEST_F(DaemonApiTest, AKernelThatIsWrongFailsItsJobWithAReport) {
  Json body = OfflineJob("relu");
  body["source"] = "#include <cstdint>\nextern \"C\" void relu(const float* x, float* y, int64_t n) "
                   "{ for (int64_t i = 0; i < n; ++i) y[i] = -x[i]; }\n";
  HttpReply r = daemon_->PostJson("/optimize?wait=1", body);
  ASSERT_EQ(r.status, 200) << r.body;
  Json job = r.json();
  EXPECT_EQ(job["status"], "failed");
  EXPECT_EQ(job["error"]["code"], "kernel_check_failed");
  EXPECT_EQ(job["report"]["kernel_check"]["ok"], false);
  EXPECT_EQ(job["report"]["kernel_check"]["layer"], "numeric");
}

TEST_F(DaemonApiTest, CancellingAQueuedJob) {
  // Two jobs occupy both workers; the third waits and is cancelled while queued.
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    HttpReply r = daemon_->PostJson("/optimize", OfflineJob(i == 1 ? "add" : "relu"));
    ASSERT_EQ(r.status, 202) << r.body;
    ids.push_back(r.json()["job_id"]);
  }
  HttpReply cancelled = daemon_->Delete("/jobs/" + ids[2]);
  if (cancelled.status == 200) {
    EXPECT_EQ(cancelled.json()["status"], "cancelled");
    EXPECT_EQ(cancelled.json()["error"]["code"], "cancelled");
    std::vector<testing::SseEvent> events = daemon_->Events(ids[2]);
    EXPECT_EQ(Types(events), (std::vector<std::string>{"queued", "finished"}));
  } else {  // a worker took it first: it stops before its next validation
    EXPECT_EQ(cancelled.status, 202) << cancelled.body;
    daemon_->WaitFor(ids[2], {"cancelled", "succeeded"});
  }
  // The running ones are told to stop: they end cancelled (or succeeded, if they were done).
  for (const std::string& id : {ids[0], ids[1]}) {
    HttpReply r = daemon_->Delete("/jobs/" + id);
    EXPECT_TRUE(r.status == 202 || r.status == 409 || r.status == 200) << r.body;
    Json job = daemon_->WaitFor(id, {"cancelled", "succeeded"});
    if (job["status"] == "cancelled") {
      EXPECT_EQ(job["error"]["code"], "cancelled");
    }
  }
}

}  // namespace
}  // namespace cannbot
