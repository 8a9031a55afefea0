#include "cannbot/llm/chat_client.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <future>
#include <thread>

#include <nlohmann/json.hpp>

namespace cannbot::llm {
namespace {

using Clock = std::chrono::steady_clock;

std::string ApiKey(const LlmConfig& config) {
  for (const std::string& name : {config.api_key_env, std::string("OPENAI_API_KEY")}) {
    const char* value = name.empty() ? nullptr : std::getenv(name.c_str());
    if (value && *value) return value;
  }
  return "";
}

std::string Endpoint(const std::string& base_url) {
  std::string url = base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url + "/chat/completions";
}

// The server's own words about an error, from an OpenAI-style or plain body.
std::string RawServerMessage(const std::string& body) {
  auto json = nlohmann::json::parse(body, nullptr, false);
  if (json.is_object() && json.contains("error")) {
    const auto& error = json["error"];
    if (error.is_object() && error.contains("message") && error["message"].is_string()) {
      return error["message"].get<std::string>();
    }
    if (error.is_string()) return error.get<std::string>();
  }
  return body.substr(0, 300);
}

// ... with the API key blanked, in case a gateway echoes it back.
std::string ServerMessage(const std::string& body, const std::string& key) {
  std::string message = RawServerMessage(body);
  for (size_t at; !key.empty() && (at = message.find(key)) != std::string::npos;) {
    message.replace(at, key.size(), "[redacted]");
  }
  return message;
}

Result<std::vector<std::string>> ParseChoices(const std::string& body) {
  auto json = nlohmann::json::parse(body, nullptr, false);
  if (json.is_discarded()) {
    return Status::Unavailable("the LLM server sent malformed JSON (" +
                               std::to_string(body.size()) + " bytes)");
  }
  if (!json.is_object() || !json.contains("choices") || !json["choices"].is_array()) {
    return Status::Unavailable("the LLM server's answer has no `choices` array");
  }
  std::vector<std::string> choices;
  for (const auto& choice : json["choices"]) {
    const auto* message = choice.is_object() && choice.contains("message") ? &choice["message"]
                                                                           : nullptr;
    if (message && message->is_object() && message->contains("content") &&
        (*message)["content"].is_string()) {
      choices.push_back((*message)["content"].get<std::string>());
    } else if (choice.is_object() && choice.contains("text") && choice["text"].is_string()) {
      choices.push_back(choice["text"].get<std::string>());  // completions-style servers
    }
  }
  if (choices.empty()) return Status::Unavailable("the LLM server returned no choices");
  return choices;
}

// A refusal of the request itself (4xx), or a server error that says it is about choices.
bool RefusedN(const Status& status) {
  return status.code() == Status::Code::kInvalidArgument ||
         status.message().find("choice") != std::string::npos;
}

}  // namespace

double ParseRetryAfter(const std::string& value) {
  if (value.empty()) return -1;
  char* end = nullptr;
  double seconds = std::strtod(value.c_str(), &end);
  if (end != value.c_str() && *end == '\0') return std::max(0.0, seconds);
  std::tm tm{};
  if (strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm) != nullptr) {
    return std::max(0.0, std::difftime(timegm(&tm), std::time(nullptr)));
  }
  return -1;
}

ChatClient::ChatClient(LlmConfig config, HttpClient* http)
    : config_(std::move(config)), http_(http) {}

Result<std::vector<std::string>> ChatClient::Request(const std::vector<ChatMessage>& messages,
                                                     int n, int* requests,
                                                     const std::atomic<bool>* stop) {
  nlohmann::json body = {{"model", config_.model},
                         {"temperature", config_.temperature},
                         {"max_tokens", config_.max_tokens},
                         {"n", n},
                         {"messages", nlohmann::json::array()}};
  for (const ChatMessage& m : messages) {
    body["messages"].push_back({{"role", m.role}, {"content", m.content}});
  }
  HttpRequest request;
  request.url = Endpoint(config_.base_url);
  request.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  request.headers = {{"Content-Type", "application/json"}};
  const std::string key = ApiKey(config_);
  if (!key.empty()) request.headers.push_back({"Authorization", "Bearer " + key});
  request.connect_timeout = config_.connect_timeout;
  request.total_timeout = config_.request_timeout;
  request.abort = stop;
  auto stopped = [stop] { return stop != nullptr && stop->load(); };
  const Status abandoned = Status::Aborted("the LLM request was abandoned: the job was stopped");

  auto backoff = config_.initial_backoff;
  Status last = Status::Unavailable("no request was made");
  for (int attempt = 0; attempt <= config_.max_retries; ++attempt) {
    ++*requests;
    auto response = http_->Send(request);
    double wait_seconds = -1;
    if (stopped()) return abandoned;
    if (!response.ok()) {
      last = response.status().WithContext("the LLM server could not be reached");
    } else if (response->status == 200) {
      auto choices = ParseChoices(response->body);  // malformed answers are retried too
      if (choices.ok()) return choices;
      last = choices.status();
    } else if (response->status == 429 || response->status >= 500) {
      last = Status::Unavailable("the LLM server answered HTTP " +
                                 std::to_string(response->status) + ": " +
                                 ServerMessage(response->body, key));
      auto retry_after = response->headers.find("retry-after");
      if (retry_after != response->headers.end()) {
        wait_seconds = ParseRetryAfter(retry_after->second);
      }
    } else {
      return Status::InvalidArgument("the LLM server rejected the request (HTTP " +
                                     std::to_string(response->status) + "): " +
                                     ServerMessage(response->body, key));
    }
    if (attempt == config_.max_retries) break;
    auto wait = wait_seconds >= 0
                    ? std::chrono::milliseconds(static_cast<long long>(wait_seconds * 1000))
                    : backoff;
    // The backoff in short naps, so that a stop is seen within a tenth of a second.
    const auto until = std::chrono::steady_clock::now() + std::min(wait, config_.max_backoff);
    while (std::chrono::steady_clock::now() < until && !stopped()) {
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          std::chrono::milliseconds(100), until - std::chrono::steady_clock::now()));
    }
    if (stopped()) return abandoned;
    backoff = std::min(backoff * 2, config_.max_backoff);
  }
  return last.WithContext("after " + std::to_string(config_.max_retries + 1) + " attempts");
}

Result<Completion> ChatClient::Complete(const std::vector<ChatMessage>& messages, int samples,
                                        const std::atomic<bool>* stop) {
  const auto start = Clock::now();
  Completion completion;
  samples = std::max(1, samples);
  auto first = Request(messages, samples, &completion.requests, stop);
  if (!first.ok() && samples > 1 && RefusedN(first.status())) {
    // Some servers refuse n > 1 outright ("only one completion choice is allowed"): ask one
    // sample at a time instead.
    first = Request(messages, 1, &completion.requests, stop);
  }
  if (!first.ok()) return first.status();
  completion.choices = std::move(first).value();
  // A server that ignores `n` answered once: ask for the rest in parallel.
  const int missing = samples - static_cast<int>(completion.choices.size());
  if (missing > 0) {
    std::vector<std::future<Result<std::vector<std::string>>>> more;
    std::vector<int> counts(static_cast<size_t>(missing), 0);
    for (int i = 0; i < missing; ++i) {
      more.push_back(std::async(std::launch::async, [this, &messages, &counts, i, stop] {
        return Request(messages, 1, &counts[static_cast<size_t>(i)], stop);
      }));
    }
    for (int i = 0; i < missing; ++i) {
      auto got = more[static_cast<size_t>(i)].get();
      completion.requests += counts[static_cast<size_t>(i)];
      if (got.ok()) {
        for (std::string& c : *got) completion.choices.push_back(std::move(c));
      }
    }
  }
  if (static_cast<int>(completion.choices.size()) > samples) completion.choices.resize(samples);
  completion.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return completion;
}

}  // namespace cannbot::llm
