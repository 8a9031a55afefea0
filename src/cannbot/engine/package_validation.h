// Validating an Ascend C operator package (`cannbot validate --target ascendc --package DIR`):
// every dtype combination its OpDef declares, each through the validator with the package's
// own tiling function and kernel as written (target/ascendc_package.h).
//
// With a baseline package each combination gets a full verdict (compile, numeric, the cost
// model's estimate against the baseline's); without one, the compile and numeric layers (is
// this a correct kernel?). A combination cannbot cannot launch yet (mixed dtypes, integer tensors)
// is listed as skipped with the reason, never silently dropped.
//
// Thread-safety: ValidatePackage may run concurrently (the Validator allows it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/ascendc/package.h"
#include "cannbot/ascendc/sample.h"
#include "cannbot/ops/registry.h"
#include "cannbot/validator/validator.h"

namespace cannbot::engine {

struct PackageRequest {
  std::string op;  // the op whose reference judges the package
  ascendc::Package candidate;  // ascendc::LoadPackage (a directory) or PackageFromFiles
  std::optional<ascendc::Package> baseline;  // none: compile and numeric layers only
  std::optional<uint64_t> seed;
  std::optional<double> min_speedup;  // with a baseline; none: the validator's
};

struct PackageRun {
  ascendc::DtypeCombo combo;
  std::string skipped;  // why this combination did not run; "" when it ran
  std::optional<validator::Verdict> verdict;    // with a baseline
  std::optional<validator::KernelCheck> check;  // without
  bool ok() const;  // ran and passed (false when skipped)
};

struct PackageReport {
  std::string op;
  std::string candidate, baseline;  // the packages' descriptions ("" baseline: none)
  ascendc::OpDefinition definition;  // a sample's: only `type`, its kernel's name
  bool sample = false;                // a sample-style kernel (ValidateSample), not a package
  std::vector<PackageRun> runs;
  // What a person should know about how the package was run: an OpDef attribute the op has
  // no value for (every launch used the attribute's OpDef default).
  std::vector<std::string> notes;
  // At least one combination ran, and every one that ran passed (skipped ones are listed).
  bool ok() const;
  nlohmann::json ToJson() const;
  std::string RenderText() const;
};

// Errors: a package that cannot be described or matched to the op (InvalidArgument, naming
// the file and the cause), an unknown op (NotFound), the validator's own failures.
Result<PackageReport> ValidatePackage(validator::Validator& validator,
                                      const ops::Registry& registry,
                                      const PackageRequest& request);

// A sample-style kernel (`cannbot validate --target ascendc --candidate DIR`): its host
// program's launch, replayed with the op's tensors at the sample's shape (ascendc/sample.h).
struct SampleRequest {
  std::string op;
  ascendc::Sample candidate;
  std::optional<ascendc::Sample> baseline;  // none: compile and numeric layers only
  std::optional<uint64_t> seed;
  std::optional<double> min_speedup;
};

// The report has one run: the sample's tensors in the dtypes its kernel uses. Errors: a
// sample whose host program does not launch what the op is (InvalidArgument, naming the
// sample and the cause), a baseline launched at another shape or dtypes, an unknown op.
Result<PackageReport> ValidateSample(validator::Validator& validator,
                                     const ops::Registry& registry, const SampleRequest& request);

}  // namespace cannbot::engine
