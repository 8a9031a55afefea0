// From an optimisation's result to the comment's view of one kernel (ci/comment.h).
//
// Thread-safety: pure functions over values.
#pragma once

#include "cannbot/ci/comment.h"
#include "cannbot/ci/plan.h"
#include "cannbot/optimize/pipeline.h"

namespace cannbot::ci {

// `result` is what optimize::Suggest returned for the kernel of `job`.
KernelSection SectionFromSuggest(const KernelJob& job, const optimize::SuggestResult& result);

// A kernel the bot could not judge; `status` says why.
KernelSection SectionFromError(const KernelJob& job, const Status& status);

}  // namespace cannbot::ci
