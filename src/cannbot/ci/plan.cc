#include "cannbot/ci/plan.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "cannbot/ascendc/package.h"
#include "cannbot/ci/glob.h"

namespace cannbot::ci {
namespace {

const KernelRule* RuleFor(const RepoConfig& config, const std::string& path) {
  for (const KernelRule& rule : config.kernels) {
    if (GlobMatch(rule.glob, path)) return &rule;
  }
  return nullptr;
}

const PackageRule* PackageRuleFor(const RepoConfig& config, const std::string& dir) {
  for (const PackageRule& rule : config.packages) {
    if (GlobMatch(rule.dir, dir)) return &rule;
  }
  return nullptr;
}

// The package `file` belongs to, planned once; `added` only while every changed file of it is.
void PlanPackage(const RepoConfig& config, const ChangedFile& file,
                 std::map<std::string, size_t>* planned, CiPlan* plan) {
  const std::string dir = PackageDirOf(file.path);
  if (dir.empty() || !ascendc::IsPackageSourceName(file.path)) return;
  const PackageRule* rule = PackageRuleFor(config, dir);
  if (rule == nullptr) return;
  if (auto it = planned->find(dir); it != planned->end()) {
    if (it->second < plan->jobs.size()) plan->jobs[it->second].added &= file.status == 'A';
    return;
  }
  if (static_cast<int>(plan->jobs.size()) >= config.thresholds.max_kernels) {
    planned->emplace(dir, SIZE_MAX);
    plan->deferred.push_back(dir);
    return;
  }
  KernelJob job;
  job.path = dir;
  job.package = true;
  job.package_operator = rule->operator_name;
  job.op = rule->op;
  job.added = file.status == 'A';
  planned->emplace(dir, plan->jobs.size());
  plan->jobs.push_back(std::move(job));
}

void WarnAboutUnusedPackageRules(const RepoConfig& config,
                                 const std::vector<std::string>& head_files, CiPlan* plan) {
  for (size_t i = 0; i < config.packages.size(); ++i) {
    const PackageRule& rule = config.packages[i];
    bool any = false;
    for (const std::string& file : head_files) {
      const std::string dir = PackageDirOf(file);
      if (!dir.empty() && GlobMatch(rule.dir, dir)) {
        any = true;
        break;
      }
    }
    if (!any) {
      plan->warnings.push_back("packages[" + std::to_string(i + 1) + "]: dir '" + rule.dir +
                               "' (op " + rule.op + ") matches no package (a directory with "
                               "op_host/ or op_kernel/) in the repository");
    }
  }
}

}  // namespace

std::string PackageDirOf(const std::string& path) {
  size_t best = std::string::npos;
  for (const char* part : {"/op_host/", "/op_kernel/"}) best = std::min(best, path.find(part));
  return best == std::string::npos || best == 0 ? "" : path.substr(0, best);
}

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
  WarnAboutUnusedPackageRules(config, head_files, &plan);
  std::map<std::string, size_t> package_jobs;  // dir -> index in plan.jobs
  for (const ChangedFile& file : changed) {
    const KernelRule* rule = RuleFor(config, file.path);
    if (rule == nullptr) {
      PlanPackage(config, file, &package_jobs, &plan);
      continue;
    }
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
  std::sort(plan.jobs.begin(), plan.jobs.end(),
            [](const KernelJob& a, const KernelJob& b) { return a.path < b.path; });
  return plan;
}

}  // namespace cannbot::ci
