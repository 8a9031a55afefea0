// ChatClient (llm/chat_client.h) over the real libcurl client against a scripted
// OpenAI-compatible server on loopback: samples and `n`, retries with backoff and Retry-After,
// errors that must not be retried, malformed answers, timeouts, unreachable servers, and the
// API key.
#include "cannbot/llm/chat_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "integration/fake_llm_server.h"

namespace cannbot::llm {
namespace {

using testing::Chat;
using testing::FakeLlmServer;
using testing::ScriptedReply;
using Clock = std::chrono::steady_clock;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Sets an environment variable for the scope of a test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    const char* old = std::getenv(name_.c_str());
    if (old) old_ = old;
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// Fast settings: short backoff so retries cost milliseconds; no key from the developer's
// environment leaks into the requests.
LlmConfig TestConfig(const std::string& base_url) {
  LlmConfig config;
  config.base_url = base_url;
  config.model = "test-model";
  config.api_key_env = "CANNBOT_CHAT_CLIENT_TEST_NO_SUCH_KEY";
  config.connect_timeout = std::chrono::milliseconds(2000);
  config.request_timeout = std::chrono::milliseconds(10000);
  config.max_retries = 3;
  config.initial_backoff = std::chrono::milliseconds(10);
  config.max_backoff = std::chrono::milliseconds(5000);
  return config;
}

const std::vector<ChatMessage> kMessages = {{"system", "You write kernels."},
                                            {"user", "Make swish faster."}};

ScriptedReply Reply(int status, const std::string& body,
                    std::vector<std::pair<std::string, std::string>> headers = {},
                    std::chrono::milliseconds delay = std::chrono::milliseconds(0)) {
  return {status, body, std::move(headers), delay};
}

std::string OpenAiError(const std::string& message, const std::string& type) {
  return nlohmann::json{{"error", {{"message", message}, {"type", type}, {"code", nullptr}}}}.dump();
}

class ChatClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The client falls back to OPENAI_API_KEY; keep the developer's own key out of the tests.
    openai_key_ = std::make_unique<ScopedEnv>("OPENAI_API_KEY", std::nullopt);
    http_ = NewCurlHttpClient();
  }

  std::unique_ptr<ScopedEnv> openai_key_;
  std::unique_ptr<HttpClient> http_;
};

TEST_F(ChatClientTest, NormalAnswerWithNChoices) {
  FakeLlmServer server;
  server.Push(Chat({"first", "second", "third"}));
  ChatClient client(TestConfig(server.base_url()), http_.get());
  auto got = client.Complete(kMessages, 3);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->choices, (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_EQ(got->requests, 1);

  // What went over the wire: an OpenAI chat-completions request.
  const std::vector<std::string> requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  nlohmann::json body = nlohmann::json::parse(requests[0]);
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["n"], 3);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.2);
  EXPECT_EQ(body["max_tokens"], 4096);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][0]["content"], "You write kernels.");
  EXPECT_EQ(body["messages"][1]["role"], "user");
  EXPECT_EQ(body["messages"][1]["content"], "Make swish faster.");
  // No key configured: no Authorization header.
  EXPECT_EQ(server.authorization_headers()[0], "");
}

TEST_F(ChatClientTest, TrailingSlashInBaseUrlIsTolerated) {
  FakeLlmServer server;
  server.Push(Chat({"ok"}));
  ChatClient client(TestConfig(server.base_url() + "/"), http_.get());
  auto got = client.Complete(kMessages, 1);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->choices, (std::vector<std::string>{"ok"}));
}

TEST_F(ChatClientTest, ServerIgnoringNIsToppedUpWithParallelRequests) {
  FakeLlmServer server;
  // Every reply carries one choice whatever `n` was, and takes 500 ms.
  ScriptedReply first = Chat({"answer 1"});
  first.delay = std::chrono::milliseconds(500);
  ScriptedReply rest = Chat({"another answer"});
  rest.delay = std::chrono::milliseconds(500);
  server.Push(first);
  server.Push(rest);
  ChatClient client(TestConfig(server.base_url()), http_.get());
  const auto start = Clock::now();
  auto got = client.Complete(kMessages, 5);
  const double elapsed = SecondsSince(start);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->choices.size(), 5u);
  EXPECT_EQ(got->choices[0], "answer 1");
  for (size_t i = 1; i < 5; ++i) EXPECT_EQ(got->choices[i], "another answer");
  EXPECT_EQ(got->requests, 5);
  const std::vector<std::string> requests = server.requests();
  ASSERT_EQ(requests.size(), 5u);
  EXPECT_EQ(nlohmann::json::parse(requests[0])["n"], 5);
  for (size_t i = 1; i < requests.size(); ++i) {
    EXPECT_EQ(nlohmann::json::parse(requests[i])["n"], 1) << i;
  }
  // One round trip, then the four top-ups side by side: one after the other would take 2.5 s.
  EXPECT_LT(elapsed, 2.2) << "top-up requests were not sent in parallel";
}

TEST_F(ChatClientTest, PartialChoicesAreToppedUpToSamples) {
  FakeLlmServer server;
  server.Push(Chat({"a", "b"}));
  server.Push(Chat({"c"}));
  ChatClient client(TestConfig(server.base_url()), http_.get());
  auto got = client.Complete(kMessages, 4);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->choices, (std::vector<std::string>{"a", "b", "c", "c"}));
  EXPECT_EQ(got->requests, 3);
  EXPECT_EQ(server.requests().size(), 3u);
}

// BUG: Complete() promises "up to `samples` answers", but the cut to `samples` only happens
// inside the top-up branch (chat_client.cc, `if (missing > 0)`): a server that returns more
// choices than the `n` it was sent hands them all back, and the loop validates more candidates
// than --samples asked for.
TEST_F(ChatClientTest, ExtraChoicesAreCutToSamples) {
  FakeLlmServer server;
  server.Push(Chat({"a", "b", "c"}));
  ChatClient client(TestConfig(server.base_url()), http_.get());
  auto got = client.Complete(kMessages, 2);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  // The client asked for n=2; it must not hand back more than that.
  EXPECT_EQ(got->choices.size(), 2u);
}

TEST_F(ChatClientTest, FailedTopUpsStillReturnTheAnswersThereAre) {
  FakeLlmServer server;
  server.Push(Chat({"only one"}));
  server.Push(Reply(400, OpenAiError("bad request", "invalid_request_error")));
  ChatClient client(TestConfig(server.base_url()), http_.get());
  auto got = client.Complete(kMessages, 3);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->choices, (std::vector<std::string>{"only one"}));
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST_F(ChatClientTest, TooManyRequestsHonoursRetryAfter) {
  FakeLlmServer server;
  server.Push(Reply(429, OpenAiError("Rate limit reached", "rate_limit_error"), {{"Retry-After", "1"}}));
  server.Push(Chat({"after the wait"}));
  ChatClient client(TestConfig(server.base_url()), http_.get());  // backoff alone: 10 ms
  const auto start = Clock::now();
  auto got = client.Complete(kMessages, 1);
  const double elapsed = SecondsSince(start);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->choices, (std::vector<std::string>{"after the wait"}));
  EXPECT_EQ(got->requests, 2);
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_GE(elapsed, 0.9) << "Retry-After: 1 was not honoured";
  EXPECT_GE(got->seconds, 0.9);  // the completion's own clock saw the wait too
  EXPECT_LT(elapsed, 5.0);
}

TEST_F(ChatClientTest, ServerErrorsAreRetriedWithBackoff) {
  FakeLlmServer server;
  server.Push(Reply(500, OpenAiError("internal error", "server_error")));
  server.Push(Reply(502, "<html>Bad Gateway</html>"));
  server.Push(Chat({"third time lucky"}));
  ChatClient client(TestConfig(server.base_url()), http_.get());
  auto got = client.Complete(kMessages, 1);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->choices, (std::vector<std::string>{"third time lucky"}));
  EXPECT_EQ(got->requests, 3);
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST_F(ChatClientTest, RetriesExhaustedIsUnavailableWithTheStatus) {
  FakeLlmServer server;
  server.Push(Reply(503, OpenAiError("model is loading", "server_error")));
  LlmConfig config = TestConfig(server.base_url());
  config.max_retries = 2;
  ChatClient client(config, http_.get());
  auto got = client.Complete(kMessages, 2);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Status::Code::kUnavailable);
  EXPECT_TRUE(Contains(got.status().message(), "503")) << got.status().message();
  EXPECT_TRUE(Contains(got.status().message(), "model is loading")) << got.status().message();
  EXPECT_TRUE(Contains(got.status().message(), "3 attempts")) << got.status().message();
  EXPECT_EQ(server.requests().size(), 3u);  // the first try and two retries
}

TEST_F(ChatClientTest, ClientErrorsFailAtOnceWithTheServersMessage) {
  struct Case {
    int status;
    std::string message;
  };
  for (const Case& c : {Case{400, "This model's maximum context length is 8192 tokens"},
                        Case{401, "Incorrect API key provided"},
                        Case{404, "The model `nope` does not exist"}}) {
    FakeLlmServer server;
    server.Push(Reply(c.status, OpenAiError(c.message, "invalid_request_error")));
    server.Push(Chat({"a retry would have got this"}));
    ChatClient client(TestConfig(server.base_url()), http_.get());
    auto got = client.Complete(kMessages, 1);
    ASSERT_FALSE(got.ok()) << c.status;
    EXPECT_EQ(got.status().code(), Status::Code::kInvalidArgument) << c.status;
    EXPECT_TRUE(Contains(got.status().message(), c.message)) << got.status().message();
    EXPECT_TRUE(Contains(got.status().message(), std::to_string(c.status))) << got.status().message();
    EXPECT_EQ(server.requests().size(), 1u) << c.status << " was retried";
  }
}

TEST_F(ChatClientTest, PlainTextErrorBodyIsQuoted) {
  FakeLlmServer server;
  server.Push(Reply(403, "Forbidden: this key may not use the model"));
  ChatClient client(TestConfig(server.base_url()), http_.get());
  auto got = client.Complete(kMessages, 1);
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(Contains(got.status().message(), "this key may not use the model"))
      << got.status().message();
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(ChatClientTest, TruncatedJsonIsRetried) {
  FakeLlmServer server;
  server.Push(Reply(200, R"({"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"hal)"));
  server.Push(Chat({"whole answer"}));
  ChatClient client(TestConfig(server.base_url()), http_.get());
  auto got = client.Complete(kMessages, 1);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->choices, (std::vector<std::string>{"whole answer"}));
  EXPECT_EQ(got->requests, 2);
}

TEST_F(ChatClientTest, PersistentTruncatedJsonEndsInAClearError) {
  FakeLlmServer server;
  server.Push(Reply(200, R"({"choices":[{"message":{"content":"cut)"));
  LlmConfig config = TestConfig(server.base_url());
  config.max_retries = 2;
  ChatClient client(config, http_.get());
  auto got = client.Complete(kMessages, 1);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Status::Code::kUnavailable);
  EXPECT_TRUE(Contains(got.status().message(), "malformed JSON")) << got.status().message();
  EXPECT_EQ(server.requests().size(), 3u);
}

TEST_F(ChatClientTest, EmptyChoicesIsRetried) {
  FakeLlmServer server;
  server.Push(Reply(200, R"({"id":"x","object":"chat.completion","choices":[]})"));
  server.Push(Chat({"now with a choice"}));
  ChatClient client(TestConfig(server.base_url()), http_.get());
  auto got = client.Complete(kMessages, 1);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->choices, (std::vector<std::string>{"now with a choice"}));
  EXPECT_EQ(got->requests, 2);
}

TEST_F(ChatClientTest, PersistentEmptyChoicesEndsInAClearError) {
  FakeLlmServer server;
  server.Push(Reply(200, R"({"id":"x","object":"chat.completion","choices":[]})"));
  LlmConfig config = TestConfig(server.base_url());
  config.max_retries = 1;
  ChatClient client(config, http_.get());
  auto got = client.Complete(kMessages, 1);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Status::Code::kUnavailable);
  EXPECT_TRUE(Contains(got.status().message(), "no choices")) << got.status().message();
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST_F(ChatClientTest, AnswerWithoutChoicesArrayEndsInAClearError) {
  FakeLlmServer server;
  server.Push(Reply(200, R"({"object":"error","message":"something odd"})"));
  LlmConfig config = TestConfig(server.base_url());
  config.max_retries = 0;
  ChatClient client(config, http_.get());
  auto got = client.Complete(kMessages, 1);
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(Contains(got.status().message(), "choices")) << got.status().message();
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(ChatClientTest, CompletionsStyleTextChoicesAreAccepted) {
  FakeLlmServer server;
  server.Push(Reply(200, R"({"choices":[{"index":0,"text":"legacy text"}]})"));
  ChatClient client(TestConfig(server.base_url()), http_.get());
  auto got = client.Complete(kMessages, 1);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->choices, (std::vector<std::string>{"legacy text"}));
}

TEST_F(ChatClientTest, SlowServerBeyondRequestTimeoutIsATimeoutError) {
  FakeLlmServer server;
  server.Push(Reply(200, Chat({"too late"}).body, {}, std::chrono::milliseconds(2500)));
  LlmConfig config = TestConfig(server.base_url());
  config.request_timeout = std::chrono::milliseconds(500);
  config.max_retries = 0;
  ChatClient client(config, http_.get());
  const auto start = Clock::now();
  auto got = client.Complete(kMessages, 1);
  const double elapsed = SecondsSince(start);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Status::Code::kTimeout) << got.status().ToString();
  EXPECT_TRUE(Contains(got.status().message(), server.base_url())) << got.status().message();
  EXPECT_LT(elapsed, 2.0) << "the 500 ms request timeout did not fire";
}

TEST_F(ChatClientTest, AStopFlagAbandonsARequestInFlightWithoutRetrying) {
  // A model that takes 20 s to answer and a job cancelled 300 ms in: the request ends within
  // about a second of the stop (curl checks it once a second while it waits), is not retried,
  // and says why.
  FakeLlmServer server;
  server.Push(Reply(200, Chat({"too late"}).body, {}, std::chrono::milliseconds(20000)));
  LlmConfig config = TestConfig(server.base_url());
  config.max_retries = 3;
  ChatClient client(config, http_.get());
  std::atomic<bool> stop{false};
  std::thread canceller([&stop] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop.store(true);
  });
  const auto start = Clock::now();
  auto got = client.Complete(kMessages, 1, &stop);
  const double elapsed = SecondsSince(start);
  canceller.join();
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Status::Code::kAborted) << got.status().ToString();
  EXPECT_TRUE(Contains(got.status().message(), "job was stopped")) << got.status().message();
  EXPECT_LT(elapsed, 5.0) << "the request outlived the stop";
  EXPECT_EQ(server.requests().size(), 1u) << "an abandoned request was retried";
}

TEST_F(ChatClientTest, UnreachablePortIsAClearError) {
  std::string base_url;
  {
    FakeLlmServer gone;  // bind a free port, then close it
    base_url = gone.base_url();
  }
  LlmConfig config = TestConfig(base_url);
  config.max_retries = 1;
  ChatClient client(config, http_.get());
  const auto start = Clock::now();
  auto got = client.Complete(kMessages, 1);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Status::Code::kUnavailable) << got.status().ToString();
  EXPECT_TRUE(Contains(got.status().message(), "could not be reached")) << got.status().message();
  EXPECT_TRUE(Contains(got.status().message(), base_url)) << got.status().message();
  EXPECT_LT(SecondsSince(start), 5.0);
}

TEST_F(ChatClientTest, ApiKeyFromTheNamedVariableIsSentAsBearerAndNeverInErrors) {
  const std::string key = "sk-cannbot-test-4f9a1c7e2b";
  ScopedEnv env("CANNBOT_CHAT_CLIENT_TEST_KEY", key);
  FakeLlmServer server;
  server.Push(Chat({"hello"}));
  server.Push(Reply(500, OpenAiError("upstream failure", "server_error")));
  server.Push(Reply(400, OpenAiError("bad request", "invalid_request_error")));
  LlmConfig config = TestConfig(server.base_url());
  config.api_key_env = "CANNBOT_CHAT_CLIENT_TEST_KEY";
  config.max_retries = 1;
  ChatClient client(config, http_.get());

  auto ok = client.Complete(kMessages, 1);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto failed = client.Complete(kMessages, 1);  // 500, then 400
  ASSERT_FALSE(failed.ok());
  EXPECT_FALSE(Contains(failed.status().message(), key));
  EXPECT_FALSE(Contains(failed.status().ToString(), key));

  const std::vector<std::string> auth = server.authorization_headers();
  ASSERT_EQ(auth.size(), 3u);
  for (const std::string& header : auth) EXPECT_EQ(header, "Bearer " + key);
  for (const std::string& body : server.requests()) EXPECT_FALSE(Contains(body, key));

  // Transport errors name the URL, never the key.
  std::string gone_url;
  {
    FakeLlmServer gone;
    gone_url = gone.base_url();
  }
  config.base_url = gone_url;
  config.max_retries = 0;
  ChatClient unreachable(config, http_.get());
  auto down = unreachable.Complete(kMessages, 1);
  ASSERT_FALSE(down.ok());
  EXPECT_FALSE(Contains(down.status().ToString(), key));
}

TEST_F(ChatClientTest, OpenAiApiKeyIsTheFallback) {
  ScopedEnv openai("OPENAI_API_KEY", std::string("sk-openai-fallback"));
  FakeLlmServer server;
  server.Push(Chat({"hello"}));
  ChatClient client(TestConfig(server.base_url()), http_.get());  // its own variable is unset
  ASSERT_TRUE(client.Complete(kMessages, 1).ok());
  ASSERT_EQ(server.authorization_headers().size(), 1u);
  EXPECT_EQ(server.authorization_headers()[0], "Bearer sk-openai-fallback");
}

TEST_F(ChatClientTest, NamedVariableWinsOverOpenAiApiKey) {
  ScopedEnv openai("OPENAI_API_KEY", std::string("sk-openai-fallback"));
  ScopedEnv own("CANNBOT_CHAT_CLIENT_TEST_KEY", std::string("sk-own"));
  FakeLlmServer server;
  server.Push(Chat({"hello"}));
  LlmConfig config = TestConfig(server.base_url());
  config.api_key_env = "CANNBOT_CHAT_CLIENT_TEST_KEY";
  ChatClient client(config, http_.get());
  ASSERT_TRUE(client.Complete(kMessages, 1).ok());
  EXPECT_EQ(server.authorization_headers()[0], "Bearer sk-own");
}

// BUG: chat_client.h promises the API key "never appears in logs or errors", but the server's
// error message is quoted verbatim; a proxy that echoes the presented key (some gateways say
// "invalid key sk-...") puts the key into cannbot's error, and from there into CI logs. The
// client knows the key and could redact it.
TEST_F(ChatClientTest, KeyEchoedByTheServerIsRedactedFromErrors) {
  const std::string key = "sk-cannbot-test-echoed-91b2";
  ScopedEnv env("CANNBOT_CHAT_CLIENT_TEST_KEY", key);
  FakeLlmServer server;
  server.Push(Reply(401, OpenAiError("Invalid API key: " + key, "authentication_error")));
  LlmConfig config = TestConfig(server.base_url());
  config.api_key_env = "CANNBOT_CHAT_CLIENT_TEST_KEY";
  ChatClient client(config, http_.get());
  auto got = client.Complete(kMessages, 1);
  ASSERT_FALSE(got.ok());
  EXPECT_FALSE(Contains(got.status().message(), key)) << got.status().message();
}

// BUG: servers that reject `n` > 1 instead of ignoring it — llama.cpp's llama-server in many
// builds answers HTTP 400 (500 in older builds) "Only one completion choice is allowed" — make
// Complete() fail outright, although single-sample requests would work; chat_client.h only
// handles servers that ignore `n`. With the default --samples 4 such a server never works.
TEST_F(ChatClientTest, ServerRejectingNFallsBackToSingleSampleRequests) {
  FakeLlmServer server;
  server.Push(Reply(400, nlohmann::json{{"error",
                                         {{"code", 400},
                                          {"message", "Only one completion choice is allowed"},
                                          {"type", "invalid_request_error"}}}}
                             .dump()));
  server.Push(Chat({"single"}));
  ChatClient client(TestConfig(server.base_url()), http_.get());
  auto got = client.Complete(kMessages, 3);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->choices.size(), 3u);
}

// ---------------------------------------------------------------------------------------------
// ParseRetryAfter

std::string HttpDate(std::time_t when) {
  std::tm tm{};
  gmtime_r(&when, &tm);
  char buffer[64];
  std::strftime(buffer, sizeof(buffer), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buffer;
}

TEST(ParseRetryAfterTest, DeltaSeconds) {
  EXPECT_DOUBLE_EQ(ParseRetryAfter("1"), 1.0);
  EXPECT_DOUBLE_EQ(ParseRetryAfter("120"), 120.0);
  EXPECT_DOUBLE_EQ(ParseRetryAfter("0"), 0.0);
  EXPECT_DOUBLE_EQ(ParseRetryAfter("2.5"), 2.5);
  EXPECT_DOUBLE_EQ(ParseRetryAfter("-3"), 0.0);  // never a negative wait
}

TEST(ParseRetryAfterTest, HttpDate) {
  const std::time_t now = std::time(nullptr);
  const double future = ParseRetryAfter(HttpDate(now + 90));
  EXPECT_GE(future, 85.0);  // a few seconds of slack for a slow machine
  EXPECT_LE(future, 90.0);
  EXPECT_DOUBLE_EQ(ParseRetryAfter(HttpDate(now - 3600)), 0.0);  // already past
  EXPECT_DOUBLE_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT"), 0.0);
}

TEST(ParseRetryAfterTest, AbsentOrUnreadableIsMinusOne) {
  EXPECT_DOUBLE_EQ(ParseRetryAfter(""), -1.0);
  EXPECT_DOUBLE_EQ(ParseRetryAfter("soon"), -1.0);
  EXPECT_DOUBLE_EQ(ParseRetryAfter("5 seconds"), -1.0);
  EXPECT_DOUBLE_EQ(ParseRetryAfter("Someday, 99 Foo 2015 07:28:00 GMT"), -1.0);
}

}  // namespace
}  // namespace cannbot::llm
