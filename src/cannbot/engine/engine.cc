#include "cannbot/engine/engine.h"

#include <algorithm>
#include <chrono>

#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/engine/estimated_profile.h"
#include "cannbot/engine/providers.h"
#include "cannbot/ops/op_spec_file.h"
#include "cannbot/optimize/skill_pick.h"
#include "cannbot/target/registry.h"

namespace cannbot::engine {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Reports how long each round of an LLM's proposals took.
class TimedProvider : public optimize::Provider {
 public:
  TimedProvider(optimize::Provider* inner, Progress* progress)
      : inner_(inner), progress_(progress) {}
  std::string Describe() const override { return inner_->Describe(); }
  Result<std::vector<optimize::Proposal>> Propose(const optimize::ProposalRequest& r) override {
    const auto start = Clock::now();
    auto proposals = inner_->Propose(r);
    progress_->OnLlmRound(SecondsSince(start));
    return proposals;
  }
  void Finish(const std::string& best_code, double speedup) override {
    inner_->Finish(best_code, speedup);
  }

 private:
  optimize::Provider* inner_;
  Progress* progress_;
};

// The profile a job brought, else one measured here when the target runs on this CPU.
Result<profile::Profile> ProfileFor(const JobSpec& spec, const ops::OpSpec& op,
                                    const target::Target& target,
                                    validator::Validator& validator, SuggestReport* report) {
  profile::Profile profile;
  if (!spec.profile.empty()) {
    const std::string name = spec.profile_name.empty() ? "uploaded" : spec.profile_name;
    profile::ImportOptions options;
    options.format = spec.profile_format;
    profile::Format used = profile::Format::kAuto;
    CANNBOT_ASSIGN_OR_RETURN(profile,
                             profile::ImportProfileText(spec.profile, name, options, &used));
    report->profile_source = std::string(profile::FormatDescription(used)) + " (" + name + ")";
    return profile;
  }
  profile.source_tool = "none";
  report->profile_source = "none given";
  if (!target.RunsOnThisCpu()) {
    // No hardware here: what the target's perf layer estimates for the kernel, where it can.
    auto estimated = EstimateProfile(validator, target, op.name, {spec.name, spec.source}, &op);
    if (!estimated.ok()) {
      report->notes.push_back("no estimated profile: " + estimated.status().message());
      return profile;
    }
    report->profile_source = "estimated by the cost model (no profile given)";
    return std::move(estimated).value();
  }
  // No profiler output: measure the kernel here, so the diagnosis (and the recipes and skills
  // it selects) rests on this machine's numbers rather than on nothing.
  auto measured =
      validator.MeasureProfile(op.name, {spec.name, spec.source}, spec.options.seed, &op);
  if (!measured.ok()) {
    report->notes.push_back("self-profile failed: " + measured.status().message());
    return profile;
  }
  report->profile_source = "self-profile on this CPU (no profile given)";
  return std::move(measured).value();
}

// The skills for the prompt: the rule-based choice, or, with an LLM and `[skills] model_picks`,
// the model's pick among the best-scored candidates (optimize/skill_pick.h); recorded in the
// report either way.
std::vector<skills::SkillMatch> ChooseSkills(const config::Config& config,
                                             const ProviderBundle& bundle,
                                             const skills::SkillLibrary& library,
                                             const ops::OpSpec& spec, const std::string& target,
                                             const std::atomic<bool>* stop,
                                             SuggestReport* report) {
  constexpr size_t kCandidates = 6, kPicks = 3;
  // Skills name ops across dtypes (swish serves swish_fp16) and families from the op's spec.
  const std::string& op = spec.BaseName();
  std::vector<skills::SkillMatch> chosen =
      library.Select(report->diagnosis, op, target, spec.family);
  if (config.model_picks_skills && !bundle.offline && bundle.chat != nullptr) {
    const std::vector<skills::SkillMatch> candidates = optimize::PickCandidates(
        library.Explain(report->diagnosis, op, target, spec.family), kCandidates);
    if (candidates.size() > 1) {
      auto pick =
          optimize::AskModelToPick(*bundle.chat, candidates, report->diagnosis, op, kPicks, stop);
      if (!pick.ok()) {
        report->notes.push_back("skills: asking the model to pick failed (" +
                                pick.status().message() + "); the rule-based choice was kept");
      } else {
        report->notes.push_back(pick->note);
        if (!pick->chosen.empty()) chosen = std::move(pick->chosen);
      }
    }
  }
  for (const skills::SkillMatch& m : chosen) report->skills.push_back(m.skill->name + ": " + m.why);
  return chosen;
}

void Diagnose(const JobSpec& spec, const profile::Profile& profile, SuggestReport* report) {
  std::string why;
  auto picked = profile.Pick(spec.profile_kernel, &why);
  if (picked.ok()) {
    report->diagnosis = diagnosis::Diagnose(profile, **picked);
    report->diagnosis.picked_because = why;
  } else {
    report->diagnosis.unjudged.push_back("no profiled kernel: " + picked.status().message());
  }
  for (const std::string& note : profile.notes) report->notes.push_back("profile: " + note);
}

// The limits a spec file's op is loaded with.
ops::SpecLoadOptions SpecOptions(const config::Config& config) {
  ops::SpecLoadOptions options;
  options.max_call_bytes = config.op_memory_limit_mb << 20;
  return options;
}

}  // namespace

struct Engine::Owned {
  config::Config config;
  ops::Registry registry;
  std::unique_ptr<store::Store> store;
  std::unique_ptr<validator::Validator> validator;
  skills::SkillLibrary skills;
};

Result<const ops::OpSpec*> FindOp(const ops::Registry& registry, const std::string& name) {
  if (const ops::OpSpec* op = registry.Find(name)) return op;
  std::string known;
  for (const std::string& n : registry.Names()) known += (known.empty() ? "" : ", ") + n;
  return Status::NotFound("unknown op '" + name + "' (known: " + known + ")");
}

Result<std::unique_ptr<Engine>> Engine::Open(const config::Config& config,
                                             ops::Registry registry,
                                             std::vector<std::string>* warnings) {
  CANNBOT_RETURN_IF_ERROR(ops::AddOpsDirs(config.ops_dirs, &registry, SpecOptions(config)));
  auto owned = std::make_shared<Owned>(Owned{config, std::move(registry), nullptr, nullptr, {}});
  const std::string path = config.db.empty() ? store::Store::DefaultPath() : config.db;
  CANNBOT_ASSIGN_OR_RETURN(owned->store, store::Store::Open(path));
  CANNBOT_ASSIGN_OR_RETURN(validator::ValidatorConfig checks, MakeValidatorConfig(owned->config));
  owned->validator = std::make_unique<validator::Validator>(std::move(checks), owned->store.get(),
                                                            owned->registry);
  owned->skills = LoadSkills(owned->config, {}, warnings);
  auto engine = std::make_unique<Engine>(EngineParts{&owned->config, &owned->registry,
                                                     owned->validator.get(), &owned->skills,
                                                     owned->store.get()});
  engine->owned_ = std::move(owned);
  return engine;
}

config::Config Engine::JobConfig(const JobOptions& options) const {
  config::Config c = *parts_.config;
  if (options.llm) {
    if (options.llm->offline) {
      c.llm.base_url.clear();
    } else {
      if (!options.llm->url.empty()) c.llm.base_url = options.llm->url;
      if (!options.llm->model.empty()) c.llm.model = options.llm->model;
    }
  }
  const bool offline = c.llm.base_url.empty();
  if (options.samples) c.loop.samples = *options.samples;
  // Offline, the recipes' search decides how many rounds it needs (its variant and time
  // budgets end it), and it goes on until a kernel is within 5% of the measured roofline.
  if (options.rounds) c.loop.rounds = *options.rounds;
  else if (offline) c.loop.rounds = 12;
  if (offline) c.loop.good_enough_roofline = std::max(c.loop.good_enough_roofline, 0.95);
  if (options.min_speedup) c.loop.min_speedup = *options.min_speedup;
  // Offline, a search keeps proposing neighbours for as long as it is allowed: 10 s of new
  // validations per op unless the job says otherwise (all built-in ops in a few minutes).
  if (options.time_budget_seconds) c.loop.time_budget_seconds = *options.time_budget_seconds;
  else if (offline) c.loop.time_budget_seconds = std::min(c.loop.time_budget_seconds, 10.0);
  if (options.good_enough_roofline) c.loop.good_enough_roofline = *options.good_enough_roofline;
  return c;
}

Result<const ops::OpSpec*> Engine::ResolveOp(const JobSpec& spec,
                                             std::optional<ops::OpSpec>* inline_op) const {
  if (spec.op_spec.empty()) return FindOp(*parts_.registry, spec.op);
  CANNBOT_ASSIGN_OR_RETURN(*inline_op, ops::ParseInlineOpSpec(spec.op_spec, spec.op_reference,
                                                              SpecOptions(*parts_.config),
                                                              spec.op));
  CANNBOT_RETURN_IF_ERROR(parts_.registry->CheckNewOp(**inline_op));
  return &**inline_op;
}

Result<SuggestReport> Engine::Run(const JobSpec& spec, Progress* progress) {
  const auto start = Clock::now();
  std::optional<ops::OpSpec> inline_op;  // lives for the whole job: everything borrows it
  CANNBOT_ASSIGN_OR_RETURN(const ops::OpSpec* op, ResolveOp(spec, &inline_op));
  if (spec.package) return RunPackage(spec, *op, progress);
  const target::Target& target = target::OrDefault(spec.target);
  validator::Validator& validator = *parts_.validator;
  config::Config config = JobConfig(spec.options);
  config.loop.stop = progress != nullptr ? progress->StopFlag() : nullptr;
  optimize::OfflineConfig offline;
  if (spec.options.budget) offline.max_variants = *spec.options.budget;
  CANNBOT_ASSIGN_OR_RETURN(ProviderBundle bundle, MakeProvider(config, *parts_.skills,
                                                               parts_.store, validator, *op,
                                                               target, offline, parts_.http));
  TimedProvider timed(bundle.provider.get(), progress);
  optimize::Provider* provider =
      bundle.offline || progress == nullptr ? bundle.provider.get() : &timed;

  SuggestReport report;
  report.op = op->name;
  report.original_name = spec.name;
  report.original_code = spec.source;
  report.provider = provider->Describe();
  const validator::KernelSource kernel{spec.name, spec.source};
  CANNBOT_ASSIGN_OR_RETURN(report.kernel_check,
                           validator.CheckKernel(op->name, kernel, spec.options.seed, &target,
                                                 op));
  if (!report.kernel_check.ok) {
    report.seconds = SecondsSince(start);
    report.notes.push_back("the kernel to optimise is not correct (" +
                           std::string(validator::LayerName(report.kernel_check.layer)) +
                           " layer): " + report.kernel_check.reason);
    return report;
  }
  CANNBOT_ASSIGN_OR_RETURN(profile::Profile profile,
                           ProfileFor(spec, *op, target, validator, &report));
  Diagnose(spec, profile, &report);

  optimize::OptimizeRequest request;
  request.op = op;
  request.original = kernel;
  request.diagnosis = report.diagnosis;
  request.skills = ChooseSkills(config, bundle, *parts_.skills, *op, std::string(target.name()),
                                progress != nullptr ? progress->StopFlag() : nullptr, &report);
  target::HardwareFacts facts{[&validator]() -> const validator::MachineModel& {
                                return validator.Machine();
                              },
                              &validator.config().compiler, &validator.config().device};
  request.hardware = target.DescribeHardware(facts);
  request.target = &target;
  request.seed = spec.options.seed;
  optimize::Optimizer optimizer(&validator, provider, config.loop);
  CANNBOT_RETURN_IF_ERROR(optimizer.Run(request, &report, [progress](const auto& event) {
    if (progress != nullptr) progress->OnEvent(event);
  }));
  if (const optimize::Attempt* best = report.Best()) {
    provider->Finish(best->code, best->verdict->perf->speedup);
  }
  report.seconds = SecondsSince(start);
  return report;
}

}  // namespace cannbot::engine
