// The daemon's router and error shape (service/router.h, service/api.h): OpenAPI-style
// patterns, path parameters, 404 versus 405, and the Status-to-HTTP mapping.
#include "cannbot/service/router.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace cannbot::service {
namespace {

ApiRequest Request(const std::string& method, const std::string& path) {
  ApiRequest r;
  r.method = method;
  r.path = path;
  return r;
}

nlohmann::json Body(const ApiResponse& r) { return nlohmann::json::parse(r.body); }

Router MakeRouter() {
  Router router;
  router.Add("GET", "/jobs", [](ApiRequest&) { return JsonResponse(200, {{"list", true}}); });
  router.Add("GET", "/jobs/{id}", [](ApiRequest& r) {
    return JsonResponse(200, {{"id", r.params.at(0)}});
  });
  router.Add("DELETE", "/jobs/{id}", [](ApiRequest& r) {
    return JsonResponse(202, {{"deleted", r.params.at(0)}});
  });
  router.Add("GET", "/jobs/{id}/events", [](ApiRequest& r) {
    return JsonResponse(200, {{"events", r.params.at(0)}});
  });
  return router;
}

TEST(ServiceRouterTest, MatchesExactPathsAndCapturesParameters) {
  Router router = MakeRouter();
  ApiRequest list = Request("GET", "/jobs");
  EXPECT_EQ(Body(router.Dispatch(list))["list"], true);
  ApiRequest one = Request("GET", "/jobs/j-42");
  EXPECT_EQ(Body(router.Dispatch(one))["id"], "j-42");
  ApiRequest events = Request("GET", "/jobs/j-42/events");
  EXPECT_EQ(Body(router.Dispatch(events))["events"], "j-42");
  ApiRequest del = Request("DELETE", "/jobs/j-7");
  ApiResponse deleted = router.Dispatch(del);
  EXPECT_EQ(deleted.status, 202);
  EXPECT_EQ(Body(deleted)["deleted"], "j-7");
}

TEST(ServiceRouterTest, AParameterIsOneSegmentAndNothingMatchesByPrefix) {
  Router router = MakeRouter();
  for (const char* path : {"/jobs/a/b", "/jobs/", "/jobsx", "/jobs/a/events/x", "/"}) {
    ApiRequest r = Request("GET", path);
    ApiResponse response = router.Dispatch(r);
    EXPECT_EQ(response.status, 404) << path;
    EXPECT_EQ(Body(response)["error"]["code"], "route_not_found") << path;
  }
}

TEST(ServiceRouterTest, AKnownPathWithAnotherMethodIs405WithAllow) {
  Router router = MakeRouter();
  ApiRequest r = Request("POST", "/jobs/j-1");
  ApiResponse response = router.Dispatch(r);
  EXPECT_EQ(response.status, 405);
  EXPECT_EQ(Body(response)["error"]["code"], "method_not_allowed");
  ASSERT_EQ(response.headers.size(), 1u);
  EXPECT_EQ(response.headers[0].first, "Allow");
  EXPECT_EQ(response.headers[0].second, "GET, DELETE");
}

TEST(ServiceRouterTest, PatternCharactersAreLiteral) {
  Router router;
  router.Add("GET", "/metrics.txt", [](ApiRequest&) { return JsonResponse(200, {}); });
  ApiRequest dot = Request("GET", "/metricsXtxt");
  EXPECT_EQ(router.Dispatch(dot).status, 404);
  ApiRequest exact = Request("GET", "/metrics.txt");
  EXPECT_EQ(router.Dispatch(exact).status, 200);
}

TEST(ServiceRouterTest, RoutesListsWhatWasAdded) {
  Router router = MakeRouter();
  std::vector<Router::Route> routes = router.Routes();
  ASSERT_EQ(routes.size(), 4u);
  EXPECT_EQ(routes[1].method, "GET");
  EXPECT_EQ(routes[1].pattern, "/jobs/{id}");
}

TEST(ServiceApiTest, ErrorsHaveOneShape) {
  ApiResponse r = ErrorResponse(429, "queue_full", "the job queue is full");
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(r.content_type, "application/json");
  nlohmann::json body = Body(r);
  ASSERT_EQ(body.size(), 1u);
  EXPECT_EQ(body["error"]["code"], "queue_full");
  EXPECT_EQ(body["error"]["message"], "the job queue is full");
}

TEST(ServiceApiTest, StatusCodesMapToHttpStatuses) {
  EXPECT_EQ(StatusResponse(Status::InvalidArgument("x")).status, 400);
  EXPECT_EQ(StatusResponse(Status::NotFound("x")).status, 404);
  EXPECT_EQ(StatusResponse(Status::Unavailable("x")).status, 503);
  EXPECT_EQ(StatusResponse(Status::Timeout("x")).status, 504);
  EXPECT_EQ(StatusResponse(Status::IoError("x")).status, 500);
  EXPECT_EQ(StatusResponse(Status::Internal("x")).status, 500);
  EXPECT_EQ(Body(StatusResponse(Status::NotFound("no job j-1")))["error"]["code"], "not_found");
}

TEST(ServiceApiTest, InvalidUtf8IsReplacedNotThrown) {
  ApiResponse r = JsonResponse(200, {{"text", std::string("bad \xff byte")}});
  EXPECT_NE(r.body.find("bad"), std::string::npos);
}

}  // namespace
}  // namespace cannbot::service
