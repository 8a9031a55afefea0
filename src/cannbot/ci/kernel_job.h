// From one changed kernel of a pull request to an engine job, and from the job's report back
// to what the comment shows. The local optimiser (this process's Engine) and the remote one
// (a cannbot daemon) build the same JobSpec and read the same SuggestReport, so a kernel gets
// the same section whichever ran it.
//
// Thread-safety: pure functions over values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cannbot/ci/bot.h"
#include "cannbot/ci/repo_config.h"
#include "cannbot/engine/engine.h"

namespace cannbot::ci {

struct KernelJobSettings {
  Thresholds thresholds;                   // the repository's
  std::optional<uint64_t> seed;            // none: fresh inputs per run
  std::optional<int> rounds;               // none: the engine's default
  std::optional<engine::LlmChoice> llm;    // none: the runner's default provider
};

// The job for `input`. A configured profile that cannot be imported is left out and
// explained in `notes` (the kernel is diagnosed without it).
engine::JobSpec KernelJobSpec(const KernelInput& input, const KernelJobSettings& settings,
                              std::vector<std::string>* notes);

// The comment's view of a finished job, with `notes` first among the section's notes.
KernelOutcome OutcomeFromReport(const KernelJob& job, const engine::SuggestReport& report,
                                const std::vector<std::string>& notes);

}  // namespace cannbot::ci
