// Api values: the daemon's requests and responses as plain data, independent of the HTTP
// library. The HTTP layer (http_server.h) converts to and from these; everything above it
// (router.h, routes.h) is testable without a socket.
//
// Every error leaves the daemon in one shape, {"error": {"code", "message"}}: `code` is a
// stable lower-case identifier clients may switch on, `message` one sentence for a person.
//
// Thread-safety: plain values.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/util/status.h"

namespace cannbot::service {

struct ApiRequest {
  std::string method;                          // "GET", "POST", ...
  std::string path;                            // "/jobs/j-1f2e", without the query
  std::map<std::string, std::string> query;    // first value of each query parameter
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  std::string request_id;                      // for logs; echoed as X-Request-Id
  std::vector<std::string> params;             // path parameters, filled by the Router

  // The header's value, or "" (`name` lower-case).
  std::string Header(const std::string& name) const;
};

// Writes one chunk of a streamed body; false once the client has gone away.
using StreamWriter = std::function<bool(std::string_view chunk)>;
// Produces a streamed body: called once, on the connection's thread; returns when done.
using StreamFn = std::function<void(const StreamWriter& write)>;

struct ApiResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  StreamFn stream;  // when set, the body is streamed (Server-Sent Events) instead of `body`
};

ApiResponse JsonResponse(int status, const nlohmann::json& body);
// The one error shape.
ApiResponse ErrorResponse(int status, const std::string& code, const std::string& message);
// A core Status as an error: InvalidArgument 400, NotFound 404, Unavailable 503, Timeout 504,
// anything else 500. The code is Status::CodeName ("invalid_argument", ...).
ApiResponse StatusResponse(const Status& status);

}  // namespace cannbot::service
