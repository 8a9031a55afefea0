#include "cannbot/ci/api_client.h"

#include <cctype>
#include <ctime>
#include <thread>

namespace cannbot::ci {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const char* Reason(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
  }
  return "";
}

std::string Header(const ApiResponse& r, const std::string& name) {
  auto it = r.headers.find(name);
  return it == r.headers.end() ? "" : it->second;
}

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Retry-After (seconds or an HTTP date), else X-RateLimit-Reset (Unix seconds): how long the
// server asks us to wait; none when it does not say.
std::optional<milliseconds> ServerWait(const ApiResponse& r, int64_t now) {
  const std::string after = Header(r, "retry-after");
  if (AllDigits(after)) return milliseconds(seconds(std::stoll(after.substr(0, 12))));
  if (!after.empty()) {
    std::tm tm{};
    if (strptime(after.c_str(), "%a, %d %b %Y %H:%M:%S", &tm) != nullptr) {
      return milliseconds(seconds(std::max<int64_t>(0, static_cast<int64_t>(timegm(&tm)) - now)));
    }
  }
  const std::string reset = Header(r, "x-ratelimit-reset");
  if (AllDigits(reset)) {
    // One second past the reset: the server's clock and ours disagree by a little.
    return milliseconds(seconds(std::max<int64_t>(0, std::stoll(reset.substr(0, 15)) - now + 1)));
  }
  return std::nullopt;
}

// What the server said, from the error shapes GitHub and GitCode use.
std::string ServerMessage(const nlohmann::json& j) {
  if (!j.is_object()) return "";
  std::string out;
  for (const char* key : {"message", "error_message", "error_description", "error"}) {
    if (j.contains(key) && j[key].is_string()) {
      out = j[key].get<std::string>();
      break;
    }
  }
  if (j.contains("errors") && j["errors"].is_array()) {
    for (const auto& e : j["errors"]) {
      if (e.is_object() && e.contains("message") && e["message"].is_string()) {
        out += "; " + e["message"].get<std::string>();
      } else if (e.is_object() && e.contains("code") && e["code"].is_string()) {
        out += "; " + e.value("field", std::string("field")) + " " + e["code"].get<std::string>();
      }
    }
  }
  return out.size() > 300 ? out.substr(0, 300) + "..." : out;
}

std::string Hint(int status, const std::string& token_source) {
  switch (status) {
    case 401:
      return "The token" + (token_source.empty() ? "" : " in " + token_source) +
             " is missing, expired or invalid.";
    case 403:
      return "The token is valid but may not do this: it needs write access to the pull "
             "request's comments (or the repository forbids it).";
    case 404:
      return "The repository or pull request does not exist, or the token cannot see it "
             "(private repositories answer 404 to tokens without access).";
    case 422:
      return "The server refused the request's content.";
  }
  return "";
}

}  // namespace

ApiClient::ApiClient(ApiConfig config, llm::HttpClient* http)
    : config_(std::move(config)), http_(http) {
  if (!config_.sleep) config_.sleep = [](milliseconds d) { std::this_thread::sleep_for(d); };
  if (!config_.now) config_.now = [] { return static_cast<int64_t>(std::time(nullptr)); };
}

std::string ApiClient::Redact(std::string text) const {
  if (config_.token.empty()) return text;
  for (size_t at = text.find(config_.token); at != std::string::npos;
       at = text.find(config_.token, at)) {
    text.replace(at, config_.token.size(), "***");
  }
  return text;
}

void ApiClient::Log(const std::string& line) const {
  if (config_.log) config_.log(Redact(line));
}

Result<ApiResponse> ApiClient::SendOnce(const std::string& method, const std::string& url,
                                        const nlohmann::json& body) {
  llm::HttpRequest request;
  request.method = method;
  request.url = url;
  request.headers = config_.headers;
  for (const auto& [name, prefix] : config_.auth_headers) {
    request.headers.emplace_back(name, prefix + config_.token);
  }
  if (!body.is_null()) {
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  request.total_timeout = config_.timeout;
  auto sent = http_->Send(request);
  if (!sent.ok()) {
    return Status(sent.status().code() == Status::Code::kTimeout
                      ? Status::Timeout(Redact(sent.status().message()))
                      : Status::Unavailable(Redact(sent.status().message())));
  }
  ApiResponse response;
  response.status = sent->status;
  response.headers = std::move(sent->headers);
  response.json = nlohmann::json::parse(sent->body, nullptr, false);
  if (response.json.is_discarded()) response.json = nullptr;
  return response;
}

Judgement ApiClient::Judge(const ApiResponse& r) const {
  Judgement j;
  if (r.status >= 200 && r.status < 300) return j;
  const bool limited =
      r.status == 429 || (r.status == 403 && (Header(r, "x-ratelimit-remaining") == "0" ||
                                              !Header(r, "retry-after").empty()));
  if (limited || r.status >= 500) {
    j.kind = Judgement::Kind::kRetry;
    j.rate_limited = limited;
    j.wait = ServerWait(r, config_.now());
    return j;
  }
  j.kind = Judgement::Kind::kFail;
  return j;
}

Status ApiClient::ErrorFor(const std::string& method, const std::string& url,
                           const ApiResponse& r) const {
  std::string text =
      config_.service + " API: " + method + " " + url + " answered " + std::to_string(r.status);
  if (*Reason(r.status)) text += std::string(" ") + Reason(r.status);
  const std::string said = ServerMessage(r.json);
  if (!said.empty()) text += ": " + said;
  if (Judge(r).kind == Judgement::Kind::kRetry) {
    text += " (gave up after " + std::to_string(config_.retry.max_attempts) + " attempts)";
  }
  const std::string hint = Hint(r.status, config_.token_source);
  if (!hint.empty()) text += ". " + hint;
  text = Redact(text);
  if (r.status == 404) return Status::NotFound(text);
  if (r.status >= 500 || r.status == 429 || Judge(r).kind == Judgement::Kind::kRetry) {
    return Status::Unavailable(text);
  }
  return Status::InvalidArgument(text);
}

Status ApiClient::Wait(const Judgement& judgement, int retry, const std::string& what) {
  const milliseconds wait =
      judgement.wait.value_or(config_.retry.first_backoff * (int64_t{1} << std::min(retry, 10)));
  if (wait > config_.retry.max_wait) {
    const auto secs = std::chrono::duration_cast<seconds>(wait).count();
    return Status::Unavailable(Redact(
        config_.service + " API: " + what + (judgement.rate_limited ? " (rate limited)" : "") +
        "; the server asks to wait " + std::to_string(secs) + " s, longer than the " +
        std::to_string(config_.retry.max_wait.count()) + " s this run waits. Try again later."));
  }
  Log(config_.service + " API: " + what + "; retrying in " +
      std::to_string((wait.count() + 999) / 1000) + " s");
  config_.sleep(wait);
  return Status::Ok();
}

Result<ApiResponse> ApiClient::Call(const std::string& method, const std::string& url,
                                    const nlohmann::json& body) {
  for (int attempt = 0;; ++attempt) {
    const bool last = attempt + 1 >= config_.retry.max_attempts;
    auto response = SendOnce(method, url, body);
    Judgement judgement;
    std::string what;
    if (!response.ok()) {
      what = method + " " + url + " failed: " + response.status().message();
      if (last) {
        return Status::Unavailable(Redact(config_.service + " API: " + what + " (gave up after " +
                                          std::to_string(attempt + 1) + " attempts)"));
      }
      judgement.kind = Judgement::Kind::kRetry;
    } else {
      judgement = Judge(*response);
      if (judgement.kind == Judgement::Kind::kOk) return std::move(response).value();
      if (judgement.kind == Judgement::Kind::kFail || last) return ErrorFor(method, url, *response);
      what = method + " " + url + " answered " + std::to_string(response->status);
    }
    CANNBOT_RETURN_IF_ERROR(Wait(judgement, attempt, what));
  }
}

}  // namespace cannbot::ci
