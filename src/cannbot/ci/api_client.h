// ApiClient: JSON over HTTP to a code-hosting API (GitHub, GitCode), with the manners such
// an API expects: a token in a header, retries on 5xx and on rate limits that honour the
// server's Retry-After / X-RateLimit-Reset, and errors that name the endpoint and the status.
//
// The token is a secret: it travels only in request headers (never in a URL, so it cannot
// reach a log through one), and every message this class produces is scrubbed of it, even
// one echoed back by a misbehaving server.
//
// Ownership: borrows the HttpClient. Thread-safety: one request at a time per ApiClient.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cannbot/llm/http_client.h"
#include "cannbot/util/status.h"

namespace cannbot::ci {

struct RetryPolicy {
  int max_attempts = 5;                           // per request, the first one included
  std::chrono::milliseconds first_backoff{2000};  // doubled per retry when the server gives no hint
  std::chrono::seconds max_wait{300};             // a longer rate-limit wait fails instead
};

struct ApiConfig {
  std::string service = "GitHub";  // for messages: "GitHub API: ..."
  std::string token;               // secret; see above
  std::string token_source;        // where it came from, for messages: "$GITHUB_TOKEN"
  // Headers carrying the token, as "Name" -> "prefix": {"Authorization", "Bearer "}.
  std::vector<std::pair<std::string, std::string>> auth_headers;
  std::vector<std::pair<std::string, std::string>> headers;  // every request: Accept, User-Agent
  RetryPolicy retry;
  std::chrono::milliseconds timeout{60000};  // per request
  // Injected so tests need not wait: how to wait, what time it is (Unix seconds), and where
  // retry notices go (never containing the token).
  std::function<void(std::chrono::milliseconds)> sleep;
  std::function<int64_t()> now;
  std::function<void(const std::string&)> log;
};

struct ApiResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  nlohmann::json json;                         // null when the body is not JSON
};

// What to make of one answer.
struct Judgement {
  enum class Kind { kOk, kRetry, kFail } kind = Kind::kOk;
  // kRetry: how long the server asked us to wait; none when it gave no hint (then backoff).
  std::optional<std::chrono::milliseconds> wait;
  bool rate_limited = false;
};

class ApiClient {
 public:
  ApiClient(ApiConfig config, llm::HttpClient* http);

  // Sends the request, retrying 5xx, 429, rate-limited 403s and transport failures. Returns
  // the 2xx answer. Errors: InvalidArgument for 4xx (401/403/404/422 with what they usually
  // mean), Unavailable when retries ran out or a rate limit lasts longer than max_wait.
  Result<ApiResponse> Call(const std::string& method, const std::string& url,
                           const nlohmann::json& body = nullptr);

  // One request, no retries: for calls that must not be repeated blindly (creating a
  // comment). Transport failures are errors; any status is a response, to be judged by Judge.
  Result<ApiResponse> SendOnce(const std::string& method, const std::string& url,
                               const nlohmann::json& body = nullptr);
  Judgement Judge(const ApiResponse& response) const;
  // The error for a response Judge did not accept, or a retryable one whose retries ran out.
  Status ErrorFor(const std::string& method, const std::string& url,
                  const ApiResponse& response) const;
  // Waits as the judgement asks, or the backoff of retry number `retry` (0-based); fails
  // when that is longer than the policy allows.
  Status Wait(const Judgement& judgement, int retry, const std::string& what);

  const ApiConfig& config() const { return config_; }
  // `text` with the token replaced by "***".
  std::string Redact(std::string text) const;

 private:
  void Log(const std::string& line) const;

  ApiConfig config_;
  llm::HttpClient* http_;
};

}  // namespace cannbot::ci
