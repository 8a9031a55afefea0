// RepoConfig: what an operator repository tells the CI bot, in `.cannbot.toml` (or
// `.cannbot.json`, same keys) at the repository root. Which files are kernels of which op,
// where their profiles are, and how demanding the bot is.
//
//   fail_on_broken_kernel = true     # exit 1 when a changed kernel no longer computes the
//                                    # reference's numbers (the comment is posted first)
//   [thresholds]
//   min_speedup = 1.05               # lower 95% bound a suggestion's speedup must clear
//   time_budget_seconds = 600        # per kernel: no new candidate is validated after this
//   max_variants = 24                # per kernel, offline: recipe variants tried at most
//   max_kernels = 10                 # changed kernels optimised per run; the rest are listed
//
//   [[kernels]]                      # first matching entry wins
//   glob = "ops/add/**/*.cpp"        # see ci/glob.h
//   op = "add"                       # a built-in op (`cannbot ops`)
//   target = "cpu"                   # optional; what the kernels are written for (cpu, ascendc)
//   profile = "profiles/{stem}.csv"  # optional; {dir}, {name} and {stem} of the kernel's path
//   profile_format = "auto"          # optional; msprof, kernel_details, timeline, ncu, perf, json
//   profile_kernel = ""              # optional; which kernel of a multi-kernel profile
//
// Unknown keys are errors (a typo must not silently disable a threshold).
//
// Thread-safety: plain values.
#pragma once

#include <string>
#include <vector>

#include "cannbot/ops/registry.h"
#include "cannbot/profile/import.h"
#include "cannbot/target/target.h"
#include "cannbot/util/status.h"

namespace cannbot::ci {

// The file names looked for at the repository root, in this order.
inline constexpr const char* kRepoConfigNames[] = {".cannbot.toml", ".cannbot.json"};

struct KernelRule {
  std::string glob;
  std::string op;
  const target::Target* target = nullptr;  // null = target::Default()
  std::string profile;  // "" = none; may hold {dir}, {name}, {stem}
  profile::Format profile_format = profile::Format::kAuto;
  std::string profile_kernel;  // "" = the hottest kernel of the profile
};

struct Thresholds {
  double min_speedup = 1.05;
  double time_budget_seconds = 600;
  int max_variants = 24;
  int max_kernels = 10;
};

struct RepoConfig {
  std::vector<KernelRule> kernels;
  Thresholds thresholds;
  bool fail_on_broken_kernel = true;
};

// Parses the text of a config file; `name` (".cannbot.toml") picks the syntax by its
// extension and prefixes error messages. Errors: InvalidArgument naming the file and the key
// (syntax, unknown key, wrong type, unknown op, bad glob, a threshold out of range).
Result<RepoConfig> ParseRepoConfig(const std::string& text, const std::string& name,
                                   const ops::Registry& registry);

// The profile path of a kernel: `rule.profile` with {dir} ("ops/add"), {name} ("add.cpp") and
// {stem} ("add") of `kernel_path` substituted.
std::string ExpandProfilePath(const std::string& profile, const std::string& kernel_path);

}  // namespace cannbot::ci
