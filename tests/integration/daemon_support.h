// Helpers for the daemon tests: the real `cannbot serve` binary started on an ephemeral
// loopback port (it writes the port to a file; the helper then polls /healthz), plain HTTP
// calls, a reader of Server-Sent Events, and kernels to submit.
//
// Every daemon gets its own store file in a temporary directory, so jobs of one test never
// reach another; restarting a Daemon reuses its store (that is the point of a restart).
#pragma once

#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"
#include "integration/test_support.h"

namespace cannbot::testing {

using Json = nlohmann::json;

struct HttpReply {
  int status = 0;  // 0: no answer (transport error)
  std::string body;
  httplib::Headers headers;

  Json json() const { return Json::parse(body, nullptr, false); }
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  std::string error_code() const {
    Json j = json();
    if (!j.is_object() || !j.contains("error") || !j["error"].is_object()) return "";
    return j["error"].value("code", std::string());
  }
};

// One SSE event as read by a test.
struct SseEvent {
  int64_t id = 0;
  std::string type;
  Json data;
};

inline std::string KernelText(const std::string& op) {
  return *ReadFile(SourcePath("examples/" + op + "/naive.cpp"));
}

class Daemon {
 public:
  struct Options {
    std::vector<std::string> args;    // extra `cannbot serve` flags
    std::vector<std::string> env;     // extra NAME=value
    std::string config_toml;          // written to a file and passed with --config
  };

  explicit Daemon(Options options = {}) : options_(std::move(options)) {
    dir_ = std::make_unique<TempDir>(std::move(TempDir::Create("cannbot-daemon-test")).value());
    if (!options_.config_toml.empty()) {
      EXPECT_TRUE(WriteFile(dir_->File("cannbot.toml"), options_.config_toml).ok());
    }
  }
  ~Daemon() {
    if (child_ && child_->running()) child_->Kill();
  }

  // Starts the daemon and waits until /healthz answers 200 (or `ready` is false: any answer).
  // `port` 0 = any free port; a restart may ask for the port it had.
  bool Start(bool ready = true, int port = 0) {
    const std::string port_file = dir_->File("port");
    RemoveAll(port_file);
    SpawnOptions spawn;
    spawn.argv = {std::string(CANNBOT_BUILD_DIR) + "/cannbot", command_,
                  "--port", std::to_string(port), "--port-file", port_file,
                  "--db", dir_->File("cannbot.db")};
    if (!options_.config_toml.empty()) {
      spawn.argv.push_back("--config");
      spawn.argv.push_back(dir_->File("cannbot.toml"));
    }
    spawn.argv.insert(spawn.argv.end(), options_.args.begin(), options_.args.end());
    // The daemon's settings come from the test alone, not from the caller's environment.
    spawn.extra_environment = options_.env;
    for (const char* name : {"CANNBOT_TOKENS", "CANNBOT_LLM_URL", "CANNBOT_MODEL", "CANNBOT_HOST",
                             "CANNBOT_PORT", "CANNBOT_WORKERS", "CANNBOT_STORE"}) {
      const std::string prefix = std::string(name) + "=";
      bool given = false;
      for (const std::string& e : options_.env) given |= e.rfind(prefix, 0) == 0;
      if (!given) spawn.extra_environment.push_back(prefix);
    }
    spawn.output_path = dir_->File("daemon-" + std::to_string(++starts_) + ".log");
    auto child = ChildProcess::Spawn(spawn);
    if (!child.ok()) return false;
    child_ = std::make_unique<ChildProcess>(std::move(child).value());
    const auto deadline = SteadyClock::now() + std::chrono::seconds(60);
    while (SteadyClock::now() < deadline) {
      if (!child_->running() || child_->Poll()) return false;
      auto text = ReadFile(port_file);
      if (text.ok() && !text->empty()) {
        port_ = std::stoi(*text);
        HttpReply health = Get("/healthz");
        if (health.status == 200 || (!ready && health.status != 0)) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // Runs `cannbot worker` (a shared store's worker, with its API) instead of `serve`.
  void RunAsWorker() { command_ = "worker"; }

  // A crash: SIGKILL, no shutdown at all.
  void Kill9() {
    if (child_) child_->Kill();
  }
  // SIGTERM; returns the exit status once the daemon is gone (within `timeout`).
  std::optional<ExitInfo> Terminate(std::chrono::seconds timeout = std::chrono::seconds(60)) {
    if (!child_) return std::nullopt;
    ::kill(child_->pid(), SIGTERM);
    return child_->WaitUntil(SteadyClock::now() + timeout);
  }
  void SendTerm() { ::kill(child_->pid(), SIGTERM); }
  std::optional<ExitInfo> WaitExit(std::chrono::seconds timeout) {
    return child_->WaitUntil(SteadyClock::now() + timeout);
  }

  HttpReply Get(const std::string& path, const httplib::Headers& headers = {}) {
    auto res = Client()->Get(path.c_str(), headers);
    return Reply(res);
  }
  HttpReply Delete(const std::string& path, const httplib::Headers& headers = {}) {
    auto res = Client()->Delete(path.c_str(), headers);
    return Reply(res);
  }
  HttpReply Post(const std::string& path, const std::string& body,
                 const httplib::Headers& headers = {},
                 const std::string& content_type = "application/json") {
    auto res = Client()->Post(path.c_str(), headers, body, content_type.c_str());
    return Reply(res);
  }
  HttpReply PostJson(const std::string& path, const Json& body, const httplib::Headers& headers = {}) {
    return Post(path, body.dump(), headers);
  }

  // Reads a job's event stream until it ends (or `limit` passes); `after` resumes.
  std::vector<SseEvent> Events(const std::string& id, int64_t after = 0,
                               std::chrono::seconds limit = std::chrono::seconds(120),
                               const httplib::Headers& extra = {}) {
    std::vector<SseEvent> events;
    std::string buffer;
    httplib::Headers headers = extra;
    if (after > 0) headers.emplace("Last-Event-ID", std::to_string(after));
    auto client = Client();
    client->set_read_timeout(static_cast<time_t>(limit.count()), 0);
    client->Get(("/jobs/" + id + "/events").c_str(), headers,
                [&](const char* data, size_t size) {
                  buffer.append(data, size);
                  size_t end;
                  while ((end = buffer.find("\n\n")) != std::string::npos) {
                    events.push_back(Parse(buffer.substr(0, end)));
                    buffer.erase(0, end + 2);
                  }
                  return true;
                });
    std::erase_if(events, [](const SseEvent& e) { return e.type.empty(); });
    return events;
  }

  // Polls GET /jobs/{id} until its status is one of `states`.
  Json WaitFor(const std::string& id, std::vector<std::string> states,
               std::chrono::seconds limit = std::chrono::seconds(120)) {
    const auto deadline = SteadyClock::now() + limit;
    Json job;
    while (SteadyClock::now() < deadline) {
      job = Get("/jobs/" + id).json();
      if (job.is_object()) {
        for (const std::string& s : states) {
          if (job.value("status", std::string()) == s) return job;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "job " << id << " did not reach the expected state: " << job.dump();
    return job;
  }

  std::string Log() const {
    std::string all;
    for (int i = 1; i <= starts_; ++i) {
      auto text = ReadFile(dir_->File("daemon-" + std::to_string(i) + ".log"));
      if (text.ok()) all += *text;
    }
    return all;
  }
  int port() const { return port_; }
  pid_t pid() const { return child_ ? child_->pid() : -1; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string File(const std::string& name) const { return dir_->File(name); }

 private:
  std::unique_ptr<httplib::Client> Client() const {
    auto client = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client->set_connection_timeout(5, 0);
    client->set_read_timeout(300, 0);
    return client;
  }
  static HttpReply Reply(const httplib::Result& res) {
    if (!res) return {};
    return {res->status, res->body, res->headers};
  }
  static SseEvent Parse(const std::string& frame) {
    SseEvent e;
    std::string data;
    size_t start = 0;
    while (start <= frame.size()) {
      size_t end = frame.find('\n', start);
      if (end == std::string::npos) end = frame.size();
      const std::string line = frame.substr(start, end - start);
      if (line.rfind("id: ", 0) == 0) e.id = std::stoll(line.substr(4));
      if (line.rfind("event: ", 0) == 0) e.type = line.substr(7);
      if (line.rfind("data: ", 0) == 0) data += line.substr(6);
      start = end + 1;
    }
    e.data = Json::parse(data.empty() ? "{}" : data, nullptr, false);
    return e;
  }

  Options options_;
  std::string command_ = "serve";
  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<ChildProcess> child_;
  int port_ = 0;
  int starts_ = 0;
};

// A POST /optimize body for an example kernel with small offline settings, so a job takes
// seconds: at most `budget` recipe variants and no parameter search.
inline Json OfflineJob(const std::string& op, int budget = 1) {
  return {{"op", op},
          {"source", KernelText(op)},
          {"name", "naive.cpp"},
          {"options", {{"llm", "offline"}, {"budget", budget}, {"rounds", 0}, {"seed", 11}}}};
}

inline std::vector<std::string> Types(const std::vector<SseEvent>& events) {
  std::vector<std::string> types;
  for (const SseEvent& e : events) types.push_back(e.type);
  return types;
}

}  // namespace cannbot::testing
