#include "cannbot/engine/providers.h"

#include "cannbot/optimize/llm_provider.h"
#include "cannbot/util/data_dir.h"
#include "cannbot/util/fs.h"

namespace cannbot::engine {
std::string TuningKey(const ops::OpSpec& op, const target::Target& target,
                      const validator::MachineModel& machine,
                      const validator::CompilerConfig& compiler) {
  // Timings on this CPU depend on the machine model; a target timed elsewhere (a cost model)
  // does not, and needs no roofline measured here.
  const std::string model = target.RunsOnThisCpu() ? machine.cpu_key : "-";
  std::string key = std::string(target.name()) + "|" + op.name + "|" +
                    op.PerfShape().Describe() + "|" + model + "|" + compiler.compiler;
  for (const std::string& flag : compiler.flags) key += " " + flag;
  return key;
}

Result<ProviderBundle> MakeProvider(const config::Config& config,
                                    const skills::SkillLibrary& library, store::Store* store,
                                    validator::Validator& validator, const ops::OpSpec& op,
                                    const target::Target& target,
                                    const optimize::OfflineConfig& offline,
                                    llm::HttpClient* http) {
  ProviderBundle bundle;
  if (config.llm.base_url.empty()) {
    bundle.offline = true;
    bundle.provider = std::make_unique<optimize::OfflineProvider>(
        &library, store,
        TuningKey(op, target,
                  target.RunsOnThisCpu() ? validator.Machine() : validator::MachineModel{},
                  validator.config().compiler),
        offline);
    return bundle;
  }
  if (config.llm.model.empty()) {
    return Status::InvalidArgument("an LLM URL needs a model name (--model or llm.model)");
  }
  CANNBOT_ASSIGN_OR_RETURN(prompt::PromptLibrary prompts,
                           prompt::PromptLibrary::Load(DataPath("prompts")));
  bundle.prompts = std::make_unique<prompt::PromptLibrary>(std::move(prompts));
  if (http == nullptr) {
    bundle.http = llm::NewCurlHttpClient();
    http = bundle.http.get();
  }
  bundle.chat = std::make_unique<llm::ChatClient>(config.llm, http);
  bundle.provider = std::make_unique<optimize::LlmProvider>(bundle.chat.get(),
                                                            bundle.prompts.get(),
                                                            config.loop.token_budget);
  return bundle;
}

skills::SkillLibrary LoadSkills(const config::Config& config,
                                const std::vector<std::string>& extra_dirs,
                                std::vector<std::string>* warnings) {
  std::vector<std::string> dirs = extra_dirs;
  dirs.insert(dirs.end(), config.skill_dirs.begin(), config.skill_dirs.end());
  dirs.push_back(DataPath("skills"));
  return skills::SkillLibrary::Load(dirs, warnings);
}

Result<validator::ValidatorConfig> MakeValidatorConfig(const config::Config& config) {
  validator::ValidatorConfig v;
  v.perf.min_speedup = config.min_speedup;
  v.insecure_sandbox = config.insecure_sandbox;
  v.compiler.compiler = config.compiler;
  if (!config.compiler_flags.empty()) v.compiler.flags = config.compiler_flags;
  if (!config.ascendc_device.empty()) {
    const std::string& path = config.ascendc_device;
    auto text = ReadFile(path, 64u << 10);
    if (!text.ok()) {
      return text.status().WithContext(
          "the ascendc device profile (--device-profile, ascendc_device)");
    }
    auto device = ascendc::ParseDeviceProfile(*text);
    if (!device.ok()) return device.status().WithContext(path);
    v.device = std::move(device).value();
  }
  validator::MemoryCgroupConfig cgroups;
  cgroups.mode = config.memory_cgroup;
  auto prepared = validator::PrepareMemoryCgroups(cgroups);
  if (!prepared.ok()) return prepared.status().WithContext("memory_cgroup");
  v.runner.memory_cgroups = *prepared;
  v.compiler.memory_cgroups = *prepared;
  return v;
}

}  // namespace cannbot::engine
