// An Ascend C kernel or operator package profiled without the hardware: its emulated launch
// on the op's perf shape, as the cost model sees it, in the profile model (what msprof's op
// summary would show: duration, block dim, pipe ratios), so that `cannbot diagnose --target
// ascendc` runs the same rules on it as on a measured profile.
//
// The kernel is validated against itself (compile, numeric, then the estimate): a kernel that
// does not compile or computes wrong numbers has no profile, and the error says why.
//
// Thread-safety: as Validator::Validate (may run concurrently).
#pragma once

#include <string>

#include "cannbot/ascendc/package.h"
#include "cannbot/ops/registry.h"
#include "cannbot/profile/profile.h"
#include "cannbot/validator/validator.h"

namespace cannbot::engine {

// One kernel in cannbot's ascendc dialect (docs/kernel-abi.md).
Result<profile::Profile> EstimateAscendcProfile(validator::Validator& validator,
                                                const std::string& op,
                                                const validator::KernelSource& kernel);

// An operator package: one profile kernel per dtype combination that ran, named
// "<entry> (<combination>)".
Result<profile::Profile> EstimatePackageProfile(validator::Validator& validator,
                                                const ops::Registry& registry,
                                                const std::string& op,
                                                const ascendc::Package& package);

}  // namespace cannbot::engine
