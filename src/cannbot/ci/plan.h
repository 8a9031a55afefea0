// Plan: which changed files of a pull request are kernels, of which op, with which profile.
//
// Only files the change added or modified are planned (unchanged kernels are never touched);
// the first [[kernels]] rule whose glob matches a path decides its op. A file no kernel rule
// takes that lies under a package's op_host/ or op_kernel/ plans the package (one job however
// many of its files changed) when a [[packages]] rule's dir matches the package's directory.
// A rule that matches nothing at all at head is almost always a typo, so it becomes a warning.
//
// Thread-safety: pure function over values.
#pragma once

#include <string>
#include <vector>

#include "cannbot/ci/git.h"
#include "cannbot/ci/repo_config.h"

namespace cannbot::ci {

struct KernelJob {
  std::string path;  // repository-relative: the kernel, or the package's directory
  bool package = false;  // an Ascend C operator package (target ascendc)
  std::string package_operator;  // of a package that defines several ("" = its only one)
  std::string op;
  const target::Target* target = nullptr;  // null = target::Default()
  bool added = false;   // new in this change (rather than modified)
  std::string profile;  // repository-relative, placeholders expanded; "" = none
  profile::Format profile_format = profile::Format::kAuto;
  std::string profile_kernel;
};

struct CiPlan {
  std::vector<KernelJob> jobs;        // at most thresholds.max_kernels, sorted by path
  std::vector<std::string> deferred;  // changed kernels beyond max_kernels (paths)
  std::vector<std::string> warnings;  // for people: globs that match nothing, ...
};

// The directory of the package `path` lies in ("ops/add" for "ops/add/op_kernel/add.cpp"); ""
// when it is in no op_host/ or op_kernel/ directory below the repository root.
std::string PackageDirOf(const std::string& path);

CiPlan PlanKernels(const RepoConfig& config, const std::vector<ChangedFile>& changed,
                   const std::vector<std::string>& head_files);

}  // namespace cannbot::ci
