// The daemon's HTTP layer (service/http_server.h) on a loopback port: whatever a handler
// does, the client gets an answer in the one error shape, with a request id; streamed
// bodies arrive whole.
#include "cannbot/service/http_server.h"

#include <httplib.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <spdlog/sinks/null_sink.h>

namespace cannbot::service {
namespace {

std::shared_ptr<spdlog::logger> QuietLog() {
  return std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>());
}

class HttpServerTest : public ::testing::Test {
 protected:
  void Start(HttpServer::Handler handler, size_t max_body = 1024) {
    HttpServerOptions options;
    options.max_body_bytes = max_body;
    server_ = std::make_unique<HttpServer>(options, std::move(handler), QuietLog());
    auto port = server_->Start();
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    port_ = *port;
  }
  httplib::Client Client() const { return httplib::Client("127.0.0.1", port_); }
  static std::string Code(const std::string& body) {
    auto json = nlohmann::json::parse(body, nullptr, false);
    return json.is_object() && json.contains("error") ? json["error"].value("code", "") : "";
  }

  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
};

TEST_F(HttpServerTest, HandlerSeesTheRequestAndItsAnswerIsWritten) {
  Start([](ApiRequest& r) {
    return JsonResponse(201, {{"method", r.method}, {"path", r.path}, {"q", r.query["q"]},
                              {"h", r.Header("x-thing")}, {"body", r.body}});
  });
  auto res = Client().Post("/a/b?q=1", {{"X-Thing", "yes"}}, "data", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201);
  auto json = nlohmann::json::parse(res->body);
  EXPECT_EQ(json["method"], "POST");
  EXPECT_EQ(json["path"], "/a/b");
  EXPECT_EQ(json["q"], "1");
  EXPECT_EQ(json["h"], "yes");
  EXPECT_EQ(json["body"], "data");
  EXPECT_EQ(res->get_header_value("X-Request-Id").size(), 16u);
}

TEST_F(HttpServerTest, AnyExceptionIsA500InTheErrorShape) {
  Start([](ApiRequest& r) -> ApiResponse {
    if (r.path == "/std") throw std::runtime_error("boom");
    throw 42;
  });
  for (const char* path : {"/std", "/other"}) {
    auto res = Client().Get(path, {{"X-Request-Id", "rid-1"}});
    ASSERT_TRUE(res) << path;  // an answer, not a dropped connection
    EXPECT_EQ(res->status, 500);
    EXPECT_EQ(Code(res->body), "internal") << res->body;
    EXPECT_NE(res->body.find("rid-1"), std::string::npos);  // the message names the request
    EXPECT_EQ(res->body.find("boom"), std::string::npos);   // internals stay in the log
  }
}

TEST_F(HttpServerTest, BodiesOverTheLimitAre413InTheErrorShape) {
  Start([](ApiRequest&) { return JsonResponse(200, {}); }, 100);
  auto res = Client().Post("/x", std::string(1000, 'a'), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
  EXPECT_EQ(Code(res->body), "payload_too_large") << res->body;
}

TEST_F(HttpServerTest, StreamsArriveWholeAndInOrder) {
  Start([](ApiRequest&) {
    ApiResponse r;
    r.content_type = "text/event-stream";
    r.stream = [](const StreamWriter& write) {
      for (int i = 0; i < 50; ++i) {
        if (!write("id: " + std::to_string(i) + "\n\n")) return;
      }
    };
    return r;
  });
  auto res = Client().Get("/events");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/event-stream");
  std::string expected;
  for (int i = 0; i < 50; ++i) expected += "id: " + std::to_string(i) + "\n\n";
  EXPECT_EQ(res->body, expected);
}

TEST_F(HttpServerTest, ABusyPortIsAnError) {
  Start([](ApiRequest&) { return JsonResponse(200, {}); });
  HttpServerOptions options;
  options.port = port_;
  HttpServer second(options, [](ApiRequest&) { return JsonResponse(200, {}); }, QuietLog());
  auto port = second.Start();
  EXPECT_FALSE(port.ok());
  EXPECT_EQ(port.status().code(), Status::Code::kIoError);
}

}  // namespace
}  // namespace cannbot::service
