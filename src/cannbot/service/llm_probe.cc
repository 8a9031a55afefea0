#include "cannbot/service/llm_probe.h"

namespace cannbot::service {

LlmProbe::LlmProbe(std::string base_url, std::unique_ptr<llm::HttpClient> http,
                   std::chrono::milliseconds ttl)
    : base_url_(std::move(base_url)), http_(std::move(http)), ttl_(ttl) {}

LlmReachability LlmProbe::Check() {
  if (base_url_.empty()) return {true, true, "offline"};
  std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (has_answer_ && now - checked_ < ttl_) return answer_;
  llm::HttpRequest request;
  request.method = "GET";
  std::string url = base_url_;
  while (!url.empty() && url.back() == '/') url.pop_back();
  request.url = url + "/models";
  request.connect_timeout = std::chrono::milliseconds(2000);
  request.total_timeout = std::chrono::milliseconds(3000);
  auto response = http_->Send(request);
  answer_ = response.ok()
                ? LlmReachability{false, true, "reachable"}
                : LlmReachability{false, false, "unreachable: " + response.status().message()};
  checked_ = now;
  has_answer_ = true;
  return answer_;
}

}  // namespace cannbot::service
