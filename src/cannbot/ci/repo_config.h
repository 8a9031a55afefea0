// RepoConfig: what an operator repository tells the CI bot, in `.cannbot.toml` (or
// `.cannbot.json`, same keys) at the repository root. Which files are kernels of which op,
// where their profiles are, and how demanding the bot is.
//
//   fail_on_broken_kernel = true     # exit 1 when a changed kernel no longer computes the
//                                    # reference's numbers (the comment is posted first)
//   ops_dir = "specs"                # optional; the repository's own op spec files
//                                    # (docs/op-spec.md), read as of the head commit
//   [thresholds]
//   min_speedup = 1.05               # lower 95% bound a suggestion's speedup must clear
//   time_budget_seconds = 600        # per kernel: no new candidate is validated after this
//   max_variants = 24                # per kernel, offline: recipe variants tried at most
//   max_kernels = 10                 # changed kernels optimised per run; the rest are listed
//
//   [[kernels]]                      # first matching entry wins
//   glob = "ops/add/**/*.cpp"        # see ci/glob.h
//   op = "add"                       # a built-in op (`cannbot ops`) or one of ops_dir
//   target = "cpu"                   # optional; what the kernels are written for (cpu, ascendc)
//   profile = "profiles/{stem}.csv"  # optional; {dir}, {name} and {stem} of the kernel's path
//   profile_format = "auto"          # optional; msprof, kernel_details, timeline, ncu, perf, json
//   profile_kernel = ""              # optional; which kernel of a multi-kernel profile
//
//   [[packages]]                     # Ascend C operator packages (docs/ascendc.md); a change
//   dir = "ops/*_custom"             # to a file under a matching directory's op_host/ or
//   op = "add"                       # op_kernel/ plans one job for the whole package (with
//                                    # an LLM; [[kernels]] rules are matched first)
//   operator = "AddCustom"           # optional; the one to run where a package defines
//                                    # several operators (its OpDef type or kernel entry)
//
// Unknown keys are errors (a typo must not silently disable a threshold).
//
// Thread-safety: plain values.
#pragma once

#include <functional>
#include <map>
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

struct PackageRule {
  std::string dir;  // a glob of package directories (ci/glob.h)
  std::string op;
  std::string operator_name;  // "operator": of packages that define several ("" = the only one)
};

struct Thresholds {
  double min_speedup = 1.05;
  double time_budget_seconds = 600;
  int max_variants = 24;
  int max_kernels = 10;
};

// An op spec of the repository, sent with each of its kernels' jobs (JobSpec::op_spec).
struct RepoOp {
  std::string path;            // the spec file, in the repository
  std::string spec_text;
  std::string reference_text;  // "" when the spec needs none (reference = "baseline")
};

struct RepoConfig {
  std::vector<KernelRule> kernels;
  std::vector<PackageRule> packages;
  Thresholds thresholds;
  bool fail_on_broken_kernel = true;
  std::string ops_dir;                     // "" = none
  std::map<std::string, RepoOp> repo_ops;  // by op name; filled by LoadRepoOps
};

// Parses the text of a config file; `name` (".cannbot.toml") picks the syntax by its
// extension and prefixes error messages. Errors: InvalidArgument naming the file and the key
// (syntax, unknown key, wrong type, unknown op, bad glob, a threshold out of range). With an
// ops_dir, rules' ops are checked by LoadRepoOps instead (they may be the repository's).
Result<RepoConfig> ParseRepoConfig(const std::string& text, const std::string& name,
                                   const ops::Registry& registry);

// Reads every *.toml spec directly in config->ops_dir through `read` (a path in the
// repository -> its text), parses each (its reference relative to the spec), and checks that
// every rule's op is one of them or in `registry`. Errors name the spec file and the field.
Status LoadRepoOps(const std::vector<std::string>& repo_files,
                   const std::function<Result<std::string>(const std::string&)>& read,
                   const ops::Registry& registry, RepoConfig* config);

// The profile path of a kernel: `rule.profile` with {dir} ("ops/add"), {name} ("add.cpp") and
// {stem} ("add") of `kernel_path` substituted.
std::string ExpandProfilePath(const std::string& profile, const std::string& kernel_path);

}  // namespace cannbot::ci
