// UsageMeter adds up the `usage` OpenAI-compatible servers report, and says when they
// reported none.
#include "cannbot/llm/usage_meter.h"

#include <gtest/gtest.h>

namespace cannbot::llm {
namespace {

// Answers every request with the next scripted response.
class ScriptedHttp : public HttpClient {
 public:
  explicit ScriptedHttp(std::vector<HttpResponse> responses) : responses_(std::move(responses)) {}
  Result<HttpResponse> Send(const HttpRequest&) override {
    if (next_ >= responses_.size()) return Status::Unavailable("cannot connect");
    return responses_[next_++];
  }

 private:
  std::vector<HttpResponse> responses_;
  size_t next_ = 0;
};

TEST(UsageMeterTest, AddsUpReportedUsageAndCountsAnswersWithout) {
  ScriptedHttp http({
      {200, {}, R"({"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}})"},
      {200, {}, R"({"choices":[]})"},
      {500, {}, R"({"usage":{"prompt_tokens":999}})"},  // an error's body is not usage
      {200, {}, R"({"usage":{"prompt_tokens":5,"completion_tokens":1}})"},  // no total: the sum
  });
  UsageMeter meter(&http);
  const TokenCount start = meter.Read();
  for (int i = 0; i < 5; ++i) (void)meter.Send(HttpRequest{});
  const TokenCount used = meter.Read().Minus(start);
  EXPECT_EQ(used.prompt, 105);
  EXPECT_EQ(used.completion, 21);
  EXPECT_EQ(used.total, 126);
  EXPECT_EQ(used.answers, 3);
  EXPECT_EQ(used.answers_with_usage, 2);
  TokenCount parsed;
  EXPECT_FALSE(ParseUsage("not json", &parsed));
  EXPECT_FALSE(ParseUsage(R"({"usage": 3})", &parsed));
}

}  // namespace
}  // namespace cannbot::llm
