#include "cannbot/ci/kernel_job.h"

#include "cannbot/ci/section.h"
#include "cannbot/target/registry.h"

namespace cannbot::ci {

engine::JobSpec KernelJobSpec(const KernelInput& input, const KernelJobSettings& settings,
                              std::vector<std::string>* notes) {
  const KernelJob& job = input.job;
  engine::JobSpec spec;
  spec.op = job.op;
  spec.op_spec = input.op_spec;  // the repository's own op travels with the job
  spec.op_reference = input.op_reference;
  spec.source = input.source;
  spec.name = job.path;  // the diff names the repository path
  spec.target = job.target;
  if (job.package) {
    spec.package = input.package;
    spec.package_operator = job.package_operator;
    spec.target = *target::Parse("ascendc");  // a package is Ascend C
  }
  if (!input.profile_text.empty()) {
    auto format = UsableProfile(input);
    if (format.ok()) {
      spec.profile = input.profile_text;
      spec.profile_format = *format;
      spec.profile_name = job.profile;
      spec.profile_kernel = job.profile_kernel;
    } else {
      notes->push_back("profile '" + job.profile + "' could not be imported (" +
                       format.status().message() + "); diagnosed without it");
    }
  }
  spec.options.min_speedup = settings.thresholds.min_speedup;
  spec.options.budget = settings.thresholds.max_variants;
  spec.options.time_budget_seconds = settings.thresholds.time_budget_seconds;
  spec.options.rounds = settings.rounds;
  spec.options.seed = settings.seed;
  spec.options.llm = settings.llm;
  return spec;
}

KernelOutcome OutcomeFromReport(const KernelJob& job, const engine::SuggestReport& report,
                                const std::vector<std::string>& notes) {
  KernelOutcome outcome;
  outcome.section = SectionFromReport(job, report);
  outcome.section.notes.insert(outcome.section.notes.begin(), notes.begin(), notes.end());
  if (const optimize::Attempt* best = report.Best()) outcome.kernel = best->code;
  outcome.report = report.ToJson();
  return outcome;
}

}  // namespace cannbot::ci
