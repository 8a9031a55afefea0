// Suggesting a faster Ascend C operator package (`cannbot suggest --target ascendc --package DIR
// --llm URL`): the package's files, its OpDef's dtype combinations, the op's semantics, the
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

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/ascendc/package.h"
#include "cannbot/llm/chat_client.h"
#include "cannbot/ops/registry.h"
#include "cannbot/skills/skill.h"
#include "cannbot/validator/validator.h"

namespace cannbot::engine {

struct PackageSuggestRequest {
  std::string op;
  ascendc::Package package;
  std::optional<uint64_t> seed;
  int samples = 2;  // answers per round
  int rounds = 1;   // repair rounds after the first
};

struct PackageAttempt {
  int round = 0;
  int sample = 0;
  std::vector<std::string> changed;  // the paths the answer replaced
  bool accepted = false;
  double speedup = 0;  // the smallest estimated speedup over the combinations that ran
  std::string reason;  // why it was not accepted, or the estimate
};

struct PackageSuggestion {
  std::string op;
  std::string package;  // its description
  std::vector<PackageAttempt> attempts;
  bool found = false;
  double speedup = 0;                   // the best accepted answer's
  ascendc::PackageFiles changed_files;  // that answer's changed files, in full
  std::string diff;                     // unified diff of them against the package

  nlohmann::json ToJson() const;
  std::string RenderText() const;
};

// Errors: the package cannot be described or is not a correct package itself
// (InvalidArgument), the model could not be reached at all (the ChatClient's error).
Result<PackageSuggestion> SuggestForPackage(validator::Validator& validator,
                                            const ops::Registry& registry,
                                            const skills::SkillLibrary& skills,
                                            llm::ChatClient& chat,
                                            const PackageSuggestRequest& request);

// The files of a model's answer: each `File: <path>` line (also `// File:`, `**File:**`)
// followed by a fenced block, in order. Exposed for tests.
ascendc::PackageFiles ExtractPackageFiles(const std::string& answer);

}  // namespace cannbot::engine
