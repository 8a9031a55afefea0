// ChatClient: OpenAI-compatible chat completions (vLLM, llama.cpp's server, Ollama, SGLang, ...).
//
// POST {base_url}/chat/completions with the messages, model, temperature, max_tokens and `n`.
// Servers that ignore `n` are topped up with further single-sample requests in parallel.
// Network errors, 429 (honouring Retry-After) and 5xx are retried with exponential backoff;
// other 4xx fail at once with the server's message. The API key comes from the environment
// and never appears in logs or errors.
//
// Thread-safety: Complete() may be called from several threads if the HttpClient allows it.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "cannbot/llm/http_client.h"
#include "cannbot/util/status.h"

namespace cannbot::llm {

struct LlmConfig {
  std::string base_url;       // e.g. http://127.0.0.1:8000/v1
  std::string model;
  std::string api_key_env = "CANNBOT_API_KEY";  // falls back to OPENAI_API_KEY
  double temperature = 0.2;
  int max_tokens = 4096;
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds request_timeout{300000};
  int max_retries = 4;
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{30000};
};

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct Completion {
  std::vector<std::string> choices;
  int requests = 0;  // HTTP requests made, retries included
  double seconds = 0;
};

class ChatClient {
 public:
  // `http` must outlive the client.
  ChatClient(LlmConfig config, HttpClient* http);

  // Up to `samples` answers. Fails (Unavailable, Timeout, InvalidArgument) only when no answer
  // could be had at all, or Aborted as soon as `stop` (set by another thread: a cancelled job)
  // is seen, mid-request or between retries, without retrying.
  Result<Completion> Complete(const std::vector<ChatMessage>& messages, int samples,
                              const std::atomic<bool>* stop = nullptr);

  const LlmConfig& config() const { return config_; }

 private:
  // One request with retries; returns the choices it got.
  Result<std::vector<std::string>> Request(const std::vector<ChatMessage>& messages, int n,
                                           int* requests, const std::atomic<bool>* stop);

  LlmConfig config_;
  HttpClient* http_;
};

// Seconds to wait from a Retry-After header (delta-seconds or an HTTP date); -1 if absent
// or unreadable.
double ParseRetryAfter(const std::string& value);

}  // namespace cannbot::llm
