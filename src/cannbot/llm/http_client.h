// HttpClient: the one interface through which cannbot's core speaks HTTP out (LLM servers,
// code-hosting APIs, the daemon as seen by the CLI). The production implementation uses
// libcurl; tests point it at real servers on loopback.
//
// Errors: Result errors are transport failures only (cannot connect, timed out, TLS, aborted
// through HttpRequest::abort); any HTTP status, 4xx and 5xx included, is a successful
// HttpResponse the caller interprets.
//
// Thread-safety: Send() may be called from several threads at once (one curl handle per call).
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cannbot/util/status.h"

namespace cannbot::llm {

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds total_timeout{300000};
  // Set by another thread (a cancelled job, a shutdown) to end the request early, within about
  // a second: Send then fails as Aborted. Null: never.
  const std::atomic<bool>* abort = nullptr;
};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  virtual Result<HttpResponse> Send(const HttpRequest& request) = 0;
};

std::unique_ptr<HttpClient> NewCurlHttpClient();

}  // namespace cannbot::llm
