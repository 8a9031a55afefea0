#include "cannbot/ci/local_optimizer.h"

#include "cannbot/app/providers.h"
#include "cannbot/ci/section.h"
#include "cannbot/optimize/pipeline.h"

namespace cannbot::ci {
namespace {

nlohmann::json ReportJson(const optimize::SuggestResult& result) {
  nlohmann::json out = result.report.ToJson();
  out["kernel_check"] = {{"ok", result.kernel_check.ok},
                         {"layer", result.kernel_check.layer},
                         {"reason", result.kernel_check.reason}};
  return out;
}

}  // namespace

Result<std::unique_ptr<LocalOptimizer>> LocalOptimizer::Create(LocalOptimizerConfig config,
                                                               std::vector<std::string>* warnings) {
  const std::string path = config.tool.db.empty() ? store::Store::DefaultPath() : config.tool.db;
  CANNBOT_ASSIGN_OR_RETURN(std::unique_ptr<store::Store> store, store::Store::Open(path));
  skills::SkillLibrary library = app::LoadSkills(config.tool, {}, warnings);
  return std::unique_ptr<LocalOptimizer>(
      new LocalOptimizer(std::move(config), std::move(store), std::move(library)));
}

LocalOptimizer::LocalOptimizer(LocalOptimizerConfig config, std::unique_ptr<store::Store> store,
                               skills::SkillLibrary library)
    : config_(std::move(config)), store_(std::move(store)), library_(std::move(library)) {
  config_.tool.min_speedup = config_.thresholds.min_speedup;
  config_.tool.loop.time_budget_seconds = config_.thresholds.time_budget_seconds;
  if (config_.rounds >= 0) {
    config_.tool.loop.rounds = config_.rounds;
  } else if (config_.tool.llm.base_url.empty()) {
    config_.tool.loop.rounds = 8;  // the recipes' parameter search decides when it is done
  }
  validator_ =
      std::make_unique<validator::Validator>(app::MakeValidatorConfig(config_.tool), store_.get());
}

std::string LocalOptimizer::Describe() const {
  if (config_.tool.llm.base_url.empty()) return "offline recipes";
  return "LLM " + config_.tool.llm.model;
}

Result<KernelOutcome> LocalOptimizer::Optimize(const KernelInput& input,
                                               const optimize::ProgressFn& progress) {
  const KernelJob& job = input.job;
  optimize::SuggestRequest request;
  request.op = job.op;
  request.kernel = {job.path, input.source};
  request.profile_kernel = job.profile_kernel;
  request.seed = config_.seed;
  std::vector<std::string> notes;
  std::string profile_source;
  if (!input.profile_text.empty()) {
    auto format = UsableProfile(input);
    if (format.ok()) {
      request.profile_text = input.profile_text;
      request.profile_options.format = *format;
      profile_source = std::string(profile::FormatDescription(*format)) + " (" + job.profile + ")";
    } else {
      notes.push_back("profile '" + job.profile + "' could not be imported (" +
                      format.status().message() + "); diagnosed without it");
    }
  }
  optimize::OfflineConfig offline;
  offline.max_variants = config_.thresholds.max_variants;
  CANNBOT_ASSIGN_OR_RETURN(
      app::ProviderBundle bundle,
      app::MakeProvider(config_.tool, library_, store_.get(), *validator_, job.op, offline));
  optimize::SuggestContext context{validator_.get(), bundle.provider.get(), &library_, store_.get(),
                                   config_.tool.loop};
  CANNBOT_ASSIGN_OR_RETURN(optimize::SuggestResult result,
                           optimize::Suggest(request, context, progress));
  if (!profile_source.empty()) result.report.profile_source = profile_source;
  KernelOutcome outcome;
  outcome.section = SectionFromSuggest(job, result);
  outcome.section.notes.insert(outcome.section.notes.begin(), notes.begin(), notes.end());
  if (const optimize::Attempt* best = result.report.Best()) outcome.kernel = best->code;
  outcome.report = ReportJson(result);
  return outcome;
}

}  // namespace cannbot::ci
