// HttpServer: the only place the daemon touches the HTTP library (cpp-httplib). It turns each
// request into an ApiRequest, hands it to one handler, and writes the ApiResponse back,
// streaming it when the response asks for that (Server-Sent Events).
//
// Around the handler it adds what every request needs: a request id (the client's
// X-Request-Id when it is sane, else a fresh one; echoed back and logged), one log line per
// request, the body size limit (413), and the last line of defence: any exception a handler
// lets escape becomes a 500 in the one error shape, never a dropped connection. Errors the
// library produces itself (413, malformed requests) get the same shape.
//
// Ownership: owns the listening socket and its threads; borrows the logger.
// Thread-safety: Start and Stop from one thread; the handler runs on the server's threads,
// several at once.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <spdlog/logger.h>

#include "cannbot/service/api.h"
#include "cannbot/util/status.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace cannbot::service {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;                       // 0 = any free port
  size_t max_body_bytes = 8u << 20;   // larger bodies answer 413
  int threads = 32;                   // connections served at once
};

class HttpServer {
 public:
  using Handler = std::function<ApiResponse(ApiRequest&)>;

  HttpServer(HttpServerOptions options, Handler handler, std::shared_ptr<spdlog::logger> log);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts serving on background threads; returns the bound port. IoError when
  // the address cannot be bound.
  Result<int> Start();
  // Stops accepting and waits for requests in flight (streams must end by themselves).
  void Stop();

 private:
  void Serve(const httplib::Request& request, httplib::Response& response);

  HttpServerOptions options_;
  Handler handler_;
  std::shared_ptr<spdlog::logger> log_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int listen_fd_ = -1;  // the listening socket, to raise its backlog
};

// A request id for logs: random, 16 hex digits.
std::string NewRequestId();

}  // namespace cannbot::service
