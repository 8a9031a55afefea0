// OptimizeReport: everything one optimisation did, for people (RenderText), machines
// (ToJson, stored by the daemon) and the CI bot: the diagnosis, the skills used, every attempt
// with its prompt, answer, code and verdict, the best accepted kernel, a unified diff against
// the original and the before/after figures. FromJson reads ToJson's document back into the
// same value, so that a remote client renders a daemon's report with the same code; its
// errors name the field ("report.attempts[2].verdict.perf.speedup: expected a number").
//
// Thread-safety: plain values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/diagnosis/diagnosis.h"
#include "cannbot/util/status.h"
#include "cannbot/validator/verdict.h"

namespace cannbot::optimize {

struct Attempt {
  int round = 0;
  std::string origin;       // "llm round 1 repair 1", "recipe ..."
  std::string prompt;       // what was sent to the provider, if anything
  std::string response;     // the raw answer, if any
  std::string code;         // the candidate kernel ("" when the answer had none)
  std::string explanation;  // what the provider said it changed
  // "accepted", "rejected", "no code", "duplicate", "error"
  std::string outcome;
  std::string detail;       // one sentence: the verdict's reason, or why there was no verdict
  std::optional<validator::Verdict> verdict;
  double seconds = 0;       // validation time
};

struct OptimizeReport {
  std::string op;
  std::string original_name;
  std::string original_code;
  std::string provider;
  std::string profile_source;  // "msprof (file.csv)", "self-profile", ...
  validator::KernelCheck kernel_check;  // the user's own kernel through compile + numeric
  diagnosis::Diagnosis diagnosis;
  std::vector<std::string> skills;  // "name: why"
  std::vector<std::string> notes;   // warnings worth a person's attention
  std::vector<Attempt> attempts;
  int best = -1;                    // index into attempts of the best accepted candidate
  std::string diff;                 // unified diff original -> best
  double seconds = 0;

  bool found() const { return best >= 0; }
  const Attempt* Best() const { return found() ? &attempts[static_cast<size_t>(best)] : nullptr; }
  nlohmann::json ToJson() const;
  // Errors: InvalidArgument naming the first missing or mistyped field, or a best_attempt
  // that is not an attempt with a timed verdict. `path` names the document in errors.
  static Result<OptimizeReport> FromJson(const nlohmann::json& json,
                                         const std::string& path = "report");
  std::string RenderText() const;
};

// One line for a progress display: "round 1  llm round 1 repair 1  numeric  rejected ...".
std::string ProgressLine(const Attempt& attempt);

}  // namespace cannbot::optimize
