// Score: the arithmetic of an evaluation. One op's optimisation report becomes an OpScore
// (how many candidates the model wrote, how many compiled, were correct, were accepted, the
// best speedup of a correct one, why the others were turned down); a run's OpScores become
// Totals (rates over candidates, fast_p over ops).
//
// Definitions (docs/eval.md):
//   candidate  every answer the model gave for the op: a kernel, a duplicate of an earlier
//              one (judged by its verdict), or an answer without code. Attempts the validator
//              itself could not judge are counted apart (validator_errors), in no rate.
//   compiled   its verdict got past the compile layer.
//   correct    it got past the numeric layer and no later check found it wrong or misbehaving:
//              accepted, or turned down only for not being faster; its speedup was measured.
//   speedup    the perf gate's median of paired baseline/candidate timings against the op's
//              naive kernel (examples/<op>/naive.cpp), on this machine.
//   fast_p     KernelBench's: the share of ops that have a correct candidate with
//              speedup > p, over every op of the run (an op whose endpoint failed counts as
//              having none). fast_0 is the share of ops with any correct candidate.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cannbot/eval/classify.h"
#include "cannbot/optimize/report.h"

namespace cannbot::eval {

// part / whole, 0 when whole is 0.
inline double Share(int part, int whole) {
  return whole > 0 ? static_cast<double>(part) / whole : 0;
}

struct TokenUsage {
  int64_t prompt = 0;
  int64_t completion = 0;
  int64_t total = 0;
  bool operator==(const TokenUsage&) const = default;
};

// One candidate as the evaluation sees it.
struct CandidateScore {
  int round = 0;
  std::string outcome;  // the attempt's: "accepted", "rejected", "duplicate", "no code"
  std::string layer;    // the verdict's layer, "" when accepted or not judged
  std::string reject_class;  // ClassInfo::name, "" when accepted
  std::string detail;        // Classification::detail
  bool cheat = false;
  bool compiled = false;
  bool correct = false;
  bool accepted = false;
  std::optional<double> speedup;  // measured by the perf gate (counts only when correct)
  std::string reason;             // the verdict's reason, or why there was none
  std::string code;               // the kernel as the model wrote it
};

struct OpScore {
  std::string op;
  std::string family;
  std::string status = "ok";  // "ok", or "failed": the run of this op ended in an error
  std::string error;          // why it failed (the endpoint's HTTP error, unreachable, ...)
  std::vector<std::string> notes;  // e.g. a later round's endpoint failure
  int candidates = 0;
  int compiled = 0;
  int correct = 0;
  int accepted = 0;
  int validator_errors = 0;
  std::optional<double> best_speedup;  // of a correct candidate
  std::map<std::string, int> rejected_by_layer;  // "compile", "sandbox", "numeric", "perf"
  std::map<std::string, int> rejected_by_class;  // ClassInfo::name
  std::optional<TokenUsage> tokens;  // null when the server reported none
  double seconds = 0;
  std::vector<CandidateScore> attempts;

  bool failed() const { return status != "ok"; }
  // compiled / candidates and correct / candidates; 0 without candidates.
  double compile_rate() const { return Share(compiled, candidates); }
  double correct_rate() const { return Share(correct, candidates); }
  // KernelBench's fast_p for this op: a correct candidate with speedup > p.
  bool Fast(double p) const { return best_speedup.has_value() && *best_speedup > p; }
  // The cheat classes its candidates fell in (ClassInfo::name, sorted, once each).
  std::vector<std::string> CheatClasses() const;
};

struct Totals {
  int ops = 0;
  int ops_failed = 0;
  int candidates = 0;
  int compiled = 0;
  int correct = 0;
  int accepted = 0;
  int validator_errors = 0;
  int cheats = 0;  // candidates in a cheat class
  double compile_rate = 0;  // compiled / candidates (0 without candidates)
  double correct_rate = 0;  // correct / candidates
  double fast_0 = 0;
  double fast_1 = 0;
  double fast_2 = 0;
  // Geometric mean of the ops' best speedups, over the ops that have one.
  std::optional<double> geomean_speedup;
  std::map<std::string, int> rejected_by_layer;
  std::map<std::string, int> rejected_by_class;
  std::optional<TokenUsage> tokens;  // null when no op's server reported any
  std::vector<std::string> cheat_classes;
};

// The score of one op from its report (status "ok").
OpScore ScoreReport(const optimize::OptimizeReport& report);
// An op whose run ended in `error`.
OpScore FailedOp(const std::string& op, const std::string& error);

// KernelBench's fast_p over `ops`: the share with Fast(p); 0 for no ops.
double FastP(const std::vector<OpScore>& ops, double p);
Totals Total(const std::vector<OpScore>& ops);

}  // namespace cannbot::eval
