#include "cannbot/service/requests.h"

#include <algorithm>
#include <initializer_list>

namespace cannbot::service {
namespace {

using Json = nlohmann::json;

// Reads the fields of one JSON object, naming them in errors as `prefix` + key.
class Fields {
 public:
  Fields(const Json& object, std::string prefix) : object_(object), prefix_(std::move(prefix)) {}

  Status OnlyKnown(std::initializer_list<const char*> known) const {
    for (const auto& [key, value] : object_.items()) {
      if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) {
        return Status::InvalidArgument("unknown field '" + prefix_ + key + "'");
      }
    }
    return Status::Ok();
  }

  Status Text(const char* key, std::string* out, bool required, size_t max_bytes) const {
    if (!object_.contains(key)) {
      return required ? Status::InvalidArgument("missing field '" + Name(key) + "'")
                      : Status::Ok();
    }
    const Json& v = object_.at(key);
    if (!v.is_string()) return Wrong(key, "a string");
    *out = v.get<std::string>();
    if (required && out->empty()) return Status::InvalidArgument("field '" + Name(key) + "' is empty");
    if (out->size() > max_bytes) {
      return Status::InvalidArgument("field '" + Name(key) + "' is longer than " +
                                     std::to_string(max_bytes) + " bytes");
    }
    return Status::Ok();
  }

  Status Int(const char* key, std::optional<int>* out, int low, int high) const {
    if (!object_.contains(key)) return Status::Ok();
    const Json& v = object_.at(key);
    const std::string range = "an integer from " + std::to_string(low) + " to " + std::to_string(high);
    if (!v.is_number_integer()) return Wrong(key, range);
    const int64_t n = v.get<int64_t>();
    if (n < low || n > high) return Wrong(key, range);
    *out = static_cast<int>(n);
    return Status::Ok();
  }

  Status Number(const char* key, std::optional<double>* out, double above, double at_most) const {
    if (!object_.contains(key)) return Status::Ok();
    const Json& v = object_.at(key);
    const double x = v.is_number() ? v.get<double>() : 0;
    if (!v.is_number() || !(x > above) || x > at_most) {
      return Wrong(key, "a number above " + Short(above) + " and at most " + Short(at_most));
    }
    *out = x;
    return Status::Ok();
  }

  Status Seed(const char* key, std::optional<uint64_t>* out) const {
    if (!object_.contains(key)) return Status::Ok();
    const Json& v = object_.at(key);
    if (v.is_number_unsigned()) {
      *out = v.get<uint64_t>();
      return Status::Ok();
    }
    if (v.is_number_integer() && v.get<int64_t>() >= 0) {
      *out = static_cast<uint64_t>(v.get<int64_t>());
      return Status::Ok();
    }
    return Wrong(key, "a non-negative integer");
  }

  std::string Name(const char* key) const { return prefix_ + key; }

 private:
  Status Wrong(const char* key, const std::string& what) const {
    return Status::InvalidArgument("field '" + Name(key) + "' must be " + what);
  }
  static std::string Short(double x) {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", x);
    return text;
  }

  const Json& object_;
  std::string prefix_;
};

Result<LlmChoice> ParseLlm(const Json& v) {
  LlmChoice choice;
  if (v.is_string()) {
    if (v.get<std::string>() != "offline") {
      return Status::InvalidArgument(
          "field 'options.llm' must be \"offline\" or an object {url, model}");
    }
    choice.offline = true;
    return choice;
  }
  if (!v.is_object()) {
    return Status::InvalidArgument(
        "field 'options.llm' must be \"offline\" or an object {url, model}");
  }
  Fields f(v, "options.llm.");
  CANNBOT_RETURN_IF_ERROR(f.OnlyKnown({"url", "model"}));
  CANNBOT_RETURN_IF_ERROR(f.Text("url", &choice.url, false, 2048));
  CANNBOT_RETURN_IF_ERROR(f.Text("model", &choice.model, false, 256));
  return choice;
}

Result<JobOptions> ParseOptions(const Json& v) {
  if (!v.is_object()) return Status::InvalidArgument("field 'options' must be an object");
  JobOptions options;
  Fields f(v, "options.");
  CANNBOT_RETURN_IF_ERROR(f.OnlyKnown({"samples", "rounds", "budget", "min_speedup",
                                       "time_budget_seconds", "seed", "llm"}));
  CANNBOT_RETURN_IF_ERROR(f.Int("samples", &options.samples, 1, 16));
  CANNBOT_RETURN_IF_ERROR(f.Int("rounds", &options.rounds, 0, 20));
  CANNBOT_RETURN_IF_ERROR(f.Int("budget", &options.budget, 1, 256));
  CANNBOT_RETURN_IF_ERROR(f.Number("min_speedup", &options.min_speedup, 0, 100));
  CANNBOT_RETURN_IF_ERROR(f.Number("time_budget_seconds", &options.time_budget_seconds, 0, 86400));
  CANNBOT_RETURN_IF_ERROR(f.Seed("seed", &options.seed));
  if (v.contains("llm")) {
    CANNBOT_ASSIGN_OR_RETURN(options.llm, ParseLlm(v.at("llm")));
  }
  return options;
}

Status CheckName(const std::string& name) {
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '/' || c == '\\') {
      return Status::InvalidArgument("field 'name' must be a plain file name");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<Json> ParseBody(const std::string& body) {
  Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Status::InvalidArgument("the request body is not valid JSON");
  if (!json.is_object()) return Status::InvalidArgument("the request body is not a JSON object");
  return json;
}

Result<JobSpec> ParseJobSpec(const Json& body) {
  JobSpec spec;
  Fields f(body, "");
  CANNBOT_RETURN_IF_ERROR(f.OnlyKnown({"op", "source", "name", "profile", "profile_format",
                                       "profile_kernel", "target", "options"}));
  CANNBOT_RETURN_IF_ERROR(f.Text("op", &spec.op, true, 128));
  CANNBOT_RETURN_IF_ERROR(f.Text("source", &spec.source, true, kMaxSourceBytes));
  CANNBOT_RETURN_IF_ERROR(f.Text("name", &spec.name, false, 200));
  if (spec.name.empty()) spec.name = "kernel.cpp";
  CANNBOT_RETURN_IF_ERROR(CheckName(spec.name));
  if (body.contains("profile")) {  // present: it must hold something
    CANNBOT_RETURN_IF_ERROR(f.Text("profile", &spec.profile, true, size_t{1} << 30));
  }
  CANNBOT_RETURN_IF_ERROR(f.Text("profile_format", &spec.profile_format, false, 32));
  if (spec.profile_format.empty()) spec.profile_format = "auto";
  CANNBOT_RETURN_IF_ERROR(f.Text("profile_kernel", &spec.profile_kernel, false, 1024));
  CANNBOT_RETURN_IF_ERROR(f.Text("target", &spec.target, false, 32));
  if (spec.target != "cpu") {
    return Status::InvalidArgument("field 'target' must be \"cpu\" (the target the validator "
                                   "can run); got \"" + spec.target + "\"");
  }
  if (body.contains("options")) {
    CANNBOT_ASSIGN_OR_RETURN(spec.options, ParseOptions(body.at("options")));
  }
  return spec;
}

Result<ValidateRequest> ParseValidateRequest(const Json& body) {
  ValidateRequest request;
  Fields f(body, "");
  CANNBOT_RETURN_IF_ERROR(f.OnlyKnown({"op", "candidate", "baseline", "seed", "min_speedup"}));
  CANNBOT_RETURN_IF_ERROR(f.Text("op", &request.op, true, 128));
  CANNBOT_RETURN_IF_ERROR(f.Text("candidate", &request.candidate, true, kMaxSourceBytes));
  std::string baseline;
  CANNBOT_RETURN_IF_ERROR(f.Text("baseline", &baseline, false, kMaxSourceBytes));
  if (!baseline.empty()) request.baseline = baseline;
  CANNBOT_RETURN_IF_ERROR(f.Seed("seed", &request.seed));
  CANNBOT_RETURN_IF_ERROR(f.Number("min_speedup", &request.min_speedup, 0, 100));
  return request;
}

Result<DiagnoseRequest> ParseDiagnoseRequest(const Json& body) {
  DiagnoseRequest request;
  Fields f(body, "");
  CANNBOT_RETURN_IF_ERROR(f.OnlyKnown({"profile", "profile_format", "kernel", "device"}));
  CANNBOT_RETURN_IF_ERROR(f.Text("profile", &request.profile, true, size_t{1} << 30));
  CANNBOT_RETURN_IF_ERROR(f.Text("profile_format", &request.format, false, 32));
  if (request.format.empty()) request.format = "auto";
  CANNBOT_RETURN_IF_ERROR(f.Text("kernel", &request.kernel, false, 1024));
  CANNBOT_RETURN_IF_ERROR(f.Text("device", &request.device, false, 128));
  return request;
}

}  // namespace cannbot::service
