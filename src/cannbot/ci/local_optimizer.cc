#include "cannbot/ci/local_optimizer.h"

namespace cannbot::ci {

Result<std::unique_ptr<LocalOptimizer>> LocalOptimizer::Create(LocalOptimizerConfig config,
                                                               const ops::Registry& registry,
                                                               std::vector<std::string>* warnings) {
  CANNBOT_ASSIGN_OR_RETURN(std::unique_ptr<engine::Engine> engine,
                           engine::Engine::Open(config.tool, registry, warnings));
  return std::unique_ptr<LocalOptimizer>(new LocalOptimizer(std::move(config), std::move(engine)));
}

LocalOptimizer::LocalOptimizer(LocalOptimizerConfig config, std::unique_ptr<engine::Engine> engine)
    : config_(std::move(config)), engine_(std::move(engine)) {}

std::string LocalOptimizer::Describe() const {
  if (config_.tool.llm.base_url.empty()) return "offline recipes";
  return "LLM " + config_.tool.llm.model;
}

Result<KernelOutcome> LocalOptimizer::Optimize(const KernelInput& input,
                                               const optimize::ProgressFn& progress) {
  KernelJobSettings settings{config_.thresholds, config_.seed, std::nullopt, std::nullopt};
  if (config_.rounds >= 0) settings.rounds = config_.rounds;
  std::vector<std::string> notes;
  const engine::JobSpec spec = KernelJobSpec(input, settings, &notes);
  engine::ProgressFunction events(progress);
  CANNBOT_ASSIGN_OR_RETURN(engine::SuggestReport report, engine_->Run(spec, &events));
  return OutcomeFromReport(input.job, report, notes);
}

}  // namespace cannbot::ci
