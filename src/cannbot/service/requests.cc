#include "cannbot/service/requests.h"

#include "cannbot/util/request_fields.h"

namespace cannbot::service {
using Json = nlohmann::json;

Result<Json> ParseBody(const std::string& body) {
  Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Status::InvalidArgument("the request body is not valid JSON");
  if (!json.is_object()) return Status::InvalidArgument("the request body is not a JSON object");
  return json;
}

Result<JobSpec> ParseJobSpec(const Json& body) { return JobSpec::FromJson(body); }

using engine::PackageField;

Result<ValidateRequest> ParseValidateRequest(const Json& body) {
  ValidateRequest request;
  RequestFields f(body, "");
  CANNBOT_RETURN_IF_ERROR(f.OnlyKnown(
      {"op", "candidate", "baseline", "seed", "min_speedup", "package", "baseline_package"}));
  CANNBOT_RETURN_IF_ERROR(f.Text("op", &request.op, true, 128));
  CANNBOT_ASSIGN_OR_RETURN(request.package,
                           PackageField(body, "package", &request.package_operator));
  CANNBOT_ASSIGN_OR_RETURN(
      request.baseline_package,
      PackageField(body, "baseline_package", &request.baseline_package_operator));
  CANNBOT_RETURN_IF_ERROR(
      f.Text("candidate", &request.candidate, !request.package, kMaxSourceBytes));
  if (request.package && !request.candidate.empty()) {
    return Status::InvalidArgument("give either 'candidate' (a kernel source) or 'package' (an "
                                   "Ascend C operator package), not both");
  }
  if (request.baseline_package && !request.package) {
    return Status::InvalidArgument("field 'baseline_package' goes with 'package'");
  }
  std::string baseline;
  CANNBOT_RETURN_IF_ERROR(f.Text("baseline", &baseline, false, kMaxSourceBytes));
  if (!baseline.empty()) request.baseline = baseline;
  if (request.baseline && request.package) {
    return Status::InvalidArgument("the baseline of a 'package' is 'baseline_package'");
  }
  CANNBOT_RETURN_IF_ERROR(f.Seed("seed", &request.seed));
  CANNBOT_RETURN_IF_ERROR(f.Number("min_speedup", &request.min_speedup, 0, 100));
  return request;
}

Result<DiagnoseRequest> ParseDiagnoseRequest(const Json& body) {
  DiagnoseRequest request;
  RequestFields f(body, "");
  CANNBOT_RETURN_IF_ERROR(f.OnlyKnown({"profile", "profile_format", "kernel", "device"}));
  CANNBOT_RETURN_IF_ERROR(f.Text("profile", &request.profile, true, size_t{1} << 30));
  std::string format = "auto";
  CANNBOT_RETURN_IF_ERROR(f.Text("profile_format", &format, false, 32));
  auto parsed = profile::ParseFormat(format);
  if (!parsed.ok()) {
    return Status::InvalidArgument("field 'profile_format': " + parsed.status().message());
  }
  request.format = *parsed;
  CANNBOT_RETURN_IF_ERROR(f.Text("kernel", &request.kernel, false, 1024));
  CANNBOT_RETURN_IF_ERROR(f.Text("device", &request.device, false, 128));
  return request;
}

}  // namespace cannbot::service
