// A scripted OpenAI-compatible server for tests: real HTTP on a loopback port, speaking the
// chat-completions protocol, answering from a script and recording what it was sent.
//
// Each scripted reply is used once, in order; when the script runs out the last reply repeats.
// Thread-safety: Push/requests may be called while the server runs (internal mutex).
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace cannbot::testing {

struct ScriptedReply {
  int status = 200;
  std::string body;                                    // raw body; see Chat() for the usual one
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds delay{0};                  // before answering (timeouts)
};

// A 200 answer with one choice per content string (ignoring the request's `n`).
inline ScriptedReply Chat(const std::vector<std::string>& contents) {
  nlohmann::json choices = nlohmann::json::array();
  for (size_t i = 0; i < contents.size(); ++i) {
    choices.push_back({{"index", i},
                       {"message", {{"role", "assistant"}, {"content", contents[i]}}},
                       {"finish_reason", "stop"}});
  }
  nlohmann::json body = {{"id", "chatcmpl-test"}, {"object", "chat.completion"},
                         {"model", "scripted"}, {"choices", choices}};
  return {200, body.dump(), {}, std::chrono::milliseconds(0)};
}

inline std::string Fenced(const std::string& code, const std::string& prose = "") {
  return prose + "\n```cpp\n" + code + "\n```\n";
}

class FakeLlmServer {
 public:
  FakeLlmServer() {
    server_.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      ScriptedReply reply;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(req.body);
        authorization_.push_back(req.get_header_value("Authorization"));
        if (!script_.empty()) {
          reply = script_.front();
          if (script_.size() > 1) script_.pop_front();
        } else {
          reply = {500, R"({"error":{"message":"no scripted reply"}})", {}, {}};
        }
      }
      // The delay in short naps: a server going away does not wait out a long one.
      const auto until = std::chrono::steady_clock::now() + reply.delay;
      while (std::chrono::steady_clock::now() < until && !closing_.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      res.status = reply.status;
      for (const auto& [name, value] : reply.headers) res.set_header(name, value);
      res.set_content(reply.body, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeLlmServer() {
    closing_.store(true);
    server_.stop();
    thread_.join();
  }

  void Push(const ScriptedReply& reply) {
    std::lock_guard<std::mutex> lock(mutex_);
    script_.push_back(reply);
  }
  std::vector<std::string> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  std::vector<std::string> authorization_headers() {
    std::lock_guard<std::mutex> lock(mutex_);
    return authorization_;
  }
  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

 private:
  httplib::Server server_;
  std::atomic<bool> closing_{false};
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::deque<ScriptedReply> script_;
  std::vector<std::string> requests_;
  std::vector<std::string> authorization_;
};

}  // namespace cannbot::testing
