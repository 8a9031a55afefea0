#include "cannbot/service/http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <cctype>
#include <chrono>
#include <random>

namespace cannbot::service {
namespace {

// Client-chosen ids are echoed into logs: only short, plain ones are taken.
bool SaneRequestId(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return false;
    }
  }
  return true;
}

ApiRequest ToApi(const httplib::Request& req) {
  ApiRequest api;
  api.method = req.method;
  api.path = req.path;
  for (const auto& [name, value] : req.params) api.query.emplace(name, value);  // first wins
  for (const auto& [name, value] : req.headers) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    api.headers.emplace(lower, value);
  }
  api.body = req.body;
  const std::string given = req.get_header_value("X-Request-Id");
  api.request_id = SaneRequestId(given) ? given : NewRequestId();
  return api;
}

void Write(const ApiResponse& api, const std::string& request_id, httplib::Response& res) {
  res.status = api.status;
  for (const auto& [name, value] : api.headers) res.set_header(name, value);
  res.set_header("X-Request-Id", request_id);
  if (!api.stream) {
    res.set_content(api.body, api.content_type);
    return;
  }
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");  // reverse proxies: pass events on at once
  StreamFn stream = api.stream;
  res.set_chunked_content_provider(api.content_type, [stream](size_t, httplib::DataSink& sink) {
    stream([&sink](std::string_view chunk) {
      return sink.is_writable() && sink.write(chunk.data(), chunk.size());
    });
    sink.done();
    return true;
  });
}

}  // namespace

std::string NewRequestId() {
  std::random_device device;
  std::uniform_int_distribution<uint64_t> any;
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx",
                static_cast<unsigned long long>(any(device)));
  return text;
}

HttpServer::HttpServer(HttpServerOptions options, Handler handler,
                       std::shared_ptr<spdlog::logger> log)
    : options_(std::move(options)), handler_(std::move(handler)), log_(std::move(log)) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Serve(const httplib::Request& req, httplib::Response& res) {
  const auto start = std::chrono::steady_clock::now();
  ApiRequest api = ToApi(req);
  ApiResponse response;
  try {
    response = handler_(api);
  } catch (const std::exception& e) {
    log_->error("req={} {} {}: uncaught exception: {}", api.request_id, api.method, api.path,
                e.what());
    response = ErrorResponse(500, "internal", "internal error (request " + api.request_id + ")");
  } catch (...) {
    log_->error("req={} {} {}: uncaught non-standard exception", api.request_id, api.method,
                api.path);
    response = ErrorResponse(500, "internal", "internal error (request " + api.request_id + ")");
  }
  Write(response, api.request_id, res);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  log_->info("req={} {} {} -> {}{} {:.1f} ms", api.request_id, api.method, api.path,
             response.status, response.stream ? " (stream)" : "", ms);
}

Result<int> HttpServer::Start() {
  server_ = std::make_unique<httplib::Server>();
  const int threads = std::max(2, options_.threads);
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  server_->set_payload_max_length(options_.max_body_bytes);
  // Small JSON answers: without TCP_NODELAY each waits ~40 ms for the client's delayed ACK.
  server_->set_tcp_nodelay(true);
  server_->set_keep_alive_max_count(1000);
  // The library's default options add SO_REUSEPORT, which lets a second daemon bind the same
  // port and silently take half the connections: only SO_REUSEADDR (a restart right after a
  // crash binds despite TIME_WAIT). And cpp-httplib 0.11 listens with a backlog of 5, which a
  // burst of clients (a CI fan-out) overflows, resetting connections: the socket is kept here
  // and listen() is called again with a real backlog once it is bound (Linux updates it).
  server_->set_socket_options([this](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_fd_ = sock;
  });
  auto serve = [this](const httplib::Request& req, httplib::Response& res) { Serve(req, res); };
  // Every method reaches the Router, which knows the difference between 404 and 405.
  server_->Get(".*", serve);
  server_->Post(".*", serve);
  server_->Put(".*", serve);
  server_->Patch(".*", serve);
  server_->Delete(".*", serve);
  server_->Options(".*", serve);
  // Errors the library answers by itself (413 body too large, 400 malformed request) and
  // anything that escaped a handler: the one error shape, never an empty body.
  server_->set_exception_handler([this](const httplib::Request& req, httplib::Response& res,
                                        std::exception_ptr) {
    log_->error("{} {}: exception escaped the request handler", req.method, req.path);
    res.status = 500;
    res.set_content(ErrorResponse(500, "internal", "internal error").body, "application/json");
  });
  server_->set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return;
    const std::string code = res.status == 413 ? "payload_too_large" : "bad_request";
    const std::string message = res.status == 413 ? "the request body is over the size limit"
                                                  : "the request could not be read";
    res.set_content(ErrorResponse(res.status, code, message).body, "application/json");
  });
  const int port = options_.port == 0 ? server_->bind_to_any_port(options_.host)
                                      : (server_->bind_to_port(options_.host, options_.port)
                                             ? options_.port
                                             : -1);
  if (port <= 0) {
    server_.reset();
    return Status::IoError("cannot listen on " + options_.host + ":" +
                           std::to_string(options_.port));
  }
  if (listen_fd_ >= 0) ::listen(listen_fd_, SOMAXCONN);
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!server_->is_running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      Stop();
      return Status::IoError("the HTTP server did not start on port " + std::to_string(port));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return port;
}

void HttpServer::Stop() {
  if (!server_) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

}  // namespace cannbot::service
