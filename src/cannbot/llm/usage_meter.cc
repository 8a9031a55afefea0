#include "cannbot/llm/usage_meter.h"

#include <nlohmann/json.hpp>

namespace cannbot::llm {
namespace {

// A non-negative integer field, 0 when absent or of another type.
int64_t UsageField(const nlohmann::json& usage, const char* key) {
  const auto it = usage.find(key);
  if (it == usage.end() || !it->is_number()) return 0;
  const double value = it->get<double>();
  return value > 0 ? static_cast<int64_t>(value) : 0;
}

}  // namespace

TokenCount TokenCount::Minus(const TokenCount& earlier) const {
  return {prompt - earlier.prompt, completion - earlier.completion, total - earlier.total,
          answers - earlier.answers, answers_with_usage - earlier.answers_with_usage};
}

bool ParseUsage(const std::string& body, TokenCount* usage) {
  const auto json = nlohmann::json::parse(body, nullptr, false);
  if (!json.is_object()) return false;
  const auto it = json.find("usage");
  if (it == json.end() || !it->is_object()) return false;
  usage->prompt = UsageField(*it, "prompt_tokens");
  usage->completion = UsageField(*it, "completion_tokens");
  usage->total = UsageField(*it, "total_tokens");
  if (usage->total == 0) usage->total = usage->prompt + usage->completion;
  return true;
}

Result<HttpResponse> UsageMeter::Send(const HttpRequest& request) {
  auto response = inner_->Send(request);
  if (!response.ok() || response->status != 200) return response;
  answers_.fetch_add(1);
  TokenCount usage;
  if (ParseUsage(response->body, &usage)) {
    prompt_.fetch_add(usage.prompt);
    completion_.fetch_add(usage.completion);
    total_.fetch_add(usage.total);
    answers_with_usage_.fetch_add(1);
  }
  return response;
}

TokenCount UsageMeter::Read() const {
  return {prompt_.load(), completion_.load(), total_.load(), answers_.load(),
          answers_with_usage_.load()};
}

}  // namespace cannbot::llm
