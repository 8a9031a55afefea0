// HeadlessBrowser: a real Chromium (Debian's `chromium`) driven over the DevTools protocol on
// a pipe (--remote-debugging-pipe: commands on the child's fd 3, answers and events on fd 4,
// each a JSON text ended by a NUL byte), so a test can open a page, let its scripts run
// against a live server, and read back the DOM the browser built or a screenshot.
//
// Ownership: owns the browser process (killed with its group when destroyed) and its profile
// directory. Thread-safety: one test thread.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cannbot/util/fs.h"
#include "cannbot/util/subprocess.h"

namespace cannbot::testing {

class HeadlessBrowser {
 public:
  using Json = nlohmann::json;

  // nullptr with *error set when Chromium cannot start.
  static std::unique_ptr<HeadlessBrowser> Start(std::string* error) {
    std::unique_ptr<HeadlessBrowser> b(new HeadlessBrowser());
    auto dir = TempDir::Create("cannbot-browser");
    if (!dir.ok()) return Fail(error, dir.status().ToString());
    b->profile_ = std::make_unique<TempDir>(std::move(dir).value());
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) {
      return Fail(error, "pipe failed");
    }
    SpawnOptions spawn;
    spawn.argv = {"chromium", "--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-dev-shm-usage", "--no-first-run", "--remote-debugging-pipe",
                  "--user-data-dir=" + b->profile_->File("profile"), "--window-size=1200,1800",
                  "about:blank"};
    spawn.inherit_fds = {{to_child[0], 3}, {from_child[1], 4}};
    spawn.output_path = b->profile_->File("chromium.log");
    auto child = ChildProcess::Spawn(spawn);
    close(to_child[0]);
    close(from_child[1]);
    b->write_fd_ = to_child[1];
    b->read_fd_ = from_child[0];
    if (!child.ok()) return Fail(error, "cannot start chromium: " + child.status().ToString());
    b->child_ = std::make_unique<ChildProcess>(std::move(child).value());
    if (b->Call("Browser.getVersion", Json::object()).is_null()) {
      auto log = ReadFile(spawn.output_path);
      return Fail(error, "chromium did not answer: " + (log.ok() ? *log : std::string()));
    }
    return b;
  }
  ~HeadlessBrowser() {
    if (write_fd_ >= 0) close(write_fd_);
    if (read_fd_ >= 0) close(read_fd_);
    if (child_ && child_->running()) child_->Kill();
  }

  // Opens `url` in a new page and waits for it to load; the page's session id.
  std::string Open(const std::string& url) {
    Json target = Call("Target.createTarget", {{"url", url}});
    if (!target.contains("targetId")) return "";
    Json attached = Call("Target.attachToTarget", {{"targetId", target["targetId"]}, {"flatten", true}});
    const std::string session = attached.value("sessionId", "");
    // The new page starts as about:blank, already "complete": wait for the real document.
    WaitFor(session, "location.href !== 'about:blank' && document.readyState === 'complete'",
            std::chrono::seconds(30));
    return session;
  }
  // The value of a JavaScript expression in the page (returned by value).
  Json Evaluate(const std::string& session, const std::string& expression) {
    Json r = Call("Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}}, session);
    return r.is_object() && r.contains("result") ? r["result"].value("value", Json()) : Json();
  }
  // Polls `condition` until it is true or `limit` passes.
  bool WaitFor(const std::string& session, const std::string& condition,
               std::chrono::milliseconds limit) {
    const auto deadline = SteadyClock::now() + limit;
    while (SteadyClock::now() < deadline) {
      if (Evaluate(session, "!!(" + condition + ")") == true) return true;
      usleep(100 * 1000);
    }
    return false;
  }
  std::string Dom(const std::string& session) {
    Json html = Evaluate(session, "document.documentElement.outerHTML");
    return html.is_string() ? html.get<std::string>() : "";
  }
  bool Screenshot(const std::string& session, const std::string& path) {
    Json shot = Call("Page.captureScreenshot", {{"format", "png"}, {"captureBeyondViewport", true}},
                     session);
    if (!shot.contains("data")) return false;
    return WriteFile(path, Base64Decode(shot["data"].get<std::string>())).ok();
  }

  // One protocol command; its result, or null on an error or after 60 s.
  Json Call(const std::string& method, const Json& params, const std::string& session = "") {
    Json message = {{"id", ++next_id_}, {"method", method}, {"params", params}};
    if (!session.empty()) message["sessionId"] = session;
    const std::string text = message.dump() + std::string(1, '\0');
    if (write(write_fd_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) return Json();
    const auto deadline = SteadyClock::now() + std::chrono::seconds(60);
    while (SteadyClock::now() < deadline) {
      const size_t end = buffer_.find('\0');
      if (end == std::string::npos) {
        if (!ReadMore(deadline)) return Json();
        continue;
      }
      Json reply = Json::parse(buffer_.substr(0, end), nullptr, false);
      buffer_.erase(0, end + 1);
      if (reply.is_object() && reply.value("id", -1) == next_id_) {
        return reply.contains("result") ? reply["result"] : Json();
      }
    }
    return Json();
  }

 private:
  HeadlessBrowser() = default;
  static std::unique_ptr<HeadlessBrowser> Fail(std::string* error, const std::string& why) {
    *error = why;
    return nullptr;
  }
  bool ReadMore(SteadyClock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    pollfd fd{read_fd_, POLLIN, 0};
    if (poll(&fd, 1, static_cast<int>(std::max<int64_t>(1, left.count()))) <= 0) return false;
    char chunk[65536];
    const ssize_t n = read(read_fd_, chunk, sizeof(chunk));
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }
  static std::string Base64Decode(const std::string& in) {
    std::string out;
    int value = 0, bits = -8;
    for (unsigned char c : in) {
      int d;
      if (c >= 'A' && c <= 'Z') d = c - 'A';
      else if (c >= 'a' && c <= 'z') d = c - 'a' + 26;
      else if (c >= '0' && c <= '9') d = c - '0' + 52;
      else if (c == '+') d = 62;
      else if (c == '/') d = 63;
      else continue;
      value = ((value << 6) | d) & 0xFFFFFF;  // only the last bits are ever read
      bits += 6;
      if (bits >= 0) {
        out.push_back(static_cast<char>((value >> bits) & 0xFF));
        bits -= 8;
      }
    }
    return out;
  }

  std::unique_ptr<TempDir> profile_;
  std::unique_ptr<ChildProcess> child_;
  int write_fd_ = -1;
  int read_fd_ = -1;
  int next_id_ = 0;
  std::string buffer_;
};

}  // namespace cannbot::testing
