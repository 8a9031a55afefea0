// RemoteOptimizer: the CI bot's KernelOptimizer that optimises through a cannbot daemon
// (`cannbot ci --server URL`): each kernel becomes one POST /optimize job, followed through
// its events to the end, and the job's report becomes the comment's section.
//
// The repository's thresholds travel as the job's options (min_speedup, budget, time budget);
// a configured profile that cannot be imported is left out with a note, as LocalOptimizer
// does. The daemon's own settings decide the rest (its LLM, unless `llm` names one).
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
  nlohmann::json Body(const KernelInput& input, std::vector<std::string>* notes) const;

  RemoteOptimizerConfig config_;
  service::DaemonClient client_;
};

}  // namespace cannbot::ci
