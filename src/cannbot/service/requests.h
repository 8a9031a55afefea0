// Requests: strict parsing of the JSON bodies the daemon accepts (POST /optimize, /validate,
// /diagnose). A missing or wrong-typed field, an unknown field (a typo is not silently
// ignored) or a value out of range is InvalidArgument naming the field. Whether the op
// exists and whether the profile can be read are left to the caller, which answers them
// with their own error codes.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cannbot/ascendc/package.h"
#include "cannbot/profile/import.h"
#include "cannbot/service/job.h"
#include "cannbot/util/status.h"

namespace cannbot::service {

using engine::kMaxSourceBytes;

struct ValidateRequest {
  std::string op;
  std::string candidate;                 // kernel source ("" when `package` is given)
  std::optional<std::string> baseline;   // none: the op's reference kernel
  std::optional<uint64_t> seed;
  std::optional<double> min_speedup;
  // An Ascend C operator package instead of `candidate`: {"files": {path: text}} with every
  // path under op_host/ or op_kernel/ (docs/ascendc.md), and the package it replaces.
  std::optional<ascendc::PackageFiles> package;
  std::optional<ascendc::PackageFiles> baseline_package;
  // The operator to run of packages that define several (each package's "operator").
  std::string package_operator, baseline_package_operator;
};

struct DiagnoseRequest {
  std::string profile;          // profiler output
  profile::Format format = profile::Format::kAuto;
  std::string kernel;           // which kernel, "" = hottest
  std::string device;           // e.g. "Ascend910B3", for formats that do not carry one
};

// The body as a JSON object; InvalidArgument ("invalid_json" to clients) otherwise.
Result<nlohmann::json> ParseBody(const std::string& body);

// JobSpec::FromJson (the one parser of a job, engine/job_spec.h).
Result<JobSpec> ParseJobSpec(const nlohmann::json& body);
Result<ValidateRequest> ParseValidateRequest(const nlohmann::json& body);
Result<DiagnoseRequest> ParseDiagnoseRequest(const nlohmann::json& body);

}  // namespace cannbot::service
