// The CI bot's run, from two revisions to one comment:
//
//   Prepare: open the repository, resolve base and head, read .cannbot.toml/.json (as of
//            head), list the files the change added or modified, plan the kernels
//   RunPlan: read each planned kernel (and its profile) as of head, optimise it with the
//            KernelOptimizer given, and collect one comment section per kernel
//
// The optimiser is an interface so the same run can optimise in this process (LocalOptimizer)
// or through the daemon. A kernel the bot cannot judge becomes an error section in the comment,
// not a failed run: the other kernels' results are still worth posting.
//
// Ownership: RunPlan borrows the optimiser. Thread-safety: one run at a time per optimiser.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cannbot/ascendc/package.h"
#include "cannbot/ci/comment.h"
#include "cannbot/ci/git.h"
#include "cannbot/ci/plan.h"
#include "cannbot/ci/repo_config.h"
#include "cannbot/optimize/loop.h"
#include "cannbot/profile/import.h"

namespace cannbot::ci {

struct KernelInput {
  KernelJob job;
  std::string source;        // the kernel as of head ("" for a package)
  // A package's op_host/ and op_kernel/ sources as of head, relative to its directory.
  ascendc::PackageFiles package;
  std::string profile_text;  // "" = no profile
  // The repository's own op (RepoConfig::repo_ops), sent with the job; "" = a known op.
  std::string op_spec;
  std::string op_reference;
};

struct KernelOutcome {
  KernelSection section;  // what the comment shows
  std::string kernel;     // the suggested kernel's whole source ("" when none)
  nlohmann::json report;  // the full optimisation report, for artefacts
};

// The kernel's profile format, checked by importing the profile once: a profile that cannot
// be used becomes a note in the comment instead of costing the kernel its suggestion.
Result<profile::Format> UsableProfile(const KernelInput& input);

class KernelOptimizer {
 public:
  virtual ~KernelOptimizer() = default;
  // For the comment's footer: "offline recipes", "LLM <model>" (never a URL or a secret).
  virtual std::string Describe() const = 0;
  // A broken kernel or one with no faster version is an outcome; errors are for when the
  // kernel could not be judged at all (the optimiser or its server failed).
  virtual Result<KernelOutcome> Optimize(const KernelInput& input,
                                         const optimize::ProgressFn& progress) = 0;
};

struct CiRequest {
  std::string repo_dir = ".";
  std::string base;  // any revision git understands
  std::string head;
  std::string repo_config_path;  // "" = .cannbot.toml / .cannbot.json at head's root
  GitConfig git;
  const ops::Registry* registry = nullptr;  // the ops a rule may name; must be set
};

struct PreparedRun {
  GitRepo repo;
  std::string base_commit;  // full ids
  std::string head_commit;
  std::string config_name;  // where the repository config came from
  RepoConfig config;
  CiPlan plan;
};

struct CiResult {
  CommentInput comment;
  std::vector<KernelOutcome> outcomes;
  bool any_broken = false;  // a changed kernel fails to compile or compute the right numbers
  bool any_error = false;   // a changed kernel could not be judged
};

// Errors (all InvalidArgument or NotFound, for people): not a git repository, unknown
// revisions, no repository config, a malformed one.
Result<PreparedRun> Prepare(const CiRequest& request);

// `log` receives one line per step for people ("ops/add.cpp (add): checking").
CiResult RunPlan(const PreparedRun& run, KernelOptimizer& optimizer,
                 const std::function<void(const std::string&)>& log,
                 const optimize::ProgressFn& progress = {});

}  // namespace cannbot::ci
