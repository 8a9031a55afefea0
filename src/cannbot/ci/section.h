// From an optimisation's result to the comment's view of one kernel (ci/comment.h).
//
// Thread-safety: pure functions over values.
#pragma once

#include <nlohmann/json.hpp>

#include "cannbot/ci/comment.h"
#include "cannbot/ci/plan.h"
#include "cannbot/optimize/pipeline.h"

namespace cannbot::ci {

// `result` is what optimize::Suggest returned for the kernel of `job`.
KernelSection SectionFromSuggest(const KernelJob& job, const optimize::SuggestResult& result);

// `report` is a daemon job's report document (GET /jobs/{id}: the report's JSON form with its
// kernel_check), for a run that optimised through `cannbot serve`. Missing or mistyped
// fields leave the section's defaults rather than failing: the daemon is trusted but may be
// of another version.
KernelSection SectionFromReportJson(const KernelJob& job, const nlohmann::json& report);

// A kernel the bot could not judge; `status` says why.
KernelSection SectionFromError(const KernelJob& job, const Status& status);

}  // namespace cannbot::ci
