// Optimizer: the generate -> validate -> repair loop.
//
// Each round asks the provider for up to `samples` candidates, validates each through all
// three layers against the user's kernel, and feeds the failures back (compiler errors,
// mismatch report, timings) in the next round, up to `rounds` repair rounds. Identical
// candidates are validated once. The loop stops early when an accepted candidate reaches
// `good_enough_roofline` of this machine's roofline, keeps the fastest accepted candidate, and
// records every attempt.
//
// Candidates are judged through a CandidateJudge (the Validator, or a fake in tests) and time
// is read from an Env, so the loop itself touches neither a compiler nor the clock.
//
// Ownership: borrows the judge (or Validator), the Provider and the Env. Thread-safety: one
// Run at a time per Optimizer; progress callbacks run on the calling thread.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "cannbot/optimize/candidate_judge.h"
#include "cannbot/optimize/provider.h"
#include "cannbot/optimize/report.h"
#include "cannbot/util/env.h"
#include "cannbot/validator/validator.h"

namespace cannbot::optimize {

struct LoopConfig {
  int samples = 4;                    // candidates asked for per round
  int rounds = 3;                     // repair rounds after the first
  double good_enough_roofline = 0.8;  // stop once an accepted kernel reaches this fraction
  int token_budget = 12000;           // prompt size limit (estimated tokens)
  double time_budget_seconds = 900;   // no new validation starts after this long
  double min_speedup = 0;             // the perf bar for this run; 0 = the validator's own
  // Set (by another thread: a cancel, a shutdown) to stop early: no new validation starts.
  const std::atomic<bool>* stop = nullptr;
};

struct OptimizeRequest {
  const ops::OpSpec* op = nullptr;
  validator::KernelSource original;  // must already have passed Validator::CheckKernel
  diagnosis::Diagnosis diagnosis;
  std::vector<skills::SkillMatch> skills;
  std::string hardware;
  const target::Target* target = nullptr;  // null = target::Default()
  std::optional<uint64_t> seed;
};

struct ProgressEvent {
  enum class Kind { kAsking, kValidating, kAttemptDone };
  Kind kind;
  int round = 0;
  std::string text;                 // "asking the provider for 4 candidates"
  const Attempt* attempt = nullptr;  // for kAttemptDone
};
using ProgressFn = std::function<void(const ProgressEvent&)>;

class Optimizer {
 public:
  // Judges candidates with `judge` and reads time from `env`.
  Optimizer(CandidateJudge* judge, Provider* provider, LoopConfig config,
            Env* env = Env::Default());
  // Judges candidates with the validator's full validation (a ValidatorJudge it owns).
  Optimizer(validator::Validator* validator, Provider* provider, LoopConfig config);

  // Fills report->attempts and report->best; the caller fills the rest of the report.
  // Errors only when the provider fails before producing any attempt.
  Status Run(const OptimizeRequest& request, OptimizeReport* report,
             const ProgressFn& progress = {});

 private:
  Attempt Evaluate(const OptimizeRequest& request, const Proposal& proposal, int round,
                   const std::vector<Attempt>& earlier);

  std::unique_ptr<CandidateJudge> owned_judge_;  // set by the Validator* constructor
  CandidateJudge* judge_;
  Provider* provider_;
  LoopConfig config_;
  Env* env_;
};

// What the validator said about an attempt, as text for a repair prompt.
std::string Feedback(const Attempt& attempt);

}  // namespace cannbot::optimize
