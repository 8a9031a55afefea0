#include "cannbot/eval/score.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace cannbot::eval {
namespace {

// The perf gate measured a speedup (it ran at least one timed round).
std::optional<double> MeasuredSpeedup(const validator::Verdict& verdict) {
  if (!verdict.perf || verdict.perf->rounds <= 0 || !std::isfinite(verdict.perf->speedup)) {
    return std::nullopt;
  }
  return verdict.perf->speedup;
}

CandidateScore ScoreAttempt(const optimize::Attempt& attempt) {
  CandidateScore c;
  c.round = attempt.round;
  c.outcome = attempt.outcome;
  c.code = attempt.code;
  c.reason = attempt.verdict ? attempt.verdict->reason : attempt.detail;
  if (attempt.verdict) {
    const validator::Verdict& v = *attempt.verdict;
    c.accepted = v.accepted;
    c.compiled = v.accepted || v.layer != validator::Layer::kCompile;
    c.speedup = MeasuredSpeedup(v);
    if (!v.accepted) c.layer = validator::LayerName(v.layer);
  }
  if (std::optional<Classification> k = ClassifyAttempt(attempt)) {
    const ClassInfo& info = Info(k->id);
    c.reject_class = info.name;
    c.detail = k->detail;
    c.cheat = info.cheat;
  }
  // Correct: through the numeric layer with nothing found wrong later, speed measured.
  c.correct = attempt.verdict && c.speedup.has_value() &&
              (c.accepted || c.reject_class == Info(RejectClass::kNotFaster).name);
  return c;
}

void Add(std::map<std::string, int>* into, const std::map<std::string, int>& from) {
  for (const auto& [key, count] : from) (*into)[key] += count;
}

}  // namespace

std::vector<std::string> OpScore::CheatClasses() const {
  std::set<std::string> names;
  for (const CandidateScore& c : attempts) {
    if (c.cheat) names.insert(c.reject_class);
  }
  return {names.begin(), names.end()};
}

OpScore ScoreReport(const optimize::OptimizeReport& report) {
  OpScore op;
  op.op = report.op;
  op.seconds = report.seconds;
  for (const std::string& note : report.notes) {
    if (note.rfind("round ", 0) == 0) op.notes.push_back(note);  // the provider failed later
  }
  for (const optimize::Attempt& attempt : report.attempts) {
    if (attempt.outcome == "error" || (attempt.outcome == "duplicate" && !attempt.verdict)) {
      ++op.validator_errors;  // nothing the model can be judged by
      continue;
    }
    CandidateScore c = ScoreAttempt(attempt);
    ++op.candidates;
    op.compiled += c.compiled ? 1 : 0;
    op.correct += c.correct ? 1 : 0;
    op.accepted += c.accepted ? 1 : 0;
    if (!c.layer.empty()) ++op.rejected_by_layer[c.layer];
    if (!c.reject_class.empty()) ++op.rejected_by_class[c.reject_class];
    if (c.correct && (!op.best_speedup || *c.speedup > *op.best_speedup)) {
      op.best_speedup = c.speedup;
    }
    op.attempts.push_back(std::move(c));
  }
  return op;
}

OpScore FailedOp(const std::string& op_name, const std::string& error) {
  OpScore op;
  op.op = op_name;
  op.status = "failed";
  op.error = error;
  return op;
}

double FastP(const std::vector<OpScore>& ops, double p) {
  if (ops.empty()) return 0;
  const auto fast = std::count_if(ops.begin(), ops.end(),
                                  [p](const OpScore& op) { return op.Fast(p); });
  return static_cast<double>(fast) / static_cast<double>(ops.size());
}

Totals Total(const std::vector<OpScore>& ops) {
  Totals t;
  t.ops = static_cast<int>(ops.size());
  double log_sum = 0;
  int with_speedup = 0;
  std::set<std::string> cheat_classes;
  for (const OpScore& op : ops) {
    t.ops_failed += op.failed() ? 1 : 0;
    t.candidates += op.candidates;
    t.compiled += op.compiled;
    t.correct += op.correct;
    t.accepted += op.accepted;
    t.validator_errors += op.validator_errors;
    for (const CandidateScore& c : op.attempts) t.cheats += c.cheat ? 1 : 0;
    Add(&t.rejected_by_layer, op.rejected_by_layer);
    Add(&t.rejected_by_class, op.rejected_by_class);
    for (const std::string& name : op.CheatClasses()) cheat_classes.insert(name);
    if (op.best_speedup && *op.best_speedup > 0) {
      log_sum += std::log(*op.best_speedup);
      ++with_speedup;
    }
    if (op.tokens) {
      if (!t.tokens) t.tokens = TokenUsage{};
      t.tokens->prompt += op.tokens->prompt;
      t.tokens->completion += op.tokens->completion;
      t.tokens->total += op.tokens->total;
    }
  }
  t.compile_rate = Share(t.compiled, t.candidates);
  t.correct_rate = Share(t.correct, t.candidates);
  t.fast_0 = FastP(ops, 0);
  t.fast_1 = FastP(ops, 1);
  t.fast_2 = FastP(ops, 2);
  if (with_speedup > 0) t.geomean_speedup = std::exp(log_sum / with_speedup);
  t.cheat_classes.assign(cheat_classes.begin(), cheat_classes.end());
  return t;
}

}  // namespace cannbot::eval
