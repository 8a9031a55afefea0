// From an optimisation's result to the comment's view of one kernel (ci/comment.h).
//
// Thread-safety: pure functions over values.
#pragma once

#include "cannbot/ci/comment.h"
#include "cannbot/ci/plan.h"
#include "cannbot/optimize/report.h"

namespace cannbot::ci {

// `report` is what the engine returned for the kernel of `job` (run here or on a daemon).
KernelSection SectionFromReport(const KernelJob& job, const optimize::OptimizeReport& report);

// A kernel the bot could not judge; `status` says why.
KernelSection SectionFromError(const KernelJob& job, const Status& status);

}  // namespace cannbot::ci
