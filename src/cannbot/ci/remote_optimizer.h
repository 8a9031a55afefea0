// RemoteOptimizer: the CI bot's KernelOptimizer that optimises through a cannbot daemon
// (`cannbot ci --server URL`): each kernel's JobSpec (KernelJobSpec, as LocalOptimizer builds
// it) becomes one POST /optimize job, followed through its events to the end, and the job's
// report, read back into a SuggestReport, becomes the comment's section.
//
// The daemon's own settings decide what the job does not say (its LLM, unless `llm` names one).
//
// Ownership: owns its client. Thread-safety: one Optimize at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cannbot/ci/bot.h"
#include "cannbot/service/daemon_client.h"

namespace cannbot::ci {

struct RemoteOptimizerConfig {
  service::DaemonClientConfig daemon;
  Thresholds thresholds;         // the repository's
  std::string llm;               // "" = the daemon's default, "offline", or a URL it allows
  std::string model;
  std::optional<uint64_t> seed;  // none: fresh inputs per run
  int rounds = -1;               // -1: the daemon's default
};

class RemoteOptimizer : public KernelOptimizer {
 public:
  explicit RemoteOptimizer(RemoteOptimizerConfig config);

  std::string Describe() const override;
  // Errors: the daemon is unreachable or refused the job; a job that failed on the daemon's
  // side without a report.
  Result<KernelOutcome> Optimize(const KernelInput& input,
                                 const optimize::ProgressFn& progress) override;

 private:
  RemoteOptimizerConfig config_;
  service::DaemonClient client_;
};

}  // namespace cannbot::ci
