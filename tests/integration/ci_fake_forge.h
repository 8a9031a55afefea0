// A fake GitHub / GitCode comments API for the CI bot's tests: real HTTP on a loopback port,
// holding one pull request's comments in memory, paging them with Link headers like GitHub
// (GitCode-style paths page by number only), and recording every request it was sent.
//
//   GET   /repos/{o}/{r}/issues/{n}/comments?per_page&page   (GitHub)
//   POST  /repos/{o}/{r}/issues/{n}/comments
//   PATCH /repos/{o}/{r}/issues/comments/{id}
//   the same under /pulls/ (GitCode)
//
// Failures are scripted per method and answered before the normal behaviour, once each.
// Thread-safety: every accessor takes the internal mutex.
#pragma once

#include <httplib.h>

#include <chrono>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace cannbot::testing {

struct ForgeComment {
  int64_t id = 0;
  std::string body;
  std::string user;
};

struct ForgeRequest {
  std::string method;
  std::string target;  // path?query
  std::string authorization;
  std::string private_token;
  std::string body;
};

struct ForgeFailure {
  std::string method;  // "GET", "POST", "PATCH"
  int status = 500;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  bool apply_anyway = false;  // POST: create the comment, then answer the failure (a lost reply)
};

class FakeForge {
 public:
  FakeForge() {
    const std::string base = R"(/repos/([\w.-]+)/([\w.-]+)/(issues|pulls))";
    server_.Get(base + R"(/(\d+)/comments)",
                [this](const httplib::Request& req, httplib::Response& res) { List(req, res); });
    server_.Post(base + R"(/(\d+)/comments)",
                 [this](const httplib::Request& req, httplib::Response& res) { Create(req, res); });
    server_.Patch(
        base + R"(/comments/(\d+))",
        [this](const httplib::Request& req, httplib::Response& res) { Update(req, res); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeForge() {
    server_.stop();
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void AddComments(int count, const std::string& user = "reviewer") {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int i = 0; i < count; ++i) {
      comments_.push_back({next_id_++, "looks good " + std::to_string(i), user});
    }
  }
  void Fail(ForgeFailure failure) {
    std::lock_guard<std::mutex> lock(mutex_);
    failures_.push_back(std::move(failure));
  }
  std::vector<ForgeComment> comments() {
    std::lock_guard<std::mutex> lock(mutex_);
    return comments_;
  }
  std::vector<ForgeRequest> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

 private:
  // Records the request; answers a scripted failure for its method, if one is queued.
  bool Intercept(const httplib::Request& req, httplib::Response& res, bool* apply_anyway) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string target = req.path;
    std::string query;
    for (const auto& [k, v] : req.params) query += (query.empty() ? "?" : "&") + k + "=" + v;
    requests_.push_back({req.method, target + query, req.get_header_value("Authorization"),
                         req.get_header_value("PRIVATE-TOKEN"), req.body});
    for (auto it = failures_.begin(); it != failures_.end(); ++it) {
      if (it->method != req.method) continue;
      res.status = it->status;
      for (const auto& [name, value] : it->headers) res.set_header(name, value);
      res.set_content(it->body, "application/json");
      *apply_anyway = it->apply_anyway;
      failures_.erase(it);
      return true;
    }
    return false;
  }

  static nlohmann::json Json(const ForgeComment& c) {
    return {{"id", c.id},
            {"body", c.body},
            {"user", {{"login", c.user}}},
            {"html_url", "https://forge.test/c/" + std::to_string(c.id)}};
  }

  void List(const httplib::Request& req, httplib::Response& res) {
    bool apply = false;
    if (Intercept(req, res, &apply)) return;
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t per_page =
        req.has_param("per_page") ? std::stoul(req.get_param_value("per_page")) : 30;
    const size_t page = req.has_param("page") ? std::stoul(req.get_param_value("page")) : 1;
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = (page - 1) * per_page; i < comments_.size() && i < page * per_page; ++i) {
      out.push_back(Json(comments_[i]));
    }
    if (req.matches[3] == "issues" && page * per_page < comments_.size()) {
      res.set_header("Link", "<" + url() + req.path + "?per_page=" + std::to_string(per_page) +
                                 "&page=" + std::to_string(page + 1) + ">; rel=\"next\"");
    }
    res.set_content(out.dump(), "application/json");
  }

  void Create(const httplib::Request& req, httplib::Response& res) {
    bool apply = false;
    const bool failed = Intercept(req, res, &apply);
    if (failed && !apply) return;
    std::lock_guard<std::mutex> lock(mutex_);
    auto body = nlohmann::json::parse(req.body, nullptr, false);
    comments_.push_back({next_id_++, body.value("body", std::string()), "cannbot-bot"});
    if (failed) return;
    res.status = 201;
    res.set_content(Json(comments_.back()).dump(), "application/json");
  }

  void Update(const httplib::Request& req, httplib::Response& res) {
    bool apply = false;
    if (Intercept(req, res, &apply)) return;
    std::lock_guard<std::mutex> lock(mutex_);
    const int64_t id = std::stoll(req.matches[4]);
    for (ForgeComment& c : comments_) {
      if (c.id != id) continue;
      c.body = nlohmann::json::parse(req.body, nullptr, false).value("body", std::string());
      res.set_content(Json(c).dump(), "application/json");
      return;
    }
    res.status = 404;
    res.set_content(R"({"message":"Not Found"})", "application/json");
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::vector<ForgeComment> comments_;
  int64_t next_id_ = 1000;
  std::deque<ForgeFailure> failures_;
  std::vector<ForgeRequest> requests_;
};

}  // namespace cannbot::testing
