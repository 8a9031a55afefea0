// Suggesting a faster Ascend C operator package (`cannbot suggest --target ascendc --package DIR
// --llm URL`), or kernel-launch sample (`cannbot suggest --target ascendc SAMPLE_DIR`, the
// same way with the sample's files and launch in place of an OpDef): the package's files, its OpDef's dtype combinations, the op's semantics, the
// device and the Ascend C kernel skill go to the model, which answers with the files it
// changes, in full. Each answer is the package with those files replaced, validated against
// the package as it is in every dtype combination (engine/package_validation.h); a round's
// failures go back to the model in the next. The best accepted answer (the largest of its
// smallest per-combination estimated speedups) comes back as its files and a diff.
//
// The offline recipes are written for single kernels, not packages: without an LLM this is an
// InvalidArgument saying so.
//
// Thread-safety: SuggestForPackage may run concurrently with other validations (the Validator
// allows it); the ChatClient is the caller's.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/ascendc/package.h"
#include "cannbot/ascendc/sample.h"
#include "cannbot/engine/package_validation.h"
#include "cannbot/llm/chat_client.h"
#include "cannbot/ops/registry.h"
#include "cannbot/skills/skill.h"
#include "cannbot/validator/validator.h"

namespace cannbot::engine {

// The skill whose body the prompt carries.
inline constexpr const char* kPackageSkill = "ascendc-vector-kernel";

struct PackageAttempt;

struct PackageSuggestRequest {
  std::string op;
  ascendc::Package package;
  // A kernel-launch sample instead of `package`: its kernel and host files go to the model, and
  // each answer is validated as samples are (its host program's launch replayed; ValidateSample).
  std::optional<ascendc::Sample> sample;
  std::optional<uint64_t> seed;
  std::optional<double> min_speedup;  // none: the validator's
  int samples = 2;  // answers per round
  int rounds = 1;   // repair rounds after the first
  // Told of each attempt as soon as it is judged; may be empty.
  std::function<void(const PackageAttempt&)> on_attempt;
  // Set by another thread to stop early (no new round starts); null = never.
  const std::atomic<bool>* stop = nullptr;
};

struct PackageAttempt {
  int round = 0;
  int sample = 0;
  std::string answer;                // the model's text
  ascendc::PackageFiles changes;     // the files it replaced, in full
  bool accepted = false;
  double speedup = 0;  // the smallest estimated speedup over the combinations that ran
  std::string reason;  // why it was not accepted, or the estimate
  // The verdict of its slowest combination (the first failing one when rejected); none when
  // no combination ran.
  std::optional<validator::Verdict> verdict;
  double seconds = 0;  // validation time
};

struct PackageSuggestion {
  std::string op;
  std::string package;  // its description
  // The package as it is, through the compile and numeric layers in every combination. When
  // it does not pass, nothing is asked of the model (there is nothing to make faster).
  PackageReport check;
  std::vector<PackageAttempt> attempts;
  // The accepted answer with the largest speedup (the first of equals); -1 = none.
  int best = -1;
  std::string diff;  // unified diff of its changed files against the package

  bool found() const { return best >= 0; }
};

// Errors: the package cannot be described or matched to the op (InvalidArgument), the model
// could not be reached at all (the ChatClient's error). A package that fails its own check is
// not an error: `check` says why, with no attempts.
Result<PackageSuggestion> SuggestForPackage(validator::Validator& validator,
                                            const ops::Registry& registry,
                                            const skills::SkillLibrary& skills,
                                            llm::ChatClient& chat,
                                            const PackageSuggestRequest& request);

// The files in the form the model reads and writes them: `File: <path>` and a fenced block each.
std::string RenderPackageFiles(const ascendc::PackageFiles& files);

// The files of a model's answer: each `File: <path>` line (also `// File:`, `**File:**`)
// followed by a fenced block, in order. Exposed for tests.
ascendc::PackageFiles ExtractPackageFiles(const std::string& answer);

}  // namespace cannbot::engine
