// `cannbot suggest --server URL`: the same optimisation, run by a cannbot daemon. Submits the
// kernel to POST /optimize, follows GET /jobs/{id}/events and prints the same progress lines
// and report as the in-process mode, with the same exit codes.
//
// A daemon that restarts in the middle loses nothing: the submission carries an
// Idempotency-Key (a retried POST finds the same job), and the event stream is resumed with
// Last-Event-ID once the daemon is back.
#include <httplib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "cannbot/util/fs.h"
#include "cli/commands.h"
#include "cli/remote.h"

namespace cannbot::cli {
namespace {

using Json = nlohmann::json;

// How long the client keeps trying while the daemon is unreachable (a restart).
constexpr auto kReconnectFor = std::chrono::seconds(120);

// "http://host:port/prefix" -> the client's base ("http://host:port") and a path prefix.
struct Endpoint {
  std::string base;
  std::string prefix;
};

Endpoint ParseServer(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t path = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  Endpoint e{url.substr(0, path), path == std::string::npos ? "" : url.substr(path)};
  while (!e.prefix.empty() && e.prefix.back() == '/') e.prefix.pop_back();
  return e;
}

std::string RandomKey() {
  std::random_device device;
  std::uniform_int_distribution<uint64_t> any;
  char text[40];
  std::snprintf(text, sizeof(text), "cli-%016llx%016llx", static_cast<unsigned long long>(any(device)),
                static_cast<unsigned long long>(any(device)));
  return text;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

class Remote {
 public:
  explicit Remote(const RemoteSuggest& args) : args_(args), endpoint_(ParseServer(args.server)) {
    token_ = !args.token.empty() ? args.token : (std::getenv("CANNBOT_TOKEN") ? std::getenv("CANNBOT_TOKEN") : "");
  }

  int Run(const optimize::ProgressFn& progress);

 private:
  std::unique_ptr<httplib::Client> Client(int read_timeout_seconds) const {
    auto client = std::make_unique<httplib::Client>(endpoint_.base);
    client->set_connection_timeout(5, 0);
    client->set_read_timeout(read_timeout_seconds, 0);
    return client;
  }
  httplib::Headers Headers() const {
    httplib::Headers headers;
    if (!token_.empty()) headers.emplace("Authorization", "Bearer " + token_);
    return headers;
  }
  Result<Json> Body() const;
  Result<std::string> Submit(const Json& body);
  Status Follow(const std::string& id, const optimize::ProgressFn& progress);
  bool Dispatch(const std::string& frame, const optimize::ProgressFn& progress);
  Result<Json> Fetch(const std::string& id);
  int Print(const Json& job);

  const RemoteSuggest& args_;
  Endpoint endpoint_;
  std::string token_;
  int64_t last_event_ = 0;
};

Result<Json> Remote::Body() const {
  CANNBOT_ASSIGN_OR_RETURN(std::string source, ReadFile(args_.file, 4u << 20));
  Json body = {{"op", args_.op}, {"source", source}, {"name", BaseName(args_.file)}};
  if (!args_.profile.empty()) {
    CANNBOT_ASSIGN_OR_RETURN(std::string profile, ReadFile(args_.profile, 256u << 20));
    body["profile"] = profile;
    body["profile_format"] = args_.format.empty() ? "auto" : args_.format;
  }
  if (!args_.kernel.empty()) body["profile_kernel"] = args_.kernel;
  Json options = Json::object();
  if (args_.samples > 0) options["samples"] = args_.samples;
  if (args_.rounds >= 0) options["rounds"] = args_.rounds;
  if (args_.min_speedup > 0) options["min_speedup"] = args_.min_speedup;
  if (args_.budget > 0) options["budget"] = args_.budget;
  if (args_.time_budget > 0) options["time_budget_seconds"] = args_.time_budget;
  if (args_.seed) options["seed"] = *args_.seed;
  if (args_.llm == "offline") {
    options["llm"] = "offline";
  } else if (!args_.llm.empty() || !args_.model.empty()) {
    Json llm = Json::object();
    if (!args_.llm.empty()) llm["url"] = args_.llm;
    if (!args_.model.empty()) llm["model"] = args_.model;
    options["llm"] = llm;
  }
  body["options"] = options;
  return body;
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

Result<std::string> Remote::Submit(const Json& body) {
  httplib::Headers headers = Headers();
  headers.emplace("Idempotency-Key", RandomKey());  // the same key on every retry
  const std::string text = body.dump();
  const auto deadline = std::chrono::steady_clock::now() + kReconnectFor;
  while (true) {
    auto res = Client(60)->Post((endpoint_.prefix + "/optimize").c_str(), headers, text,
                                "application/json");
    const bool retry = !res || res->status == 503 || res->status == 429;
    if (!retry) {
      if (res->status != 202 && res->status != 200) return ServerError(res->status, res->body);
      Json accepted = Json::parse(res->body, nullptr, false);
      if (!accepted.is_object() || !accepted.contains("job_id")) {
        return Status::Internal("the daemon's answer has no job_id");
      }
      return accepted["job_id"].get<std::string>();
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return res ? ServerError(res->status, res->body)
                 : Status::Unavailable("cannot reach " + args_.server + ": " +
                                       httplib::to_string(res.error()));
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

// One SSE frame; false when it was the last ("finished").
bool Remote::Dispatch(const std::string& frame, const optimize::ProgressFn& progress) {
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
  if (type == "asking") progress({Kind::kAsking, round, text, nullptr});
  else if (type == "validating") progress({Kind::kValidating, round, text, nullptr});
  else if (type == "attempt") progress({Kind::kAttemptDone, round, text, nullptr});
  else if (type == "requeued") {
    std::fprintf(stderr, "cannbot: the daemon re-queued the job: %s\n",
                 json.value("reason", std::string()).c_str());
  }
  return type != "finished";
}

Status Remote::Follow(const std::string& id, const optimize::ProgressFn& progress) {
  auto deadline = std::chrono::steady_clock::now() + kReconnectFor;
  bool finished = false;
  while (!finished) {
    httplib::Headers headers = Headers();
    if (last_event_ > 0) headers.emplace("Last-Event-ID", std::to_string(last_event_));
    int status = 0;
    std::string buffer, error_body;
    auto res = Client(60)->Get(
        (endpoint_.prefix + "/jobs/" + id + "/events").c_str(), headers,
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
            if (!Dispatch(frame, progress)) {
              finished = true;
              return false;  // done: close the stream
            }
          }
          return true;
        });
    if (finished) break;
    if (res && status != 200 && status != 503) return ServerError(status, error_body);
    if (res && status == 200) deadline = std::chrono::steady_clock::now() + kReconnectFor;
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::Unavailable("lost the daemon at " + args_.server + " while following job " + id);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the daemon restarts
  }
  return Status::Ok();
}

Result<Json> Remote::Fetch(const std::string& id) {
  auto res = Client(60)->Get((endpoint_.prefix + "/jobs/" + id).c_str(), Headers());
  if (!res) return Status::Unavailable("cannot reach " + args_.server + ": " + httplib::to_string(res.error()));
  if (res->status != 200) return ServerError(res->status, res->body);
  Json job = Json::parse(res->body, nullptr, false);
  if (!job.is_object()) return Status::Internal("the daemon's job document is not JSON");
  return job;
}

int Remote::Print(const Json& job) {
  const Json& report = job["report"];
  const std::string status = job.value("status", std::string());
  if (!report.is_object()) {
    const Json& error = job["error"];
    const std::string why = error.is_object() ? error.value("message", std::string()) : status;
    return ReportError(Status::Aborted("job " + job.value("job_id", std::string()) + " " +
                                       status + ": " + why),
                       args_.json);
  }
  if (args_.json) {
    std::printf("%s\n", report.dump(2, ' ', false, Json::error_handler_t::replace).c_str());
  } else {
    std::printf("%s", job.value("report_text", std::string()).c_str());
  }
  std::fflush(stdout);
  const bool checked = report.contains("kernel_check") && report["kernel_check"].value("ok", false);
  if (!checked) return kExitError;
  const bool found = report.value("found", false);
  if (found && !args_.out.empty()) {
    Status written = WriteFile(args_.out, report.value("kernel", std::string()));
    if (!written.ok()) return ReportError(written, args_.json);
    std::fprintf(stderr, "cannbot: wrote the accepted kernel to %s\n", args_.out.c_str());
  }
  if (status == "cancelled") std::fprintf(stderr, "cannbot: the job was cancelled\n");
  return found ? kExitOk : kExitRejected;
}

int Remote::Run(const optimize::ProgressFn& progress) {
  auto body = Body();
  if (!body.ok()) return ReportError(body.status(), args_.json);
  auto id = Submit(*body);
  if (!id.ok()) return ReportError(id.status(), args_.json);
  std::fprintf(stderr, "cannbot: job %s on %s\n", id->c_str(), args_.server.c_str());
  Status followed = Follow(*id, progress);
  if (!followed.ok()) return ReportError(followed, args_.json);
  auto job = Fetch(*id);
  if (!job.ok()) return ReportError(job.status(), args_.json);
  return Print(*job);
}

}  // namespace

int RunRemoteSuggest(const RemoteSuggest& args, const optimize::ProgressFn& progress) {
  return Remote(args).Run(progress);
}

}  // namespace cannbot::cli
