// LocalOptimizer: the CI bot's KernelOptimizer that runs each kernel's job on an Engine in this
// process (the offline recipes by default, an OpenAI-compatible LLM when configured).
//
// One engine (store, validator, skills) serves every kernel of a run. The job is built by
// KernelJobSpec, exactly as RemoteOptimizer builds it for a daemon.
//
// Ownership: owns its engine. Thread-safety: one Optimize at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cannbot/ci/bot.h"
#include "cannbot/ci/kernel_job.h"
#include "cannbot/config/config.h"
#include "cannbot/engine/engine.h"

namespace cannbot::ci {

struct LocalOptimizerConfig {
  config::Config tool;           // LLM, compiler, skills, store (the CLI's usual settings)
  Thresholds thresholds;         // the repository's
  std::optional<uint64_t> seed;  // none: fresh inputs per run
  int rounds = -1;               // -1: the engine's default
};

class LocalOptimizer : public KernelOptimizer {
 public:
  // Errors: the store cannot be opened; `warnings` receives skill-loading problems.
  static Result<std::unique_ptr<LocalOptimizer>> Create(LocalOptimizerConfig config,
                                                        const ops::Registry& registry,
                                                        std::vector<std::string>* warnings);

  std::string Describe() const override;
  Result<KernelOutcome> Optimize(const KernelInput& input,
                                 const optimize::ProgressFn& progress) override;

 private:
  LocalOptimizer(LocalOptimizerConfig config, std::unique_ptr<engine::Engine> engine);

  LocalOptimizerConfig config_;
  std::unique_ptr<engine::Engine> engine_;
};

}  // namespace cannbot::ci
