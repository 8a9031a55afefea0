// Router: maps (method, path) to a handler. Patterns are written as in the OpenAPI spec
// ("/jobs/{id}/events"); each {name} matches one path segment and is passed to the handler in
// ApiRequest::params, in order. A path no route matches answers 404 route_not_found; a path
// that matches with another method answers 405 method_not_allowed with an Allow header.
//
// Routes() lists what is served, so a test can hold it against server/openapi.yaml.
//
// Thread-safety: add every route before the first Dispatch; Dispatch is then const and safe
// from any thread.
#pragma once

#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "cannbot/service/api.h"

namespace cannbot::service {

class Router {
 public:
  using Handler = std::function<ApiResponse(ApiRequest&)>;

  struct Route {
    std::string method;   // "GET"
    std::string pattern;  // "/jobs/{id}"
  };

  void Add(const std::string& method, const std::string& pattern, Handler handler);
  ApiResponse Dispatch(ApiRequest& request) const;
  std::vector<Route> Routes() const;

 private:
  struct Entry {
    Route route;
    std::regex regex;
    Handler handler;
  };
  std::vector<Entry> entries_;
};

}  // namespace cannbot::service
