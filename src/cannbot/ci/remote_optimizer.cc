#include "cannbot/ci/remote_optimizer.h"

#include "cannbot/ci/kernel_job.h"

namespace cannbot::ci {

RemoteOptimizer::RemoteOptimizer(RemoteOptimizerConfig config)
    : config_(std::move(config)), client_(config_.daemon) {}

std::string RemoteOptimizer::Describe() const {
  if (config_.llm == "offline") return "a cannbot daemon, offline recipes";
  if (!config_.model.empty()) return "a cannbot daemon, LLM " + config_.model;
  return "a cannbot daemon";  // never its URL: the comment is public
}

Result<KernelOutcome> RemoteOptimizer::Optimize(const KernelInput& input,
                                                const optimize::ProgressFn& progress) {
  KernelJobSettings settings{config_.thresholds, config_.seed, std::nullopt, std::nullopt};
  if (config_.rounds >= 0) settings.rounds = config_.rounds;
  settings.llm = engine::LlmChoiceFromFlags(config_.llm, config_.model);
  std::vector<std::string> notes;
  const engine::JobSpec spec = KernelJobSpec(input, settings, &notes);
  CANNBOT_ASSIGN_OR_RETURN(service::RemoteJob job, client_.Run(spec, progress));
  return OutcomeFromReport(input.job, job.report, notes);
}

}  // namespace cannbot::ci
