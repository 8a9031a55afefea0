#include "cannbot/service/api.h"

namespace cannbot::service {

std::string ApiRequest::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

ApiResponse JsonResponse(int status, const nlohmann::json& body) {
  ApiResponse response;
  response.status = status;
  // Uploaded sources and profiles may hold invalid UTF-8: replace it rather than throw.
  response.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return response;
}

ApiResponse ErrorResponse(int status, const std::string& code, const std::string& message) {
  return JsonResponse(status, {{"error", {{"code", code}, {"message", message}}}});
}

ApiResponse StatusResponse(const Status& status) {
  int http = 500;
  switch (status.code()) {
    case Status::Code::kInvalidArgument: http = 400; break;
    case Status::Code::kNotFound: http = 404; break;
    case Status::Code::kUnavailable: http = 503; break;
    case Status::Code::kTimeout: http = 504; break;
    default: http = 500; break;
  }
  return ErrorResponse(http, Status::CodeName(status.code()), status.message());
}

}  // namespace cannbot::service
