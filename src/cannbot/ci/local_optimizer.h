// LocalOptimizer: the CI bot's KernelOptimizer that runs `cannbot suggest`'s pipeline in this
// process (the offline recipes by default, an OpenAI-compatible LLM when configured).
//
// One store, validator and skill library serve every kernel of a run; a provider is made per
// kernel, since the offline provider's memory is keyed by op. A configured profile that
// cannot be read or imported is noted in the comment and the kernel is diagnosed without it.
//
// Ownership: owns its store, validator and skills. Thread-safety: one Optimize at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cannbot/ci/bot.h"
#include "cannbot/config/config.h"
#include "cannbot/skills/skill.h"
#include "cannbot/store/store.h"
#include "cannbot/validator/validator.h"

namespace cannbot::ci {

struct LocalOptimizerConfig {
  config::Config tool;           // LLM, compiler, skills, store (the CLI's usual settings)
  Thresholds thresholds;         // the repository's; min_speedup overrides tool.min_speedup
  std::optional<uint64_t> seed;  // none: fresh inputs per run
  int rounds = -1;               // -1: 8 offline (the recipe search), tool.loop.rounds with an LLM
};

class LocalOptimizer : public KernelOptimizer {
 public:
  // Errors: the store cannot be opened; `warnings` receives skill-loading problems.
  static Result<std::unique_ptr<LocalOptimizer>> Create(LocalOptimizerConfig config,
                                                        std::vector<std::string>* warnings);

  std::string Describe() const override;
  Result<KernelOutcome> Optimize(const KernelInput& input,
                                 const optimize::ProgressFn& progress) override;

 private:
  LocalOptimizer(LocalOptimizerConfig config, std::unique_ptr<store::Store> store,
                 skills::SkillLibrary library);

  LocalOptimizerConfig config_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<validator::Validator> validator_;
  skills::SkillLibrary library_;
};

}  // namespace cannbot::ci
