// UsageMeter: an HttpClient that forwards every request to another one and adds up the token
// usage that OpenAI-compatible servers report in their answers (`usage.prompt_tokens`,
// `usage.completion_tokens`, `usage.total_tokens` of a 200 response).
//
// Why a decorator: the chat client, the provider and the optimisation report know nothing
// of tokens, and a measurement (`cannbot eval`) needs them per op; wrapping the one seam
// every LLM request crosses counts them without touching the loop. A server that reports no
// usage leaves the meter's `answers_with_usage` at zero, so a caller can say "not reported"
// instead of claiming zero tokens.
//
// Ownership: borrows `inner`, which must outlive the meter. Thread-safety: Send() may be
// called from several threads at once (the chat client tops up samples in parallel) when
// `inner` allows it; the counters are atomic, and Read() may be called at any time.
#pragma once

#include <atomic>
#include <cstdint>

#include "cannbot/llm/http_client.h"

namespace cannbot::llm {

struct TokenCount {
  int64_t prompt = 0;
  int64_t completion = 0;
  int64_t total = 0;  // the server's total, else prompt + completion
  int64_t answers = 0;             // 200 answers seen
  int64_t answers_with_usage = 0;  // ... of which reported usage

  // The usage between an earlier reading and this one.
  TokenCount Minus(const TokenCount& earlier) const;
};

class UsageMeter : public HttpClient {
 public:
  explicit UsageMeter(HttpClient* inner) : inner_(inner) {}

  Result<HttpResponse> Send(const HttpRequest& request) override;

  // The counts so far.
  TokenCount Read() const;

 private:
  HttpClient* inner_;
  std::atomic<int64_t> prompt_{0};
  std::atomic<int64_t> completion_{0};
  std::atomic<int64_t> total_{0};
  std::atomic<int64_t> answers_{0};
  std::atomic<int64_t> answers_with_usage_{0};
};

// Reads `usage` from a chat-completions answer body; false when it has none.
bool ParseUsage(const std::string& body, TokenCount* usage);

}  // namespace cannbot::llm
