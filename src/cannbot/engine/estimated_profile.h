// A kernel for a target that does not run here, profiled without the hardware: its perf
// layer's estimate on the op's perf shape (PerfReport::candidate_profile; for ascendc the cost
// model of the emulated launch: duration, block dim, pipe ratios, as msprof's op summary
// shows them), so that `cannbot diagnose --target ascendc` and suggest jobs without a profiler
// output run the same rules on it as on a measured profile.
//
// The kernel is validated against itself (compile, numeric, then the estimate): a kernel that
// does not compile or computes wrong numbers has no profile, and the error says why.
//
// Thread-safety: as Validator::Validate (may run concurrently).
#pragma once

#include <string>

#include "cannbot/ascendc/package.h"
#include "cannbot/ascendc/sample.h"
#include "cannbot/ops/registry.h"
#include "cannbot/profile/profile.h"
#include "cannbot/target/target.h"
#include "cannbot/validator/validator.h"

namespace cannbot::engine {

// One kernel for `target`. InvalidArgument when the kernel does not reach the perf layer or
// the target estimates no profile. `spec`: as ValidationRequest::spec.
Result<profile::Profile> EstimateProfile(validator::Validator& validator,
                                         const target::Target& target, const std::string& op,
                                         const validator::KernelSource& kernel,
                                         const ops::OpSpec* spec = nullptr);

// An Ascend C operator package: one profile kernel per dtype combination that ran, named
// "<entry> (<combination>)".
Result<profile::Profile> EstimatePackageProfile(validator::Validator& validator,
                                                const ops::Registry& registry,
                                                const std::string& op,
                                                const ascendc::Package& package);
// A sample-style kernel (ascendc/sample.h): one profile kernel, "<entry> (<dtypes>)", at the
// shape its host program launches.
Result<profile::Profile> EstimateSampleProfile(validator::Validator& validator,
                                               const ops::Registry& registry,
                                               const std::string& op,
                                               const ascendc::Sample& sample);

}  // namespace cannbot::engine
