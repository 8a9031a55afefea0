// OptimizeReport: everything one optimisation did, for people (RenderText), machines
// (ToJson, stored by the daemon) and the CI bot: the diagnosis, the skills used, every attempt
// with its prompt, answer, code and verdict, the best accepted kernel, a unified diff against
// the original and the before/after figures.
//
// Thread-safety: plain values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cannbot/diagnosis/diagnosis.h"
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
  std::string RenderText() const;
};

// One line for a progress display: "round 1  llm round 1 repair 1  numeric  rejected ...".
std::string ProgressLine(const Attempt& attempt);

}  // namespace cannbot::optimize
