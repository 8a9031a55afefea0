#include "cannbot/service/router.h"

namespace cannbot::service {
namespace {

// "/jobs/{id}/events" -> "/jobs/([^/]+)/events", other characters taken literally.
std::string PatternToRegex(const std::string& pattern) {
  static const std::string kSpecial = R"(\^$.|?*+()[]{})";
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{') {
      const size_t close = pattern.find('}', i);
      if (close != std::string::npos) {
        out += "([^/]+)";
        i = close;
        continue;
      }
    }
    if (kSpecial.find(pattern[i]) != std::string::npos) out += '\\';
    out += pattern[i];
  }
  return out;
}

}  // namespace

void Router::Add(const std::string& method, const std::string& pattern, Handler handler) {
  entries_.push_back({{method, pattern}, std::regex(PatternToRegex(pattern)), std::move(handler)});
}

ApiResponse Router::Dispatch(ApiRequest& request) const {
  std::string allowed;
  for (const Entry& entry : entries_) {
    std::smatch match;
    if (!std::regex_match(request.path, match, entry.regex)) continue;
    if (entry.route.method != request.method) {
      allowed += (allowed.empty() ? "" : ", ") + entry.route.method;
      continue;
    }
    request.params.clear();
    for (size_t i = 1; i < match.size(); ++i) request.params.push_back(match[i].str());
    return entry.handler(request);
  }
  if (!allowed.empty()) {
    ApiResponse response = ErrorResponse(
        405, "method_not_allowed", request.method + " is not served on " + request.path);
    response.headers.push_back({"Allow", allowed});
    return response;
  }
  return ErrorResponse(404, "route_not_found", "no route " + request.method + " " + request.path);
}

std::vector<Router::Route> Router::Routes() const {
  std::vector<Route> routes;
  for (const Entry& entry : entries_) routes.push_back(entry.route);
  return routes;
}

}  // namespace cannbot::service
