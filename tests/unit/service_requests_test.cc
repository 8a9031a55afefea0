// Strict parsing of the daemon's request bodies (service/requests.h) and the stored form of
// a job (service/job.h): every field, every bad-input case, and the round trip.
#include "cannbot/service/requests.h"
#include "cannbot/target/registry.h"

#include <gtest/gtest.h>
#include "unit_support.h"

namespace cannbot::service {
namespace {

using Json = nlohmann::json;

using cannbot::test::Contains;

Json Minimal() { return {{"op", "relu"}, {"source", "extern \"C\" void relu() {}"}}; }

std::string ErrorOf(const Json& body) {
  auto spec = ParseJobSpec(body);
  EXPECT_FALSE(spec.ok()) << body.dump();
  return spec.ok() ? "" : spec.status().message();
}

TEST(ServiceRequestsTest, BodyMustBeAJsonObject) {
  EXPECT_TRUE(ParseBody("{\"op\": 1}").ok());
  EXPECT_EQ(ParseBody("{\"op\": ").status().code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(Contains(ParseBody("").status().message(), "not valid JSON"));
  EXPECT_TRUE(Contains(ParseBody("[1, 2]").status().message(), "not a JSON object"));
  EXPECT_TRUE(Contains(ParseBody("\"text\"").status().message(), "not a JSON object"));
}

TEST(ServiceRequestsTest, MinimalJobHasDefaults) {
  auto spec = ParseJobSpec(Minimal());
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->op, "relu");
  EXPECT_EQ(spec->name, "kernel.cpp");
  EXPECT_EQ(spec->target, &target::Default());
  EXPECT_EQ(spec->profile_format, profile::Format::kAuto);
  EXPECT_TRUE(spec->profile.empty());
  EXPECT_FALSE(spec->options.samples.has_value());
  EXPECT_FALSE(spec->options.llm.has_value());
}

TEST(ServiceRequestsTest, EveryFieldAndOptionIsRead) {
  Json body = Minimal();
  body["name"] = "naive.cpp";
  body["profile"] = "Op Name,Task Duration(us)\nrelu,12\n";
  body["profile_format"] = "msprof";
  body["profile_kernel"] = "relu";
  body["target"] = "cpu";
  body["options"] = {{"samples", 2},       {"rounds", 0},   {"budget", 5},
                     {"min_speedup", 1.2}, {"seed", 7},     {"time_budget_seconds", 60},
                     {"llm", {{"url", "http://127.0.0.1:8000/v1"}, {"model", "m"}}}};
  auto spec = ParseJobSpec(body);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->name, "naive.cpp");
  EXPECT_EQ(spec->profile_format, profile::Format::kMsprof);
  EXPECT_EQ(spec->profile_kernel, "relu");
  EXPECT_EQ(*spec->options.samples, 2);
  EXPECT_EQ(*spec->options.rounds, 0);
  EXPECT_EQ(*spec->options.budget, 5);
  EXPECT_DOUBLE_EQ(*spec->options.min_speedup, 1.2);
  EXPECT_EQ(*spec->options.seed, 7u);
  EXPECT_DOUBLE_EQ(*spec->options.time_budget_seconds, 60);
  EXPECT_FALSE(spec->options.llm->offline);
  EXPECT_EQ(spec->options.llm->url, "http://127.0.0.1:8000/v1");
  EXPECT_EQ(spec->options.llm->model, "m");
  // The stored form reads back to the same request.
  auto again = ParseJobSpec(spec->ToJson());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->ToJson(), spec->ToJson());
}

TEST(ServiceRequestsTest, OfflineIsAStringChoice) {
  Json body = Minimal();
  body["options"] = {{"llm", "offline"}};
  auto spec = ParseJobSpec(body);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_TRUE(spec->options.llm->offline);
  EXPECT_EQ(spec->ToJson()["options"]["llm"], "offline");
  body["options"] = {{"llm", "online"}};
  EXPECT_TRUE(Contains(ErrorOf(body), "options.llm"));
}

TEST(ServiceRequestsTest, MissingAndWrongTypedFieldsAreNamed) {
  EXPECT_TRUE(Contains(ErrorOf({{"source", "x"}}), "missing field 'op'"));
  EXPECT_TRUE(Contains(ErrorOf({{"op", "relu"}}), "missing field 'source'"));
  EXPECT_TRUE(Contains(ErrorOf({{"op", 3}, {"source", "x"}}), "'op' must be a string"));
  EXPECT_TRUE(Contains(ErrorOf({{"op", "relu"}, {"source", ""}}), "'source' is empty"));
  Json body = Minimal();
  body["options"] = 5;
  EXPECT_TRUE(Contains(ErrorOf(body), "'options' must be an object"));
  body["options"] = {{"samples", "4"}};
  EXPECT_TRUE(Contains(ErrorOf(body), "'options.samples' must be an integer from 1 to 16"));
  body["options"] = {{"samples", 2.5}};
  EXPECT_TRUE(Contains(ErrorOf(body), "'options.samples'"));
  body["options"] = {{"rounds", -1}};
  EXPECT_TRUE(Contains(ErrorOf(body), "'options.rounds'"));
  body["options"] = {{"min_speedup", 0}};
  EXPECT_TRUE(Contains(ErrorOf(body), "'options.min_speedup' must be a number above 0"));
  body["options"] = {{"seed", -3}};
  EXPECT_TRUE(Contains(ErrorOf(body), "'options.seed' must be a non-negative integer"));
  body["options"] = {{"llm", {{"url", 5}}}};
  EXPECT_TRUE(Contains(ErrorOf(body), "'options.llm.url' must be a string"));
}

TEST(ServiceRequestsTest, UnknownFieldsAreErrorsNotIgnored) {
  Json body = Minimal();
  body["sorce"] = "typo";
  EXPECT_TRUE(Contains(ErrorOf(body), "unknown field 'sorce'"));
  body = Minimal();
  body["options"] = {{"sample", 4}};
  EXPECT_TRUE(Contains(ErrorOf(body), "unknown field 'options.sample'"));
  body["options"] = {{"llm", {{"key", "secret"}}}};
  EXPECT_TRUE(Contains(ErrorOf(body), "unknown field 'options.llm.key'"));
}

TEST(ServiceRequestsTest, RegisteredTargetsAndRelativeNamesOnly) {
  Json body = Minimal();
  body["target"] = "ascendc";
  auto ascendc = ParseJobSpec(body);
  ASSERT_TRUE(ascendc.ok()) << ascendc.status().ToString();
  EXPECT_EQ(ascendc->target->name(), "ascendc");
  body["target"] = "cuda";
  EXPECT_TRUE(Contains(ErrorOf(body), "field 'target' must be one of: cpu, ascendc (got \"cuda\")"));
  body = Minimal();
  body["profile"] = "x";
  body["profile_format"] = "nsys";
  EXPECT_TRUE(Contains(ErrorOf(body), "field 'profile_format'"));
  for (const char* bad : {"../../etc/passwd", "/etc/passwd", "ops/../../x", "a\\b", "ops/.."}) {
    body = Minimal();
    body["name"] = bad;
    EXPECT_TRUE(Contains(ErrorOf(body), "plain file name or a relative path")) << bad;
  }
  body = Minimal();
  body["name"] = "ops/relu/naive.cpp";  // a repository path labels the diff
  auto named = ParseJobSpec(body);
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->name, "ops/relu/naive.cpp");
}

TEST(ServiceRequestsTest, SourcesOverTheLimitAreRefused) {
  Json body = Minimal();
  body["source"] = std::string(kMaxSourceBytes + 1, 'x');
  EXPECT_TRUE(Contains(ErrorOf(body), "longer than"));
}

TEST(ServiceRequestsTest, ValidateRequest) {
  auto ok = ParseValidateRequest({{"op", "add"}, {"candidate", "c"}, {"baseline", "b"},
                                  {"seed", 3}, {"min_speedup", 1.1}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok->baseline, "b");
  EXPECT_EQ(*ok->seed, 3u);
  EXPECT_DOUBLE_EQ(*ok->min_speedup, 1.1);
  EXPECT_FALSE(ParseValidateRequest({{"op", "add"}}).ok());
  EXPECT_TRUE(Contains(ParseValidateRequest({{"op", "add"}, {"source", "c"}}).status().message(),
                       "unknown field 'source'"));
}

TEST(ServiceRequestsTest, ValidateRequestWithAnOperatorPackage) {
  const Json files = {{"op_host/a.cpp", "h"}, {"op_kernel/a.cpp", "k"}};
  auto ok = ParseValidateRequest({{"op", "add"},
                                  {"package", {{"files", files}}},
                                  {"baseline_package", {{"files", files}}}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  ASSERT_TRUE(ok->package.has_value());
  EXPECT_EQ(ok->package->size(), 2u);
  EXPECT_TRUE(ok->baseline_package.has_value());
  EXPECT_EQ(ok->package_operator, "");
  auto named = ParseValidateRequest({{"op", "add"},
                                     {"package", {{"files", files}, {"operator", "AddCustom"}}},
                                     {"baseline_package", {{"files", files}, {"operator", "b"}}}});
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ(named->package_operator, "AddCustom");
  EXPECT_EQ(named->baseline_package_operator, "b");
  EXPECT_TRUE(ok->candidate.empty());
  EXPECT_TRUE(Contains(ParseValidateRequest({{"op", "add"}, {"package", files}}).status().message(),
                       "must be {\"files\""));
  EXPECT_TRUE(Contains(ParseValidateRequest({{"op", "add"},
                                             {"package", {{"files", {{"op_host/a.cpp", 1}}}}}})
                           .status()
                           .message(),
                       "is not a string"));
  EXPECT_TRUE(Contains(ParseValidateRequest({{"op", "add"},
                                             {"candidate", "c"},
                                             {"package", {{"files", files}}}})
                           .status()
                           .message(),
                       "not both"));
  EXPECT_TRUE(Contains(
      ParseValidateRequest({{"op", "add"}, {"candidate", "c"}, {"baseline_package", {{"files", files}}}})
          .status()
          .message(),
      "goes with 'package'"));
}

TEST(ServiceRequestsTest, DiagnoseRequest) {
  auto ok = ParseDiagnoseRequest({{"profile", "p"}, {"device", "Ascend910B3"}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->format, profile::Format::kAuto);
  EXPECT_EQ(ok->device, "Ascend910B3");
  EXPECT_TRUE(Contains(ParseDiagnoseRequest(Json::object()).status().message(),
                       "missing field 'profile'"));
}

TEST(ServiceJobTest, StatesRoundTrip) {
  for (JobState s : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
                     JobState::kFailed, JobState::kCancelled}) {
    EXPECT_EQ(ParseState(StateName(s)), s);
  }
  EXPECT_FALSE(ParseState("done").has_value());
  EXPECT_FALSE(IsFinished(JobState::kRunning));
  EXPECT_TRUE(IsFinished(JobState::kCancelled));
}

}  // namespace
}  // namespace cannbot::service
