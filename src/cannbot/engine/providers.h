// Composition of the optimisation pieces from a Config, for the Engine (engine.h):
// which provider (an OpenAI-compatible LLM, or the offline recipes when no URL is set), the
// prompt library, the skills, the validator's settings.
//
// Ownership: a ProviderBundle owns everything its provider uses; keep it alive while the
// provider is. Thread-safety: one bundle per optimisation at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cannbot/config/config.h"
#include "cannbot/llm/chat_client.h"
#include "cannbot/optimize/offline_provider.h"
#include "cannbot/optimize/provider.h"
#include "cannbot/prompt/prompt.h"
#include "cannbot/skills/skill.h"
#include "cannbot/store/store.h"
#include "cannbot/validator/validator.h"

namespace cannbot::engine {

struct ProviderBundle {
  std::unique_ptr<llm::HttpClient> http;
  std::unique_ptr<llm::ChatClient> chat;
  std::unique_ptr<prompt::PromptLibrary> prompts;
  std::unique_ptr<optimize::Provider> provider;
  bool offline = false;
};

// The LLM provider when config.llm.base_url is set, else the offline recipes (which remember
// their winners in `store` under TuningKey: a winner for one target or machine model is never
// offered to another). The LLM's requests go through `http` when given (borrowed), else
// through a libcurl client the bundle owns.
Result<ProviderBundle> MakeProvider(const config::Config& config,
                                    const skills::SkillLibrary& library, store::Store* store,
                                    validator::Validator& validator, const ops::OpSpec& op,
                                    const target::Target& target,
                                    const optimize::OfflineConfig& offline,
                                    llm::HttpClient* http = nullptr);

// What an offline search result is valid for: the target, the op and its perf shape, the
// machine model (MachineModel::cpu_key, for targets timed on this CPU: a store shared by
// different machines gives each its own winners, identical machines share them) and the
// compiler with its flags.
std::string TuningKey(const ops::OpSpec& op, const target::Target& target,
                      const validator::MachineModel& machine,
                      const validator::CompilerConfig& compiler);

// Built-in skills plus the configured directories (a team's first, so they can override).
skills::SkillLibrary LoadSkills(const config::Config& config,
                                const std::vector<std::string>& extra_dirs,
                                std::vector<std::string>* warnings);

// The validator's settings from a Config.
Result<validator::ValidatorConfig> MakeValidatorConfig(const config::Config& config);

}  // namespace cannbot::engine
