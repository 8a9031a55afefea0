#include "cannbot/ci/plan.h"

#include "cannbot/ci/glob.h"

namespace cannbot::ci {
namespace {

const KernelRule* RuleFor(const RepoConfig& config, const std::string& path) {
  for (const KernelRule& rule : config.kernels) {
    if (GlobMatch(rule.glob, path)) return &rule;
  }
  return nullptr;
}

}  // namespace

CiPlan PlanKernels(const RepoConfig& config, const std::vector<ChangedFile>& changed,
                   const std::vector<std::string>& head_files) {
  CiPlan plan;
  for (size_t i = 0; i < config.kernels.size(); ++i) {
    const KernelRule& rule = config.kernels[i];
    bool any = false;
    for (const std::string& file : head_files) {
      if (GlobMatch(rule.glob, file)) {
        any = true;
        break;
      }
    }
    if (!any) {
      plan.warnings.push_back("kernels[" + std::to_string(i + 1) + "]: glob '" + rule.glob +
                              "' (op " + rule.op + ") matches no file in the repository");
    }
  }
  for (const ChangedFile& file : changed) {
    const KernelRule* rule = RuleFor(config, file.path);
    if (rule == nullptr) continue;
    if (static_cast<int>(plan.jobs.size()) >= config.thresholds.max_kernels) {
      plan.deferred.push_back(file.path);
      continue;
    }
    KernelJob job;
    job.path = file.path;
    job.op = rule->op;
    job.target = rule->target;
    job.added = file.status == 'A';
    if (!rule->profile.empty()) job.profile = ExpandProfilePath(rule->profile, file.path);
    job.profile_format = rule->profile_format;
    job.profile_kernel = rule->profile_kernel;
    plan.jobs.push_back(std::move(job));
  }
  return plan;
}

}  // namespace cannbot::ci
