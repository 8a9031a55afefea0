// LlmProbe: is the daemon's LLM endpoint reachable? For /healthz readiness. Asks
// GET {base_url}/models (every OpenAI-compatible server answers it); any HTTP answer counts as
// reachable, since a 401 or 404 still proves a server is listening. The answer is cached for
// `ttl` so a busy health checker does not flood the model server.
//
// Ownership: owns its HTTP client. Thread-safety: Check may be called from any thread.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "cannbot/llm/http_client.h"

namespace cannbot::service {

struct LlmReachability {
  bool offline = false;    // no LLM configured: nothing to reach
  bool reachable = false;
  std::string detail;      // "offline", "reachable", or why not
};

class LlmProbe {
 public:
  LlmProbe(std::string base_url, std::unique_ptr<llm::HttpClient> http,
           std::chrono::milliseconds ttl = std::chrono::seconds(10));
  LlmReachability Check();

 private:
  std::string base_url_;
  std::unique_ptr<llm::HttpClient> http_;
  std::chrono::milliseconds ttl_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point checked_{};
  bool has_answer_ = false;
  LlmReachability answer_;
};

}  // namespace cannbot::service
