#include "cannbot/service/daemon_client.h"

#include <httplib.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <thread>

namespace cannbot::service {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string RandomKey() {
  std::random_device device;
  std::uniform_int_distribution<uint64_t> any;
  char text[40];
  std::snprintf(text, sizeof(text), "cli-%016llx%016llx",
                static_cast<unsigned long long>(any(device)),
                static_cast<unsigned long long>(any(device)));
  return text;
}

// The daemon's error shape as a Status.
Status ServerError(int status, const std::string& body) {
  Json json = Json::parse(body, nullptr, false);
  std::string message = "HTTP " + std::to_string(status);
  if (json.is_object() && json.contains("error") && json["error"].is_object()) {
    message += " " + json["error"].value("code", std::string()) + ": " +
               json["error"].value("message", std::string());
  }
  return status >= 500 ? Status::Unavailable("the daemon answered " + message)
                       : Status::InvalidArgument("the daemon answered " + message);
}

std::unique_ptr<httplib::Client> NewClient(const std::string& base, int read_timeout_seconds) {
  auto client = std::make_unique<httplib::Client>(base);
  client->set_connection_timeout(5, 0);
  client->set_read_timeout(read_timeout_seconds, 0);
  return client;
}

httplib::Headers AuthHeaders(const std::string& token) {
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  return headers;
}

}  // namespace

DaemonClient::DaemonClient(DaemonClientConfig config) : config_(std::move(config)) {
  // "http://host:port/prefix" -> the client's base ("http://host:port") and a path prefix.
  const std::string& url = config_.server;
  const size_t scheme = url.find("://");
  const size_t path = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  base_ = url.substr(0, path);
  prefix_ = path == std::string::npos ? "" : url.substr(path);
  while (!prefix_.empty() && prefix_.back() == '/') prefix_.pop_back();
}

Result<std::string> DaemonClient::Submit(const Json& body) {
  httplib::Headers headers = AuthHeaders(config_.token);
  headers.emplace("Idempotency-Key", RandomKey());  // the same key on every retry
  const std::string text = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  const auto deadline = Clock::now() + config_.reconnect_for;
  while (true) {
    auto res = NewClient(base_, 60)->Post((prefix_ + "/optimize").c_str(), headers, text,
                                          "application/json");
    const bool retry = !res || res->status == 503 || res->status == 429;
    if (!retry) {
      if (res->status != 202 && res->status != 200) return ServerError(res->status, res->body);
      Json accepted = Json::parse(res->body, nullptr, false);
      if (!accepted.is_object() || !accepted.contains("job_id") ||
          !accepted["job_id"].is_string()) {
        return Status::Internal("the daemon's answer has no job_id");
      }
      return accepted["job_id"].get<std::string>();
    }
    if (Clock::now() > deadline) {
      return res ? ServerError(res->status, res->body)
                 : Status::Unavailable("cannot reach " + config_.server + ": " +
                                       httplib::to_string(res.error()));
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

// One SSE frame; false when it was the last ("finished").
bool DaemonClient::Dispatch(const std::string& frame, const optimize::ProgressFn& progress,
                            const std::function<void(const std::string&)>& on_requeued) {
  std::string type, data;
  int64_t id = 0;
  size_t start = 0;
  while (start < frame.size()) {
    size_t end = frame.find('\n', start);
    if (end == std::string::npos) end = frame.size();
    const std::string line = frame.substr(start, end - start);
    start = end + 1;
    if (line.rfind("id: ", 0) == 0) id = std::atoll(line.c_str() + 4);
    else if (line.rfind("event: ", 0) == 0) type = line.substr(7);
    else if (line.rfind("data: ", 0) == 0) data += line.substr(6);
  }
  if (id > 0) last_event_ = id;
  Json json = Json::parse(data, nullptr, false);
  if (type.empty() || !json.is_object()) return true;
  using Kind = optimize::ProgressEvent::Kind;
  const int round = json.value("round", 0);
  const std::string text = json.value("text", std::string());
  if (progress) {
    if (type == "asking") progress({Kind::kAsking, round, text, nullptr});
    else if (type == "validating") progress({Kind::kValidating, round, text, nullptr});
    else if (type == "attempt") progress({Kind::kAttemptDone, round, text, nullptr});
  }
  if (type == "requeued" && on_requeued) on_requeued(json.value("reason", std::string()));
  return type != "finished";
}

Status DaemonClient::Follow(const std::string& id, const optimize::ProgressFn& progress,
                            const std::function<void(const std::string&)>& on_requeued) {
  auto deadline = Clock::now() + config_.reconnect_for;
  bool finished = false;
  while (!finished) {
    httplib::Headers headers = AuthHeaders(config_.token);
    if (last_event_ > 0) headers.emplace("Last-Event-ID", std::to_string(last_event_));
    int status = 0;
    std::string buffer, error_body;
    auto res = NewClient(base_, 60)->Get(
        (prefix_ + "/jobs/" + id + "/events").c_str(), headers,
        [&](const httplib::Response& r) {
          status = r.status;
          return true;
        },
        [&](const char* data, size_t size) {
          if (status != 200) {
            error_body.append(data, size);
            return true;
          }
          buffer.append(data, size);
          size_t end;
          while ((end = buffer.find("\n\n")) != std::string::npos) {
            const std::string frame = buffer.substr(0, end);
            buffer.erase(0, end + 2);
            if (!Dispatch(frame, progress, on_requeued)) {
              finished = true;
              return false;  // done: close the stream
            }
          }
          return true;
        });
    if (finished) break;
    if (res && status != 200 && status != 503) return ServerError(status, error_body);
    if (res && status == 200) deadline = Clock::now() + config_.reconnect_for;
    if (Clock::now() > deadline) {
      return Status::Unavailable("lost the daemon at " + config_.server +
                                 " while following job " + id);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the daemon restarts
  }
  return Status::Ok();
}

Result<Json> DaemonClient::Fetch(const std::string& id) {
  auto res = NewClient(base_, 60)->Get((prefix_ + "/jobs/" + id).c_str(),
                                       AuthHeaders(config_.token));
  if (!res) {
    return Status::Unavailable("cannot reach " + config_.server + ": " +
                               httplib::to_string(res.error()));
  }
  if (res->status != 200) return ServerError(res->status, res->body);
  Json job = Json::parse(res->body, nullptr, false);
  if (!job.is_object()) return Status::Internal("the daemon's job document is not JSON");
  return job;
}

Result<RemoteJob> DaemonClient::Run(const engine::JobSpec& spec,
                                     const optimize::ProgressFn& progress,
                                     const std::function<void(const std::string&)>& on_submitted,
                                     const std::function<void(const std::string&)>& on_requeued) {
  RemoteJob job;
  CANNBOT_ASSIGN_OR_RETURN(job.id, Submit(spec.ToJson()));
  if (on_submitted) on_submitted(job.id);
  CANNBOT_RETURN_IF_ERROR(Follow(job.id, progress, on_requeued));
  CANNBOT_ASSIGN_OR_RETURN(Json document, Fetch(job.id));
  job.status = document.value("status", std::string());
  const Json& report = document.contains("report") ? document["report"] : Json();
  if (!report.is_object()) {
    const Json& error = document.contains("error") ? document["error"] : Json();
    const std::string why = error.is_object() ? error.value("message", std::string()) : "";
    return Status::Aborted("daemon job " + job.id + " ended " +
                           (job.status.empty() ? "without a status" : job.status) +
                           (why.empty() ? "" : ": " + why));
  }
  auto parsed = engine::SuggestReport::FromJson(report);
  if (!parsed.ok()) {
    return Status::Internal("the daemon's report for job " + job.id +
                            " is not one this client reads: " + parsed.status().message());
  }
  job.report = std::move(parsed).value();
  return job;
}

}  // namespace cannbot::service
